"""The tool files that ship with trailblaze, laid out as upstream ships its own
(``trailmaps/<trailmap>/tools/*.tool.yaml``); built-in plugins register them."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trailblaze.core.errors import ErrorList

TRAILMAPS = Path(__file__).resolve().parent.parent / "trailmaps"


def register_trailmap(register: Callable[[Any], Any], trailmap: str) -> None:
    """Register every tool file of a bundled trailmap (a broken one is a bug: it fails loudly)."""
    from trailblaze.tools.yamlcompose import class_spec, composed_spec
    from trailblaze.tools.yamltool import find_tool_files, load_tool_file

    for path in find_tool_files(TRAILMAPS / trailmap / "tools"):
        loaded = load_tool_file(path, f"yaml:trailmaps/{trailmap}/tools/{path.name}")
        if loaded.problems:
            raise ErrorList(loaded.problems)
        for declaration in loaded.declarations:
            spec = composed_spec(declaration) if declaration.file.body == "tools" else class_spec(declaration, None)
            if spec is not None:
                register(spec)


@functools.cache
def builtin_toolset_names() -> frozenset[str]:
    """The names of the toolsets that ship with trailblaze (a file's ``id:``, else its name), for
    the check of ``tool_sets:`` names in trailblaze.yaml, which needs no more than the names."""
    from trailblaze.core.yamlsource import load_path

    names = set()
    for path in TRAILMAPS.glob("*/toolsets/*.yaml"):
        data = load_path(path).data
        named = data.get("id") if isinstance(data, dict) else None
        names.add(named if isinstance(named, str) and named else path.stem)
    return frozenset(names)
