"""The project's trails as ``trailblaze mcp`` names them: listing (``trail(action=LIST)``, the
``trailblaze://trails`` resources) and finding one by name, title or file (``trail(action=RUN)``).

A trail is named by its path below the trails folder without ``.trail.yaml`` (``checkout`` or
``web/checkout``), or by its ``config.title``; a title two trails share is an error that lists
them, never a guess.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import UsageError
from trailblaze.core.yamlsource import load_path
from trailblaze.trail.discovery import resolved_path

if TYPE_CHECKING:
    from trailblaze.mcpserver.state import ClientState

TRAILS_PER_PAGE = 20


def trail_files(state: ClientState) -> list[Path]:
    """Every trail file in the trails folder, in discovery order, each as found there (through
    the links in it). What cannot be searched — a symlink loop, a folder that cannot be listed —
    is left out: one bad entry must not hide the other trails."""
    from trailblaze.trail.discovery import discover

    folder = state.project.config.trails_dir
    return discover([folder], problems=[]) if folder.is_dir() else []


def shown(state: ClientState, path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it, else
    to the project; a link out of the project as the link's own path."""
    for base in (Path.cwd(), state.project.config.root):
        for inside, folder in ((Path(resolved_path(path)), base.resolve()), (path.absolute(), base.absolute())):
            with contextlib.suppress(ValueError):
                return str(inside.relative_to(folder))
    return str(path)


def list_trails(state: ClientState, text: str | None, page: int) -> dict[str, Any]:
    """``trail(action=LIST)``: a page of the trails whose file or title contains ``text``."""
    folder = state.project.config.trails_dir
    rows = []
    for path in trail_files(state):
        title = title_of(path)
        row = {"name": trail_name(folder, path), "file": shown(state, path), "title": title}
        if text and text.lower() not in f"{row['file']} {title or ''}".lower():
            continue
        rows.append(row)
    start = (page - 1) * TRAILS_PER_PAGE
    pages = max(1, -(-len(rows) // TRAILS_PER_PAGE))
    return {"trails": rows[start : start + TRAILS_PER_PAGE], "page": page, "pages": pages, "total": len(rows)}


def trail_name(folder: Path, path: Path) -> str:
    """What ``trail(action=RUN, name=…)`` calls the trail at ``path``: its path below the trails
    folder, as found there (a link to a file elsewhere is named by the link)."""
    name = path.as_posix()
    for inside, base in ((path.absolute(), folder.absolute()), (Path(resolved_path(path)), folder.resolve())):
        if inside.is_relative_to(base):
            name = inside.relative_to(base).as_posix()
            break
    return name.removesuffix(".trail.yaml").removesuffix("/trail.yaml").removesuffix("trail.yaml") or name


def title_of(path: Path) -> str | None:
    """The trail's ``config.title``, read without loading the whole trail (a broken file has none)."""
    try:  # read as every trail is (a FIFO or a link to /dev/zero has no title), parsed when small
        data = load_path(path).data if os.path.getsize(path) < 64_000 else None
    except (OSError, UsageError):
        return None
    if isinstance(data, dict) and isinstance(data.get("config"), dict):
        title = data["config"].get("title")
        return str(title) if title else None
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict) and isinstance(item.get("config"), dict) and item["config"].get("title"):
                return str(item["config"]["title"])
    return None


def find_trail(state: ClientState, name: str | None, file: str | None) -> Path:
    """The trail ``file`` names, else the one named ``name`` (its path, else its title)."""
    for given in (file, name):
        if given and "\x00" in given:
            raise UsageError(f"no trail {given!r}: a file's name holds no NUL character")
    if file:
        for base in (Path.cwd(), state.project.config.root, state.project.config.trails_dir):
            candidate = (base / file).resolve()
            if candidate.is_file():
                return candidate
        raise UsageError(f"no trail file {file!r}")
    if not name:
        raise UsageError(
            'say which trail: trail(action=RUN, name="login") or trail(action=RUN, file="trails/x.trail.yaml")'
        )
    folder = state.project.config.trails_dir
    for candidate in (folder / f"{name}.trail.yaml", folder / name / "trail.yaml", folder / name):
        if candidate.is_file():
            return candidate
    matches = [p for p in trail_files(state) if title_of(p) == name]
    if len(matches) == 1:
        return matches[0]
    if matches:
        files = ", ".join(shown(state, p) for p in matches)
        raise UsageError(
            f"{len(matches)} trails are titled {name!r}: {files}; say which with "
            f'trail(action=RUN, file="{shown(state, matches[0])}")'
        )
    raise UsageError(f"no trail named {name!r} in {shown(state, folder)} (trail(action=LIST) lists them)")
