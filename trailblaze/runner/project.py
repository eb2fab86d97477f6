"""The project: configuration, plugins, and the tools and drivers they registered.

Every command builds one :class:`Project`; it is the library API the CLI is thin over.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.config import Config
from trailblaze.driver import Driver, DriverRegistry
from trailblaze.errors import ErrorList, TrailblazeError, UsageError
from trailblaze.pluginmanager import Plugins, call_registration
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.checks import check_trail_tools
from trailblaze.trail.discovery import discover, resolved_path
from trailblaze.trail.loader import TrailErrors
from trailblaze.trail.model import Trail

if TYPE_CHECKING:
    from trailblaze.agents.base import Agent, AgentRegistry


class Project:
    def __init__(self, config: Config, plugins: Plugins) -> None:
        self.config = config
        self.plugins = plugins
        self._configured = False

    @property
    def hook(self) -> Any:
        return self.plugins.hook

    def configure(self) -> None:
        if not self._configured:
            self._configured = True
            self.hook.trailblaze_configure.call_historic(kwargs={"config": self.config})

    def unconfigure(self) -> None:
        if self._configured:
            self._configured = False
            self.hook.trailblaze_unconfigure(config=self.config)

    @functools.cached_property
    def tools(self) -> ToolRegistry:
        """Every tool the Python plugins registered (MCP tools join per session)."""
        registry = ToolRegistry()

        def make_register(plugin_name: str) -> Callable[[Any], Any]:
            def register(tool: Any) -> Any:
                try:
                    registry.add(tool, source=plugin_name)
                except TypeError as exc:  # a tool the plugin declared wrongly
                    raise UsageError(f"plugin {plugin_name!r} registered a bad tool: {exc}") from None
                return tool

            return register

        call_registration(self.plugins, "trailblaze_register_tools", make_register)
        return registry

    @functools.cached_property
    def drivers(self) -> DriverRegistry:
        registry = DriverRegistry()

        def make_register(plugin_name: str) -> Callable[[type[Driver]], type[Driver]]:
            def register(driver: type[Driver]) -> type[Driver]:
                try:
                    registry.add(driver, plugin_name)
                except TypeError as exc:
                    raise UsageError(f"plugin {plugin_name!r} registered a bad driver: {exc}") from None
                return driver

            return register

        call_registration(self.plugins, "trailblaze_register_drivers", make_register)
        return registry

    @functools.cached_property
    def agents(self) -> AgentRegistry:
        """Every agent the plugins registered (``record``, ``run --self-heal``)."""
        from trailblaze.agents.base import AgentRegistry

        registry = AgentRegistry()

        def make_register(plugin_name: str) -> Callable[[type[Agent]], type[Agent]]:
            def register(agent: type[Agent]) -> type[Agent]:
                registry.add(agent, plugin_name)
                return agent

            return register

        call_registration(self.plugins, "trailblaze_register_agents", make_register)
        return registry

    def default_agent_name(self, requested: str | None) -> str:
        """The agent for ``record`` and ``run --self-heal``: ``--agent``, else ``agent:`` in
        trailblaze.yaml, else ``openai`` when an LLM is configured (``llm:`` or the
        ``OPENAI_*`` variables), else ``interactive``."""
        if requested:
            return requested
        if self.config.project.agent:
            return self.config.project.agent
        if self.config.project.llm is not None or any(os.environ.get(v) for v in ("OPENAI_API_KEY", "OPENAI_BASE_URL")):
            return "openai"
        return "interactive"

    def default_driver_name(self, requested: str | None, trail: Trail | None = None) -> str:
        """The driver for a trail: ``--driver``, else ``driver:`` in trailblaze.yaml, else the
        first the trail declares in ``config.devices`` that a plugin provides (or legacy
        ``config.driver``), else web."""
        if requested:
            return requested
        if self.config.project.driver:
            return self.config.project.driver
        if trail is not None:
            if trail.config.devices:
                declared = list(trail.config.devices.values())
                known = set(self.drivers.keys()) | {a for d in self.drivers.drivers() for a in d.aliases}
                return next((name for name in declared if name in known or name.lower() in known), declared[0])
            if trail.config.driver:
                return trail.config.driver
            if trail.config.platform:
                return trail.config.platform.lower()
        return "playwright-native"

    # -- trails ----------------------------------------------------------------------------------

    def discover(self, paths: Sequence[Path]) -> list[Path]:
        return discover(paths or self._default_paths())

    def collect(
        self, paths: Sequence[Path], arg_values: Mapping[str, str], *, require_args: bool = True
    ) -> tuple[list[Trail], list[TrailblazeError]]:
        """Load every trail under ``paths``; return the trails and every problem found."""
        trails: list[Trail] = []
        problems: list[TrailblazeError] = []
        given = list(paths) or self._default_paths()
        files = discover(given, problems)
        for path in files:
            root = self._root_for(path, given)
            try:
                trail = self.hook.trailblaze_collect_file(
                    path=path, root=root, arg_values=dict(arg_values), require_args=require_args
                )
            except TrailErrors as exc:
                problems.extend(exc.errors)
                if exc.trail is not None:  # what could be read is still worth checking
                    problems.extend(
                        check_trail_tools(exc.trail, self.tools, None, allow_unknown=self.has_dynamic_tools)
                    )
                continue
            except ErrorList as exc:
                problems.extend(exc.errors)
                continue
            except TrailblazeError as exc:
                problems.append(exc)
                continue
            if trail is None:
                problems.append(UsageError(f"no plugin can read {path}"))
                continue
            trails.append(trail)
        return trails, problems

    def _default_paths(self) -> list[Path]:
        """``trails_dir``, relative to the working directory when it is inside it, so messages
        and reports name files as the user would type them (``trails/a.trail.yaml:3:5``)."""
        folder = self.config.trails_dir
        try:
            return [folder.relative_to(Path.cwd())]
        except ValueError:
            return [folder]

    def _root_for(self, path: Path, given: Iterable[Path]) -> Path:
        resolved = Path(resolved_path(path))
        for candidate in (self.config.trails_dir, *given):
            folder = candidate if candidate.is_dir() else candidate.parent
            if resolved.is_relative_to(folder.resolve()):
                return folder
        return path.parent

    def check(self, trail: Trail, driver_name: str | None, *, dynamic_tools: bool = False) -> list[TrailblazeError]:
        """Problems with the tool calls of ``trail``: on ``driver_name`` only the recording that
        driver would replay, otherwise every recording against every tool."""
        if driver_name is None:
            return check_trail_tools(trail, self.tools, None, allow_unknown=dynamic_tools)
        driver = self.drivers.resolve(driver_name)
        registry = self.tools.for_device(driver.key, driver.platform)
        return check_trail_tools(trail, registry, (driver.platform,), driver=driver.key, allow_unknown=dynamic_tools)

    @property
    def has_dynamic_tools(self) -> bool:
        """Whether tools may appear only when a session opens (MCP servers are configured)."""
        project = self.config.project
        return bool(
            project.mcp_servers
            or any(t.mcp_servers for t in project.targets.values())
            or any(t.mcp_servers for t in project.toolsets.values())
        )
