"""Loading trailblaze.yaml as the CLI does: with the keys the built-in plugins declare."""

from __future__ import annotations

from pathlib import Path

from trailblaze.core.argparsing import Parser
from trailblaze.pluginmanager import collect_options, get_plugin_manager
from trailblaze.project.config import Config
from trailblaze.project.config import load_config as load_core


def builtin_parser() -> Parser:
    """What the built-in plugins declare (their keys: ``base_url``, ``mcp_servers``, ``llm``…)."""
    return collect_options(get_plugin_manager(autoload=False))


def load_config(path: Path | None, *, discover: bool = True) -> Config:
    return load_core(path, builtin_parser(), discover=discover)
