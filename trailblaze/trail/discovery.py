"""Find trail files: ``*.trail.yaml`` and ``trail.yaml``, recursively, in a stable order."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from trailblaze.errors import Location, UsageError

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


def discover(paths: Iterable[Path]) -> list[Path]:
    """Every trail file under ``paths`` (files are taken as given), sorted, without duplicates."""
    found: list[Path] = []
    seen: set[Path] = set()
    for given in paths:
        if given.is_file():
            candidates = [given]
        elif given.is_dir():
            candidates = sorted(_walk(given))
        else:
            raise UsageError("no such file or directory", Location(str(given)))
        for path in candidates:
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                found.append(path)
    return found


def _walk(root: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in filenames:
            path = Path(dirpath, name)
            if is_trail_file(path):
                yield path
