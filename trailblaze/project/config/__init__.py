"""``trailblaze.yaml``: the project configuration, found by walking up from the working directory.

The core's keys are :class:`ProjectConfig`'s; plugins add their own top-level settings and
sections in ``trailblaze_addoption`` (``parser.addini``, ``parser.add_section``), and the file is
validated against all of them at once, so a plugin's key gets the same ``file:line:col`` errors
and an unknown key is still refused. Keys are accepted in ``snake_case`` and in the seeds'
``camelCase`` (``trails_dir`` or ``trailsDir``, ``mcp_servers`` or ``mcpServers``). Relative
paths in the file resolve against the folder that holds it, so a project behaves the same from
any working directory.

:class:`Config` is what plugins get in ``trailblaze_configure``: the file's values, and the
command line's options (``config.getoption``).

The models are :mod:`.models`, the runtime :class:`Config` :mod:`.runtime`, reading the file
:mod:`.loading` (checked across keys by :mod:`.checks`), and what a ``base_url`` may be
:mod:`.urls`; this module gathers the names plugins and the rest of trailblaze use.

Built-in plugins declare their keys as any plugin does: the web driver's (``base_url``,
``headless``, ``browser``, ``web:``, the ``sample-app`` name) in
:mod:`trailblaze.plugins.web_playwright`, MCP servers (``mcp_servers:`` at the top level, in
targets and in toolsets, :mod:`trailblaze.mcpclient.settings`) in
:mod:`trailblaze.plugins.mcp_toolsets`.
"""

from __future__ import annotations

from trailblaze.project.config.loading import file_model, load_config
from trailblaze.project.config.models import (
    PLATFORM_KEYS,
    REGISTERED_PLATFORMS,
    PlatformConfig,
    ProjectConfig,
    SettingsModel,
    TargetConfig,
    ToolsetConfig,
    WaitSeconds,
)
from trailblaze.project.config.runtime import Config
from trailblaze.project.config.urls import BaseUrl, base_url_problem, check_base_url, url_problem
from trailblaze.project.projectfile import CONFIG_NAME, find_config, plugins_listed_in

__all__ = [
    "CONFIG_NAME",
    "PLATFORM_KEYS",
    "REGISTERED_PLATFORMS",
    "BaseUrl",
    "Config",
    "PlatformConfig",
    "ProjectConfig",
    "SettingsModel",
    "TargetConfig",
    "ToolsetConfig",
    "WaitSeconds",
    "base_url_problem",
    "check_base_url",
    "file_model",
    "find_config",
    "load_config",
    "plugins_listed_in",
    "url_problem",
]
