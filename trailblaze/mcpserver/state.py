"""One MCP client's session: its settings, the device it connected, what it has recorded.

Seed 001: "one session controls one device at a time". Over stdio there is one client; over
Streamable HTTP every client (``Mcp-Session-Id``) gets its own :class:`ClientState`, its own
device and recording. Calls that touch the device are serialised per session (``lock``), so a
client that sends two at once gets them one after the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.core.errors import InfrastructureError, TrailblazeError, UsageError
from trailblaze.mcpserver.categories import (
    Category,
    Profile,
    categories_of,
    offered,
    profile_categories,
    same_action_as,
)
from trailblaze.mcpserver.device import DeviceSession, run_options
from trailblaze.mcpserver.metrics import AgentMetrics
from trailblaze.mcpserver.recording import Recording
from trailblaze.mcpserver.settings import Mode, Settings
from trailblaze.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from trailblaze.api.agent import Agent
    from trailblaze.api.driver import Driver
    from trailblaze.runner.project import Project
    from trailblaze.tools.model import ToolSpec

#: tools that are never offered to a client: ``objectiveStatus`` ends an agent's step, it does nothing
HIDDEN_TOOLS = frozenset({"objectiveStatus"})


@dataclass(slots=True)
class Defaults:
    """What ``trailblaze mcp`` was started with (its command-line options; the drivers read
    their own, ``--headed`` and ``--base-url``, from the configuration)."""

    #: ``--agent``: the registered agent that works out ``step(objective)`` and ``runPrompt`` in
    #: TRAILBLAZE_AS_AGENT mode on the configured LLM (DIRECT); MCP_SAMPLING uses the client's LLM.
    #: Without ``--agent``, the first configured agent that needs no person (see
    #: ``Project.default_agent_name``), chosen when the server starts
    agent: str
    driver: str | None = None
    device: str | None = None
    target: str | None = None
    mode: Mode = Mode.MCP_CLIENT_AS_AGENT
    timeout: float | None = None
    #: the device tools a new session lists (``--profile``)
    profile: Profile = Profile.DEFAULT
    #: ``--max-sessions``: how many client sessions may hold a device at once (None: no bound)
    max_sessions: int | None = None


@dataclass(eq=False)
class DeviceSlots:
    """The devices the server's sessions hold at once, up to ``--max-sessions``: each is a
    browser (some 250 MB) or a phone connection, so thirty clients must not mean thirty-one
    browsers. A session that asks for one more gets a message, not a device."""

    maximum: int | None = None
    holders: set[str] = field(default_factory=set)

    def take(self, holder: str) -> None:
        if holder not in self.holders and self.maximum is not None and len(self.holders) >= self.maximum:
            raise InfrastructureError(
                f"this server already drives {len(self.holders)} devices, its maximum (--max-sessions "
                f"{self.maximum}); a session gives its device back when its client disconnects or after "
                "--idle-timeout, or start trailblaze mcp with a higher --max-sessions"
            )
        self.holders.add(holder)

    def keep(self, holder: str) -> None:
        """``holder`` still has a device (it replaced one, giving the old one's back meanwhile)."""
        self.holders.add(holder)

    def release(self, holder: str) -> None:
        self.holders.discard(holder)


def defaults_from(
    project: Project, mode: str, profile: str = Profile.DEFAULT.value, max_sessions: int | None = None
) -> Defaults:
    """The server's defaults from ``trailblaze mcp``'s options; an unknown ``--driver``,
    ``--target`` or ``--agent`` is misuse, found before the server starts."""
    config = project.config
    driver = config.getoption("driver", None)
    target = config.getoption("target", None)
    if driver:
        project.drivers.resolve(driver)
    agent = project.default_agent_name(config.getoption("agent", None), unattended=True)
    if project.agents.resolve(agent).reads_stdin and config.stdout_protocol is not None:
        raise UsageError(
            f"--agent {agent}: that agent reads a person's answers from stdin, which is the "
            f"{config.stdout_protocol} protocol's here; choose another agent"
        )
    workspace = project.workspace
    if target and project.target_config(target, workspace) is None:
        known = sorted({*config.project.targets, *(workspace.targets if workspace else ())})
        raise UsageError(f"unknown target {target!r} (targets: {', '.join(known) or 'none are configured'})")
    return Defaults(
        driver=driver,
        device=config.getoption("device", None),
        target=target or config.project.target,
        mode=Mode(mode.upper()),
        timeout=config.getoption("timeout", None),
        profile=Profile(profile.upper()),
        max_sessions=max_sessions,
        agent=agent,
    )


@dataclass(eq=False)
class ClientState:
    """Everything one client's session holds."""

    project: Project
    defaults: Defaults
    settings: Settings = field(default_factory=Settings)
    device: DeviceSession | None = None
    recording: Recording = field(default_factory=Recording)
    #: earlier recordings of this session (``session(action=LIST)``)
    history: list[Recording] = field(default_factory=list)
    enabled: frozenset[Category] = frozenset()
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    id: str = field(default_factory=lambda: f"mcp-{uuid.uuid4().hex[:10]}")
    #: files this session wrote (``session(action=ARTIFACTS)``): screenshots, saved trails
    artifacts: list[Path] = field(default_factory=list)
    #: trailblaze's agents started for this session (TRAILBLAZE_AS_AGENT), by name; closed with the device
    agents: dict[str, Agent] = field(default_factory=dict)
    #: the screen summary the client was last sent (a reply after an action says when it is unchanged)
    last_screen: str | None = None
    closed: bool = False
    #: the server's devices in use, shared by its sessions (``--max-sessions``)
    slots: DeviceSlots = field(default_factory=DeviceSlots)
    #: this session's agent runs (``getAgentMetrics``)
    metrics: AgentMetrics = field(default_factory=AgentMetrics)

    def __post_init__(self) -> None:
        self.settings.mode = self.defaults.mode
        self.settings.target = self.defaults.target
        self.settings.tool_profile = self.defaults.profile
        self.enabled = profile_categories(self.defaults.profile)

    # -- the device -------------------------------------------------------------------------------

    @property
    def artifacts_dir(self) -> Path:
        return self.project.config.root / ".trailblaze" / "mcp" / self.id

    async def connect(self, driver_key: str, device_id: str | None, headless: bool | None = None) -> DeviceSession:
        """Connect ``device_id`` on ``driver_key`` (the driver's default device when None),
        replacing the device connected before once the new one is open (a connection that
        fails leaves the current device as it was). A device of another platform starts a new
        recording (the steps so far stay in ``session(action=LIST)``)."""
        if self.closed:
            raise InfrastructureError("the MCP session is closing")
        driver = self.project.drivers.resolve(driver_key)
        headed = bool(self.project.config.getoption("headed", False)) if headless is None else not headless
        current = self.device
        same = current is not None and current.driver_key == driver.key and current.headed == headed
        if current is not None and same and device_id in (None, current.live.info.id):
            return current
        options = run_options(
            self.project, driver=driver.key, target=self.settings.target, timeout=self.defaults.timeout
        )
        config = self.project.config.with_options(headed=headed)  # the web driver's option, for this client
        previous_platform = current.platform if current is not None else None
        device = DeviceSession(self.project, options, driver.key, device_id, config)
        if current is None:
            self.slots.take(self.id)  # replacing a device takes no other
        try:
            await device.open()
        except BaseException:
            if current is None:
                self.slots.release(self.id)
            raise
        try:
            if current is not None:
                await self.disconnect()
        finally:
            self.device = device
            self.last_screen = None  # another device's screen: the next reply shows this one whole
            self.slots.keep(self.id)
        if previous_platform not in (None, driver.platform) and self.recording.steps:
            self.new_recording(self.recording.title)
        return device

    async def ensure_device(self) -> DeviceSession:
        """The connected device, else the default one (``--driver``/``--device``, else
        ``driver:`` in trailblaze.yaml, else the web browser)."""
        if self.device is not None:
            return self.device
        return await self.connect(self.default_driver(), self.defaults.device)

    def default_driver(self) -> str:
        return self.project.default_driver_name(self.defaults.driver)

    def platform(self) -> str | None:
        """The connected device's platform, else the default driver's (None when unknown)."""
        if self.device is not None:
            return self.device.platform
        try:
            return self.project.drivers.resolve(self.default_driver()).platform
        except TrailblazeError:
            return None

    async def disconnect(self) -> None:
        device, self.device = self.device, None
        agents, self.agents = list(self.agents.values()), {}
        for agent in agents:
            with contextlib.suppress(Exception):
                await agent.close()
        if device is not None:
            try:
                await device.close()
            finally:
                self.slots.release(self.id)

    async def reconnect_for_target(self) -> bool:
        """A new target means other toolsets and base URL: open the device again for it."""
        device = self.device
        if device is None:
            return False
        await self.disconnect()
        await self.connect(device.driver_key, device.device_id, not device.headed)
        return True

    async def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            await self.disconnect()

    # -- tools ------------------------------------------------------------------------------------

    def device_tools(self, reserved: frozenset[str]) -> list[ToolSpec]:
        """The device's tools this session offers: exposed to LLMs, not kept from agents by the
        target's ``tool_sets:``/``excluded_tools:`` (as the built-in agents are), in an enabled
        category.

        Before a device is connected these are the default driver's own tools (its MCP toolset
        tools join once a device connects): calling one connects the default device, so a
        client that calls a tool straight away (a one-shot CLI) finds it listed."""
        if self.settings.mode is not Mode.MCP_CLIENT_AS_AGENT:
            return []
        builtin = self.builtin_sources()
        hidden = self.hidden_tools()
        candidates = [
            spec
            for spec in self.all_device_tools()
            if spec.metadata.exposed_to_llm
            and spec.unavailable is None
            and spec.name not in reserved
            and spec.name not in hidden
            and offered(spec, self.enabled, builtin)
        ]
        # one name per action: the device's own tool, not the every-driver one beside it
        names = [spec.name for spec in candidates]
        platform = self.platform()
        return [spec for spec in candidates if same_action_as(spec.name, platform, names) is None]

    def hidden_tools(self) -> frozenset[str]:
        """The tools the session's toolsets keep from agents (:func:`trailblaze.project.toolsets.hidden_tools`):
        the connected device's, else those of the default driver with the session's target."""
        if self.device is not None and self.device.session is not None:
            from trailblaze.runner.agent_step import session_hidden

            return session_hidden(self.device.live)
        from trailblaze.device.drivernames import DriverContext
        from trailblaze.project.toolsets import hidden_tools

        project = self.project
        try:
            driver = project.drivers.resolve(self.default_driver())
        except TrailblazeError:
            return frozenset()
        context = DriverContext(driver.key, driver.platform, tuple(driver.aliases), project.drivers.expand)
        workspace = project.workspace
        target = project.target_config(self.settings.target, workspace)
        return hidden_tools(project.config, target, context, workspace.toolsets if workspace is not None else None)

    def all_device_tools(self) -> list[ToolSpec]:
        if self.device is not None and self.device.session is not None:
            specs = self.device.tools()
        else:
            specs = list(self.default_driver_tools())
        return sorted((s for s in specs if s.name not in HIDDEN_TOOLS), key=lambda s: s.name)

    def default_driver_tools(self) -> ToolRegistry:
        """The Python tools a session on the default driver gets (without its MCP toolsets)."""
        try:
            driver = self.project.drivers.resolve(self.default_driver())
        except TrailblazeError:
            return ToolRegistry()
        workspace = self.project.workspace
        return self.project.registry_for(workspace).for_device(driver.key, driver.platform)

    def builtin_sources(self) -> frozenset[str]:
        """The sources of the tools trailblaze ships: its built-in plugins' names."""
        return self.project.plugins.builtin()

    def category_names(self, spec: ToolSpec) -> list[str]:
        return sorted(c.value for c in categories_of(spec, self.builtin_sources()))

    # -- recording --------------------------------------------------------------------------------

    def new_recording(self, title: str | None) -> Recording:
        if self.recording.steps or self.recording.saved_to is not None:
            self.recording.active = False
            self.history.append(self.recording)
        self.recording = Recording(title=title)
        return self.recording

    def recordings(self) -> list[Recording]:
        return [*self.history, self.recording]


def drivers_for_platform(project: Project, platform: str) -> list[type[Driver]]:
    return [d for d in project.drivers.drivers() if d.platform == platform]


def pick_driver(project: Project, platform: str, preferred: str | None) -> str:
    """The driver for ``device(action=ANDROID|IOS|WEB)``: the one ``--driver`` names when it is
    for that platform, else the platform's only (or first) driver."""
    candidates = drivers_for_platform(project, platform)
    if not candidates:
        raise UsageError(f"no driver for {platform} is installed (known drivers: {', '.join(project.drivers.keys())})")
    if preferred:
        with contextlib.suppress(TrailblazeError):
            wanted = project.drivers.resolve(preferred)
            if wanted.platform == platform:
                return wanted.key
    return candidates[0].key
