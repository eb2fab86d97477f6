"""Assemble a real Project in-process (real config loading, real plugin manager)."""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trailblaze.api.results import RunResult
from trailblaze.api.session import RunOptions
from trailblaze.runner.project import Project, load_project
from trailblaze.runner.run import execute, prepare


def make_project(
    root: Path,
    config: str = "",
    plugins: Sequence[str] = ("tests.support.null_driver", "no:terminal"),
    options: Mapping[str, Any] | None = None,
) -> Project:
    """A project as a command assembles it; ``options`` are command-line values by dest."""
    (root / "trailblaze.yaml").write_text(textwrap.dedent(config), encoding="utf-8")
    return load_project(root / "trailblaze.yaml", list(plugins), options=options, autoload=False)


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def run(project: Project, **options: object) -> RunResult:
    opts = RunOptions(**options)  # type: ignore[arg-type]
    return asyncio.run(execute(prepare(project, opts)))
