"""Find trail files (``*.trail.yaml`` and ``trail.yaml``), or every file for the collectors to
choose from, recursively, in a stable order."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from trailblaze.core.errors import Location, TrailblazeError, UsageError

#: Folders never searched: VCS data, dependencies, our own state, build output, virtualenvs.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".trailblaze",
        "build",
        "dist",
        "out",
        "target",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".gradle",
        ".idea",
    }
)


def is_trail_file(path: Path) -> bool:
    name = path.name
    return name.endswith(".trail.yaml") or name == "trail.yaml"


def discover(paths: Iterable[Path], problems: list[TrailblazeError] | None = None) -> list[Path]:
    """Every trail file under ``paths`` (files are taken as given), sorted, without duplicates.

    Symlinked folders are followed once; a link that leads back into a folder it is in (a
    loop) is not followed and is a problem of that link. Problems go into ``problems`` when it
    is given (so the other trails are still found), otherwise the first one is raised.
    """
    return [path for path, _ in find_files(paths, problems, is_trail_file)]


def find_files(
    paths: Iterable[Path],
    problems: list[TrailblazeError] | None = None,
    select: Callable[[Path], bool] = lambda path: True,
) -> list[tuple[Path, bool]]:
    """Every file under ``paths`` that ``select`` accepts (default: all of them, for the
    collectors to choose from), with whether the user named it (then it is taken whatever its
    name), in the order :func:`discover` gives."""
    found: list[tuple[Path, bool]] = []
    seen: set[str] = set()
    report = problems if problems is not None else []
    for given in paths:
        named = False
        if given.is_file() or (os.path.exists(given) and not given.is_dir()):
            candidates = [given]  # a FIFO or a device too: loading it says what it is
            named = True
        elif given.is_dir():
            candidates = sorted(_walk(given, report, select))
        elif given.is_symlink() and _is_loop(given):
            report.append(UsageError("symlink loop: the link leads back to itself", Location(str(given))))
            candidates = []
        else:
            report.append(UsageError("no such file or directory", Location(str(given))))
            candidates = []
        if report and problems is None:
            raise report[0]
        for path in candidates:
            key = resolved_path(path)
            if key not in seen:
                seen.add(key)
                found.append((path, named))
    return found


def resolved_path(path: Path) -> str:
    """``path`` resolved, or made absolute when it cannot be (a symlink loop: loading it says so)."""
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return os.path.abspath(path)


def _is_loop(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _walk(root: Path, problems: list[TrailblazeError], select: Callable[[Path], bool]) -> Iterable[Path]:
    """Files under ``root`` that ``select`` accepts, following symlinked folders once and never
    in a circle."""
    start = os.stat(root)
    visited = {(start.st_dev, start.st_ino)}
    stack: list[tuple[Path, frozenset[tuple[int, int]]]] = [(root, frozenset(visited))]
    while stack:
        folder, ancestors = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            problems.append(UsageError(f"cannot list the folder: {exc.strerror}", Location(str(folder))))
            continue
        for entry in entries:
            path = Path(folder, entry.name)
            if not _is_folder(entry):
                if select(path):
                    yield path
                continue
            if entry.name in SKIP_DIRS or entry.name.endswith(".egg-info"):
                continue
            try:
                info = os.stat(path)
            except OSError:
                continue
            identity = (info.st_dev, info.st_ino)
            if identity in ancestors:
                target = os.path.realpath(path)
                problems.append(
                    UsageError(f"symlink loop: the link leads back to {target}; not followed", Location(str(path)))
                )
                continue
            if identity in visited:
                continue  # another link to a folder already searched
            visited.add(identity)
            stack.append((path, ancestors | {identity}))


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
