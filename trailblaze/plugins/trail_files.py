"""Built-in collector: reads trail files — ``*.trail.yaml`` and ``trail.yaml`` found in folders, and
any YAML file the user names itself. ``trylast``, so a plugin's collector sees every file first."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.trail.model import Trail


@hookimpl(trylast=True)
def trailblaze_collect_file(
    path: Path, root: Path | None, arg_values: dict[str, str], require_args: bool, given: bool
) -> Trail | None:
    from trailblaze.trail.discovery import is_trail_file

    if not (is_trail_file(path) or (given and path.suffix in (".yaml", ".yml"))):
        return None
    from trailblaze.trail.loader import load_trail

    return load_trail(path, root=root, arg_values=arg_values, require_args=require_args)
