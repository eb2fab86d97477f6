"""The project: configuration, plugins, and the tools and drivers they registered.

Every command builds one :class:`Project`; it is the library API the CLI is thin over.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.config import Config, TargetConfig
from trailblaze.driver import Driver, DriverRegistry
from trailblaze.drivernames import unavailable_driver
from trailblaze.errors import ErrorList, TrailblazeError, UsageError
from trailblaze.pluginmanager import Plugins, call_registration
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.checks import check_trail_tools
from trailblaze.trail.discovery import discover, resolved_path
from trailblaze.trail.loader import TrailErrors
from trailblaze.trail.model import Trail

if TYPE_CHECKING:
    from trailblaze.agents.base import Agent, AgentRegistry
    from trailblaze.workspace import Workspace


class Project:
    def __init__(self, config: Config, plugins: Plugins) -> None:
        self.config = config
        self.plugins = plugins
        self._configured = False
        self._workspaces: dict[Path, Workspace] = {}
        self._workspace_tools: dict[Path, ToolRegistry] = {}

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
        entries = self.config.project.tools
        if entries and self.config.doc is not None:
            from trailblaze.tools.yamltool import add_declarations, load_entries

            loaded = load_entries(entries, self.config.doc, ("tools",), self.config.root, "yaml:trailblaze.yaml")
            problems = loaded.problems + add_declarations(
                registry, loaded.declarations, allow_unknown=self.has_dynamic_tools
            )
            if problems:
                raise ErrorList(problems)
        return registry

    # -- upstream's workspaces ----------------------------------------------------------------------

    def workspace_for(self, path: Path | None = None) -> Workspace | None:
        """The upstream workspace (``trails/config/trailblaze.yaml``) owning ``path`` (default:
        the working directory), loaded once."""
        from trailblaze.workspace import find_workspace, load_workspace

        found = find_workspace(path if path is not None else Path.cwd())
        if found is None:
            return None
        workspace = self._workspaces.get(found)
        if workspace is None:
            workspace = self._workspaces[found] = load_workspace(found)
        return workspace

    def registry_for(self, workspace: Workspace | None) -> ToolRegistry:
        """The tools trails of ``workspace`` may call: every plugin's, plus the workspace's tool
        files and its scripted tools (known by name, unavailable). Problems join the
        workspace's."""
        if workspace is None:
            return self.tools
        registry = self._workspace_tools.get(workspace.config_file)
        if registry is None:
            from trailblaze.tools.yamltool import add_declarations, unavailable_spec

            registry = ToolRegistry(list(self.tools))
            workspace.problems += add_declarations(
                registry, workspace.declarations, allow_unknown=self.has_dynamic_tools
            )
            for name, reason in workspace.unavailable.items():
                if name not in registry:
                    registry.add(unavailable_spec(name, reason, f"workspace {workspace.shown(workspace.config_file)}"))
            self._workspace_tools[workspace.config_file] = registry
        return registry

    def target_config(self, name: str | None, workspace: Workspace | None = None) -> TargetConfig | None:
        """An app target by name: trailblaze.yaml's, else the workspace's."""
        if name is None:
            return None
        found = self.config.project.targets.get(name)
        if found is None and workspace is not None:
            found = workspace.targets.get(name)
        return found

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
        problems = self._config_driver_problems(registry)
        if problems:
            raise ErrorList(problems)
        return registry

    def _config_driver_problems(self, registry: DriverRegistry) -> list[TrailblazeError]:
        """Driver names in trailblaze.yaml that mean nothing: toolsets' ``drivers:`` and
        ``trailblaze/supportedDrivers`` in their metadata overlays (a typo would otherwise make a
        toolset silently apply nowhere)."""
        config = self.config
        named: list[tuple[tuple[str | int, ...], str]] = []
        for name, toolset in config.project.toolsets.items():
            named += [(("toolsets", name, "drivers", i), d) for i, d in enumerate(toolset.drivers or [])]
            overlays: list[tuple[tuple[str | int, ...], dict[str, Any]]] = [
                (("toolsets", name, "default_meta"), toolset.default_meta)
            ]
            overlays += [(("toolsets", name, "tool_meta", tool), meta) for tool, meta in toolset.tool_meta.items()]
            for key_path, meta in overlays:
                listed = meta.get("trailblaze/supportedDrivers") or []
                named += [((*key_path, "trailblaze/supportedDrivers", i), d) for i, d in enumerate(listed)]
        problems: list[TrailblazeError] = []
        for key_path, name in named:
            try:
                registry.expand(name)
            except UsageError as exc:
                problems.append(UsageError(exc.message, config.location(key_path)))
        return problems

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
        ``config.driver``), else web. A trail that declares only upstream drivers this project
        does not have (Compose desktop, Revyl, Electron) is an error saying so."""
        if requested:
            return requested
        if self.config.project.driver:
            return self.config.project.driver
        if self.config.project.platform:
            return self.config.project.platform.lower()
        if trail is not None:
            if trail.config.devices:
                declared = list(trail.config.devices.values())
                found = next((name for name in declared if self.drivers.get(name) is not None), None)
                if found is not None:
                    return found
                missing = [d.label for name in declared if (d := unavailable_driver(name)) is not None]
                if missing and len(missing) == len(declared):
                    raise UsageError(
                        f"this trail is for {', '.join(dict.fromkeys(missing))}, which this project does not "
                        f"have; run it on one of {', '.join(self.drivers.keys())} with --driver KEY",
                        trail.config_location("devices"),
                    )
                return declared[0]
            if trail.config.driver:
                return trail.config.driver
            if trail.config.platform:
                return trail.config.platform.lower()
        return "playwright-native"

    def check_drivers(self, trail: Trail) -> list[TrailblazeError]:
        """Driver names in the trail's config that mean nothing (a typo never silently matches
        no device): ``config.devices`` values and legacy ``config.driver``."""
        named: list[tuple[tuple[str, ...], str]] = [(("devices", c), n) for c, n in trail.config.devices.items()]
        if trail.config.driver:
            named.append((("driver",), trail.config.driver))
        problems: list[TrailblazeError] = []
        for keys, name in named:
            if self.drivers.get(name) is None and unavailable_driver(name) is None:
                known = ", ".join(self.drivers.keys())
                problems.append(
                    UsageError(
                        f"config.{'.'.join(keys)}: unknown driver {name!r} (drivers here: {known}, or upstream's "
                        f"names for them such as ANDROID_ONDEVICE_ACCESSIBILITY, IOS_HOST, PLAYWRIGHT_NATIVE)",
                        trail.config_location(*keys),
                    )
                )
        return problems

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
        reported: set[Path] = set()
        for path in files:
            workspace = self.workspace_for(path)
            if workspace is not None and workspace.config_file not in reported:
                reported.add(workspace.config_file)
                self.registry_for(workspace)
                problems.extend(workspace.problems)
            root = self._root_for(path, given)
            try:
                trail = self.hook.trailblaze_collect_file(
                    path=path, root=root, arg_values=dict(arg_values), require_args=require_args
                )
            except TrailErrors as exc:
                problems.extend(exc.errors)
                if exc.trail is not None:  # what could be read is still worth checking
                    problems.extend(
                        check_trail_tools(
                            exc.trail, self.registry_for(workspace), None, allow_unknown=self.has_dynamic_tools
                        )
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
            problems.extend(self.check_drivers(trail))
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
        workspace = self.workspace_for(trail.path)
        tools = self.registry_for(workspace)
        if driver_name is None:
            problems = check_trail_tools(trail, tools, None, allow_unknown=dynamic_tools)
        else:
            driver = self.drivers.resolve(driver_name)
            registry = tools.for_device(driver.key, driver.platform)
            problems = check_trail_tools(
                trail, registry, (driver.platform,), driver=driver.key, allow_unknown=dynamic_tools
            )
        exempt = workspace.exempt.get(trail.config.target or "") if workspace is not None else None
        if exempt:  # the trailmap explains why (upstream: such findings do not fail its check)
            problems = [
                UsageError(f"{p.message} (trailmap {trail.config.target}: {exempt})", p.location)
                if isinstance(p, UsageError) and p.message.startswith("unknown tool")
                else p
                for p in problems
            ]
        return problems

    @property
    def has_dynamic_tools(self) -> bool:
        """Whether tools may appear only when a session opens (MCP servers are configured)."""
        project = self.config.project
        return bool(
            project.mcp_servers
            or any(t.mcp_servers for t in project.targets.values())
            or any(t.mcp_servers for t in project.toolsets.values())
        )
