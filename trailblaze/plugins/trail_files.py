"""Built-in collector: reads ``*.trail.yaml``, ``trail.yaml`` and legacy ``blaze.yaml`` files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.trail.model import Trail


@hookimpl(trylast=True)
def trailblaze_collect_file(
    path: Path, root: Path | None, arg_values: dict[str, str], require_args: bool
) -> Trail | None:
    if path.suffix not in (".yaml", ".yml"):
        return None
    from trailblaze.trail.loader import load_trail

    return load_trail(path, root=root, arg_values=arg_values, require_args=require_args)
