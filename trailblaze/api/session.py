"""A run and its device sessions: the types every running-hook receives (part of the plugin contract).

A :class:`Run` is one ``trailblaze run`` (or ``record``): the trails to run, the options, the
results. A :class:`Session` is one device bound to one driver for the length of the run, with the
tool registry that device offers and whatever plugins attached to it (MCP servers, for example,
through ``trailblaze_session_setup``). Trails run one after another in a session; each gets a
fresh memory and, on drivers that support it, a fresh browser context.

This module imports nothing at run time but the results, so a plugin can type its hooks with it
(``from trailblaze import Run, Session``) without pulling in the runner.
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from trailblaze.api.results import RunResult

if TYPE_CHECKING:
    import pluggy

    from trailblaze.api.driver import Device, Driver, DriverRegistry
    from trailblaze.core.registry import Registry
    from trailblaze.device.commands import DeviceInfo
    from trailblaze.project.config import Config, TargetConfig
    from trailblaze.project.workspace import Workspace
    from trailblaze.tools.registry import ToolRegistry
    from trailblaze.trail.model import Trail


class ProjectView(Protocol):
    """What plugins may use of the project a run belongs to (``run.project``): its
    configuration, hooks and registries. The runner's ``Project`` is one."""

    @property
    def config(self) -> Config: ...

    @property
    def hook(self) -> pluggy.HookRelay: ...

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def drivers(self) -> DriverRegistry: ...

    @property
    def agents(self) -> Registry[Any]: ...

    def target_config(self, name: str | None, workspace: Workspace | None = None) -> TargetConfig | None: ...


@dataclass(slots=True)
class RunOptions:
    """What the runner itself was asked to do. Options that belong to a plugin (``--json``,
    ``--headed``, ``-v``) are not here: each plugin reads its own with ``config.getoption``."""

    paths: list[Path] = field(default_factory=list)
    driver: str | None = None
    #: the app target for trails that do not name one (``--target``; else ``target:`` in trailblaze.yaml)
    target: str | None = None
    #: device ids (``--device``, repeatable); empty: the configured or the driver's default
    devices: list[str] = field(default_factory=list)
    all_devices: bool = False
    #: sessions at once per device, on drivers that can host several (web)
    workers: int = 1
    #: Maestro's sharding: use N devices; "split" runs each trail once, "all" on every device
    shard_split: int | None = None
    shard_all: int | None = None
    arg_values: dict[str, str] = field(default_factory=dict)
    #: the names given with ``--arg`` (``arg_values`` also holds trailblaze.yaml's ``args:``)
    given_args: list[str] = field(default_factory=list)
    timeout: float | None = None
    fail_fast: bool = False
    artifacts_dir: Path | None = None
    #: ``--self-heal``: a failing recorded step is worked out by ``agent`` from its text
    self_heal: bool = False
    #: the agent for ``--self-heal`` (and ``trailblaze record``)
    agent: str | None = None
    #: ``--save-recording``: a healed trail's new recordings replace the old ones in the file
    save_recording: bool = False
    #: ``--retries``: a failed trail runs again, on a fresh session, up to this many times
    retries: int = 0
    #: ``--fail-on-flaky``: a trail that passed only on a retry fails the run
    fail_on_flaky: bool = False
    #: ``-k``: a pytest-style expression over each trail's id, title and path
    keyword: str | None = None
    #: ``--include-tags``/``--exclude-tags``: Maestro's tag selection
    include_tags: list[str] = field(default_factory=list)
    exclude_tags: list[str] = field(default_factory=list)
    #: ``--last-failed``: only the trails that failed in the last run (all when none did)
    last_failed: bool = False


@dataclass(slots=True)
class PlannedTrail:
    """A trail to run on a driver. ``device_id`` is set once a device is chosen for it."""

    trail: Trail
    driver_key: str
    device_id: str | None = None
    skip_reason: str | None = None
    #: the app target (seed 002): the trail's ``config.target``, else ``--target``, else trailblaze.yaml's
    target: str | None = None
    #: the upstream workspace the trail belongs to (its targets, tool files and toolsets), if any
    workspace: Workspace | None = None
    #: which run of the trail this is: 0 the first, 1 the first ``--retries`` retry, …
    attempt: int = 0
    #: the tools the trail may call (every driver's; its workspace's included), resolved once
    #: when the trail is planned and checked against; None where a trail is not planned so
    registry: ToolRegistry | None = None


@dataclass(slots=True)
class Run:
    """One run: the project, the options, the planned trails and (as it goes) the result.

    ``config`` is the project's configuration, or a copy with some options changed for this run
    (``trailblaze mcp`` opens a visible browser for one client with ``config.with_options``)."""

    project: ProjectView
    options: RunOptions
    config: Config
    planned: list[PlannedTrail] = field(default_factory=list)
    result: RunResult = field(default_factory=RunResult)
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    #: how many sessions the run may have open at once (its devices times ``--workers``), known
    #: once the runner has chosen its devices; 1 for ``trailblaze mcp`` and ``record``
    lanes: int = 1

    @property
    def trails(self) -> list[Trail]:
        return [p.trail for p in self.planned]


@dataclass(eq=False)
class Session:
    """One device for the run. ``registry`` is what tools this device offers; plugins that add
    tools for a session (MCP servers) add them here during ``trailblaze_session_setup``."""

    run: Run
    driver: Driver
    device: Device
    registry: ToolRegistry
    id: str = field(default_factory=lambda: f"sess-{uuid.uuid4().hex[:12]}")
    exit_stack: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)
    #: per-plugin state, keyed by plugin name
    state: dict[str, Any] = field(default_factory=dict)
    trail: Trail | None = None
    #: which run of ``trail`` this is: 0 the first, 1 the first ``--retries`` retry, …
    attempt: int = 0
    memory: dict[str, Any] = field(default_factory=dict)
    #: the app target this session was opened for (its MCP servers and toolsets follow from it)
    target: str | None = None
    #: the upstream workspace of the trails this session runs (see :mod:`trailblaze.project.workspace`)
    workspace: Workspace | None = None
    #: why the session can no longer be trusted (see :meth:`mark_broken`), or None
    broken: str | None = None
    #: the secret values its calls used (``web_fillSecret.value``, ``${ENV}`` values): masked in
    #: every rendering of the screen and every report (:mod:`trailblaze.device.masking`)
    secrets: set[str] = field(default_factory=set)

    def mark_broken(self, reason: str) -> None:
        """Something the session depends on broke (an MCP server died): the runner closes the
        session after the current trail, and the next trail on this lane gets a fresh one."""
        self.broken = self.broken or reason

    def app_target(self) -> dict[str, Any] | None:
        """The session's app target as upstream's scripted tools read it (``ctx.target``): its id,
        display name and the app ids declared for the device's platform (then the target's own).
        Which of them is installed is not checked: ``resolveAppId`` takes the first."""
        if self.target is None:
            return None
        config = self.run.project.target_config(self.target, self.workspace)
        if config is None:
            return {"id": self.target, "appIds": []}
        block = config.platform_block(self.info.platform, self.info.driver)
        app_ids = [*(block.app_ids if block is not None else []), *([config.app_id] if config.app_id else [])]
        target: dict[str, Any] = {"id": self.target, "appIds": list(dict.fromkeys([*app_ids, *config.app_ids]))}
        if config.display_name:
            target["displayName"] = config.display_name
        return target

    @property
    def info(self) -> DeviceInfo:
        return self.device.device

    @property
    def classifiers(self) -> tuple[str, ...]:
        info = self.device.device
        return info.classifiers or (info.platform,)
