"""Find ``trailblaze.yaml`` without validating it (cheap: used while the CLI starts)."""

from __future__ import annotations

import os
from pathlib import Path

from trailblaze.core.errors import UsageError

CONFIG_NAME = "trailblaze.yaml"


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ``trailblaze.yaml`` in ``start`` or a parent folder. Upstream's workspace
    file (``trails/config/trailblaze.yaml``) is not this project's configuration and is passed
    over (:mod:`trailblaze.project.workspace` reads it)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        # whatever is there is the project's file: a FIFO, a device or a broken link is reported
        # when it is read, never passed over for a parent folder's configuration
        if os.path.lexists(candidate) and not is_workspace_file(candidate):
            return candidate
    return None


def is_workspace_file(path: Path) -> bool:
    return path.parent.name == "config" and path.parent.parent.name == "trails"


def plugins_listed_in(path: Path) -> list[str]:
    """The ``plugins:`` of a config file, read without validating the rest (for start-up)."""
    from trailblaze.core.sourcefile import read_source

    try:
        text = read_source(path)
    except UsageError:
        return []  # the command that loads the configuration reports it
    if "plugins" not in text:
        return []  # most projects: no need to parse YAML just to list commands
    from trailblaze.core.yamlsource import load_text

    data = load_text(text, str(path)).data
    listed = data.get("plugins") if isinstance(data, dict) else None
    return [str(p) for p in listed] if isinstance(listed, list) else []


#: names the folder of upstream's workspace file outright (instead of looking for it)
WORKSPACE_CONFIG_DIR_ENV = "TRAILBLAZE_CONFIG_DIR"
WORKSPACE_CONFIG_FILE = "trailblaze.yaml"


def find_workspace(start: Path) -> Path | None:
    """The ``trails/config/trailblaze.yaml`` that owns ``start`` (a file or folder), if any: the
    folders above are looked through without reading anything (the workspace is read by
    :mod:`trailblaze.project.workspace`)."""
    explicit = os.environ.get(WORKSPACE_CONFIG_DIR_ENV)
    if explicit:
        candidate = Path(explicit).expanduser() / WORKSPACE_CONFIG_FILE
        return shown_path(candidate.resolve()) if candidate.is_file() else None
    try:
        here = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop: discovery reports it; the folder still counts
        here = Path(os.path.abspath(start))
    folder = here if here.is_dir() else here.parent
    for ancestor in (folder, *folder.parents):
        candidate = ancestor / "trails" / "config" / WORKSPACE_CONFIG_FILE
        if candidate.is_file():
            return shown_path(candidate)
    return None


def shown_path(path: Path) -> Path:
    """Relative to the working directory when inside it, so messages name files as a person
    would type them (``trails/config/trailmaps/clock/trailmap.yaml:3:5``)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path
