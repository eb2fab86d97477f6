"""Assemble a real Project in-process (real config loading, real plugin manager)."""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Sequence
from pathlib import Path

from trailblaze.config import load_config
from trailblaze.pluginmanager import get_plugin_manager
from trailblaze.runner.project import Project
from trailblaze.runner.results import RunResult
from trailblaze.runner.run import execute, prepare
from trailblaze.runner.session import RunOptions


def make_project(
    root: Path, config: str = "", plugins: Sequence[str] = ("tests.support.null_driver", "no:terminal")
) -> Project:
    (root / "trailblaze.yaml").write_text(textwrap.dedent(config), encoding="utf-8")
    cfg = load_config(root / "trailblaze.yaml")
    manager = get_plugin_manager(list(plugins), cfg.project.plugins, autoload=False)
    cfg.pluginmanager = manager.pm
    project = Project(cfg, manager)
    project.configure()
    return project


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def run(project: Project, **options: object) -> RunResult:
    opts = RunOptions(**options)  # type: ignore[arg-type]
    return asyncio.run(execute(prepare(project, opts)))
