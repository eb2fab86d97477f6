"""The tool files that ship with trailblaze, laid out as upstream ships its own
(``trailmaps/<trailmap>/tools/*.tool.yaml``): built-in plugins declare their trailmaps
(``parser.add_trailmap``) and register their tools, as a third-party plugin shipping a trailmap
would."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from trailblaze.core.errors import ErrorList

TRAILMAPS = Path(__file__).resolve().parent.parent / "trailmaps"


def register_trailmap(register: Callable[[Any], Any], folder: Path) -> None:
    """Register every tool file of a trailmap a plugin ships (a broken one is a bug: it fails
    loudly)."""
    from trailblaze.tools.yamlcompose import class_spec, composed_spec
    from trailblaze.tools.yamltool import find_tool_files, load_tool_file

    for path in find_tool_files(folder / "tools"):
        loaded = load_tool_file(path, f"yaml:trailmaps/{folder.name}/tools/{path.name}")
        if loaded.problems:
            raise ErrorList(loaded.problems)
        for declaration in loaded.declarations:
            spec = composed_spec(declaration) if declaration.file.body == "tools" else class_spec(declaration, None)
            if spec is not None:
                register(spec)


def toolset_names(trailmaps: Mapping[str, Path]) -> frozenset[str]:
    """The names of the toolsets of the trailmaps plugins ship (``parser.add_trailmap``; a file's
    ``id:``, else its name), for the check of ``tool_sets:`` names in trailblaze.yaml, which
    needs no more than the names."""
    return _toolset_names(tuple(trailmaps.values()))


@functools.cache
def _toolset_names(folders: tuple[Path, ...]) -> frozenset[str]:
    from trailblaze.core.yamlsource import load_path

    names = set()
    for path in toolset_files(folders):
        data = load_path(path).data
        named = data.get("id") if isinstance(data, dict) else None
        names.add(named if isinstance(named, str) and named else path.stem)
    return frozenset(names)


def toolset_files(folders: Iterable[Path]) -> list[Path]:
    """The toolset files of the trailmaps in ``folders`` (``toolsets/*.yaml``), in order."""
    return [path for folder in folders for path in sorted(folder.glob("toolsets/*.yaml"))]
