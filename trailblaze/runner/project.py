"""The project: configuration, plugins, and the tools and drivers they registered.

Every command builds one :class:`Project` (:func:`load_project`); it is the library API the CLI
is thin over.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.driver import DriverRegistry
from trailblaze.core.errors import ErrorList, TrailblazeError, UsageError
from trailblaze.device.drivernames import unavailable_driver
from trailblaze.pluginmanager import Plugins, collect, collect_options, get_plugin_manager
from trailblaze.project.config import Config, TargetConfig, load_config
from trailblaze.project.projectfile import find_config, plugins_listed_in
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.model import Trail

if TYPE_CHECKING:
    import pluggy

    from trailblaze.api.agent import AgentRegistry
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.workspace import Workspace


def load_project(
    config_path: Path | None = None,
    plugin_args: Sequence[str] = (),
    *,
    options: Mapping[str, Any] | None = None,
    command: str | None = None,
    plugins: Plugins | None = None,
    parser: Parser | None = None,
    autoload: bool | None = None,
    stdout_protocol: str | None = None,
) -> Project:
    """Assemble a project as a command does: the plugins (``-p`` values in ``plugin_args``, the
    file's ``plugins:``, entry points unless ``autoload`` is False), what they declare
    (``trailblaze_addoption``), the file found from the working directory (or ``config_path``)
    validated against it, the command line's ``options`` (by dest), then
    ``trailblaze_configure``. ``plugins``/``parser`` reuse what the command line already built;
    ``stdout_protocol`` names what the command speaks on stdout (``config.stdout_protocol``)."""
    path = config_path or find_config()
    if plugins is None:
        listed = plugins_listed_in(path) if path is not None and path.exists() else []
        plugins = get_plugin_manager(plugin_args, listed, autoload=autoload)
    if parser is None:
        parser = collect_options(plugins)
    config = load_config(
        path,
        parser,
        discover=False,
        options=options,
        command=command,
        stdout_protocol=stdout_protocol,
        platforms=functools.cache(lambda: registered_platforms(plugins)),
    )
    config.pluginmanager = plugins.pm
    project = Project(config, plugins)
    project.configure()
    return project


def registered_platforms(plugins: Plugins) -> list[str]:
    """The platforms of the drivers plugins register (a third-party driver may add one)."""
    drivers = DriverRegistry()
    collect(plugins, "trailblaze_register_drivers", drivers)
    return [driver.platform for driver in drivers.drivers()]


class Project:
    def __init__(self, config: Config, plugins: Plugins) -> None:
        self.config = config
        self.plugins = plugins
        self._configured = False
        self._workspaces: dict[Path, Workspace] = {}
        #: the workspace config file owning each folder asked about (None: none does)
        self._workspace_files: dict[str, Path | None] = {}
        #: each workspace's registry, with the problems building it found
        self._workspace_tools: dict[Path, tuple[ToolRegistry, list[TrailblazeError]]] = {}

    @property
    def hook(self) -> pluggy.HookRelay:
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
        collect(self.plugins, "trailblaze_register_tools", registry)
        entries = self.config.project.tools
        if entries and self.config.doc is not None:
            from trailblaze.tools.yamlchecks import add_declarations
            from trailblaze.tools.yamltool import load_entries

            loaded = load_entries(entries, self.config.doc, ("tools",), self.config.root, "yaml:trailblaze.yaml")
            problems = loaded.problems + add_declarations(
                registry, loaded.declarations, allow_unknown=self.has_dynamic_tools
            )
            if problems:
                raise ErrorList(problems)
        return registry

    # -- upstream's workspaces ----------------------------------------------------------------------

    @property
    def workspace(self) -> Workspace | None:
        """The upstream workspace the project's trails folder belongs to: where no trail is in
        hand (``trailblaze mcp``, ``tools``, ``schema``, ``--target``), its targets, tool files and
        toolsets are the project's. Kept as :meth:`workspace_for` keeps every workspace (a
        RELOAD reads it again)."""
        return self.workspace_for(self.config.trails_dir)

    @property
    def _shipped_trailmaps(self) -> dict[str, Path]:
        parser = self.config.parser
        return parser.trailmaps if parser is not None else {}

    def workspace_for(self, path: Path) -> Workspace | None:
        """The upstream workspace (``trails/config/trailblaze.yaml``) owning ``path``, loaded once;
        the folders above a folder are looked through once per project, whatever number of
        trails it holds. A trail's is worked out when it is collected
        (:class:`trailblaze.runner.checks.Collected`) and carried from there."""
        folder = self._folder_of(path)
        if folder in self._workspace_files:
            found = self._workspace_files[folder]
        else:
            from trailblaze.project.projectfile import find_workspace

            found = self._workspace_files[folder] = find_workspace(Path(folder))
        if found is None:
            return None
        workspace = self._workspaces.get(found)
        if workspace is None:
            from trailblaze.project.workspace import load_workspace

            workspace = self._workspaces[found] = load_workspace(
                found, self.config.block_model("toolsets"), self._shipped_trailmaps
            )
        return workspace

    @staticmethod
    def _folder_of(path: Path) -> str:
        """The folder a workspace is looked for from: ``path`` itself, or the folder of a file."""
        absolute = os.path.abspath(path)
        return absolute if os.path.isdir(absolute) else os.path.dirname(absolute)

    def registry_for(self, workspace: Workspace | None) -> ToolRegistry:
        """The tools trails of ``workspace`` may call: every plugin's, plus the workspace's tool
        files and its scripted tools (known by name, unavailable); :meth:`tools_for` also says
        what was wrong with them."""
        return self.tools_for(workspace)[0]

    def tools_for(self, workspace: Workspace | None) -> tuple[ToolRegistry, list[TrailblazeError]]:
        """The registry of :meth:`registry_for` and the problems building it found (the
        workspace's tool files and scripted tools), built once per workspace."""
        if workspace is None:
            return self.tools, []
        built = self._workspace_tools.get(workspace.config_file)
        if built is None:
            built = self._workspace_tools[workspace.config_file] = self._build_registry(workspace)
        return built

    def _build_registry(self, workspace: Workspace) -> tuple[ToolRegistry, list[TrailblazeError]]:
        from trailblaze.tools.yamlchecks import add_declarations
        from trailblaze.tools.yamlcompose import unavailable_spec

        registry = ToolRegistry(list(self.tools))
        problems = add_declarations(registry, workspace.declarations, allow_unknown=self.has_dynamic_tools)
        for name, reason in workspace.unavailable.items():
            if name not in registry:
                registry.add(unavailable_spec(name, reason, f"workspace {workspace.shown(workspace.config_file)}"))
        for found in self.hook.trailblaze_workspace_tools(workspace=workspace, registry=registry, project=self):
            problems += found or []
        return registry, problems

    def reload_tools(self) -> None:
        """Read the tool files again — what trailblaze.yaml's ``tools:`` names and the workspaces'
        tool folders hold — for ``trailblaze mcp``'s ``toolbox(action=RELOAD)``. trailblaze.yaml
        itself is not read again. When a file has problems they are raised and the tools stay as
        they were."""
        from trailblaze.project.workspace import load_workspace

        saved = (self.__dict__.get("tools"), dict(self._workspaces), dict(self._workspace_tools))
        self.__dict__.pop("tools", None)
        self._workspace_tools.clear()
        self._workspace_files.clear()  # a workspace may have been made (or removed) since
        try:
            self.tools  # noqa: B018 - reads the files, raises their problems
            for found in saved[1]:
                workspace = self._workspaces[found] = load_workspace(
                    found, self.config.block_model("toolsets"), self._shipped_trailmaps
                )
                problems = [*workspace.problems, *self.tools_for(workspace)[1]]
                if problems:
                    raise ErrorList(problems)
        except TrailblazeError:
            tools, self._workspaces, self._workspace_tools = saved
            if tools is not None:
                self.__dict__["tools"] = tools
            raise

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
        collect(self.plugins, "trailblaze_register_drivers", registry)
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
        from trailblaze.api.agent import AgentRegistry

        registry = AgentRegistry()
        collect(self.plugins, "trailblaze_register_agents", registry)
        return registry

    def default_agent_name(self, requested: str | None, *, unattended: bool = False) -> str:
        """The agent for ``record`` and ``run --self-heal``: ``--agent``, else ``agent:`` in
        trailblaze.yaml, else the first agent the project configures (``Agent.is_configured``:
        ``openai`` when ``llm:`` or the ``OPENAI_*`` variables are set), else the fallback agent
        (``Agent.fallback``: ``interactive``).

        ``unattended``: for ``trailblaze mcp``, where no person answers and stdin is the
        protocol's: ``--agent``, else the first configured agent that needs no person, else the
        first registered one (it says what it lacks when it starts)."""
        if requested:
            return requested
        if unattended:
            alone = [a for a in self.agents if not (a.reads_stdin or a.shows_browser)]
            if not alone:
                raise UsageError("no agent here works without a person: pass --agent NAME")
            return next((a.name for a in alone if a.is_configured(self.config)), alone[0].name)
        if self.config.project.agent:
            return self.config.project.agent
        configured = next((a.name for a in self.agents if a.is_configured(self.config)), None)
        return configured or self.agents.fallback().name

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
        return self.drivers.fallback().key

    @functools.cached_property
    def has_dynamic_tools(self) -> bool:
        """Whether tools may appear only when a session opens (a plugin says so in
        ``trailblaze_adds_session_tools``: MCP toolsets when servers are configured)."""
        return any(self.hook.trailblaze_adds_session_tools(config=self.config))
