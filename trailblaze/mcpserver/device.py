"""A device connected for an MCP client, opened through the runner exactly as ``trailblaze run``
opens one: the driver, the device, the session's tools (plugins and MCP toolsets through
``trailblaze_session_setup``), all closed again with :meth:`DeviceSession.close`.

Calls run through the same resolver as replay, inside a *scratch trail* (never written) that
gives them a place for relative URLs, a memory and a timeout. What a call executed — the
recordable, non-delegating calls, with an ephemeral ``ref`` swapped for the stable selector it
pointed at — is what the MCP session records.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.session import PlannedTrail, Run, RunOptions, Session
from trailblaze.core.errors import ErrorList, ExitCode, InfrastructureError, Location, TrailblazeError, UsageError
from trailblaze.device import masking
from trailblaze.runner.agent_step import AgentStep
from trailblaze.runner.checks import collect_trails, session_problems
from trailblaze.runner.replay import TrailReplay, effective_timeout, tool_runner
from trailblaze.runner.run import Executor
from trailblaze.runner.toolrunner import ToolRunner
from trailblaze.trail.model import Step, StepKind, Trail, TrailConfig

if TYPE_CHECKING:
    from trailblaze.api.agent import CallResult
    from trailblaze.api.results import StepResult, TrailResult
    from trailblaze.device.commands import ScreenState, ViewNode
    from trailblaze.project.config import Config
    from trailblaze.runner.project import Project
    from trailblaze.tools.model import ToolSpec

Progress = Callable[[float, float | None, str], Awaitable[None]]


class DeviceSession:
    """One connected device: its runner session, the scratch trail and the tool runner."""

    def __init__(
        self, project: Project, options: RunOptions, driver_key: str, device_id: str | None, config: Config
    ) -> None:
        self.project = project
        self.options = options
        self.driver_key = project.drivers.resolve(driver_key).key
        self.device_id = device_id
        #: the browser shows its window (the web driver's ``--headed``, or the client's ``headless=false``)
        self.headed = bool(config.getoption("headed", False))
        self.executor = Executor(Run(project, options, config))
        #: an upstream workspace the trails folder belongs to (its targets and tool files)
        self.workspace = project.workspace
        self.session: Session | None = None
        self.trail = _scratch_trail(project)
        self.runner: ToolRunner | None = None
        #: when the device was connected (seconds since the epoch): ``logcat`` reads from here on
        self.opened_at = time.time()
        self._steps = 0

    async def open(self) -> None:
        try:
            target = self.options.target or (self.workspace.default_target if self.workspace is not None else None)
            self.opened_at = time.time()
            self.session = await self.executor.open_session(self.driver_key, self.device_id, target, self.workspace)
            session = self.session
            session.trail = self.trail
            session.memory = {}
            timeout = effective_timeout(session, self.trail)
            session.device.default_timeout = timeout
            await session.device.start_trail(self.trail)
            self.runner = tool_runner(session, self.trail, timeout)
        except BaseException:
            await self.close()
            raise

    async def reload(self) -> None:
        """The session's tools as the project has them now (``toolbox(action=RELOAD)``): a fresh
        registry and MCP toolset servers started again; the device, its page and the memory stay."""
        session = self.live
        assert self.runner is not None
        timeout = self.runner.timeout
        self.workspace = self.project.workspace
        try:
            await self.executor.set_up_again(session, self.workspace)
        finally:
            self.runner = tool_runner(session, self.trail, timeout)  # its resolver holds the registry

    async def close(self) -> None:
        session, self.session, self.runner = self.session, None, None
        try:
            if session is not None:
                await session.device.end_trail(self.trail)
        finally:
            try:
                if session is not None:
                    await self.executor.close_session(session)
            finally:
                await self.executor.close_drivers()

    # -- what is connected ------------------------------------------------------------------------

    @property
    def live(self) -> Session:
        if self.session is None or self.runner is None:
            raise InfrastructureError("the device is not connected (it was closed); connect it again with device()")
        return self.session

    @property
    def platform(self) -> str:
        return self.project.drivers.resolve(self.driver_key).platform

    @property
    def classifier(self) -> str:
        """The classifier new recordings go under: the device's most general one (``android``,
        not ``android-phone``), as ``trailblaze record`` does for a trail that declares none."""
        from trailblaze.trail.model import lookup_order

        return lookup_order(self.live.classifiers)[-1]

    def describe(self) -> dict[str, Any]:
        session = self.live
        info = session.info
        return {
            **info.to_dict(),
            "model": info.model,
            "classifiers": list(session.classifiers),
            "target": session.target,
            "session": session.id,
        }

    def tools(self) -> list[ToolSpec]:
        """What a trail on this device could call: the session's registry (plugins, MCP toolsets)."""
        return list(self.live.registry)

    # -- calls ------------------------------------------------------------------------------------

    def new_step(self, kind: StepKind, text: str) -> Step:
        """A step of the scratch trail for calls to be made in."""
        self._steps += 1
        return Step(self._steps - 1, kind, text, None, Location(None))

    def task(self, kind: StepKind, text: str) -> AgentStep:
        """A step for calls to be made in, checked and recorded the way an agent's are."""
        session = self.live
        assert self.runner is not None
        return AgentStep(session, self.trail, self.new_step(kind, text), text, self.runner)

    async def call(self, task: AgentStep, name: str, args: Mapping[str, Any]) -> CallResult:
        """Execute one call in ``task``; a broken driver becomes an error result, not an exception."""
        self.live  # noqa: B018 - raises when the device is gone
        try:
            return await task.call(name, args)
        except TrailblazeError:
            raise
        except Exception as exc:
            raise InfrastructureError(f"{self.driver_key}: {type(exc).__name__}: {exc}") from exc

    async def screen(self) -> ViewNode:
        """The screen, with the session's secrets masked (a filled password shows in it)."""
        session = self.live
        return masking.masked_node(await session.device.view_hierarchy(), session.secrets)

    async def capture(self) -> ScreenState:
        """A screenshot and the screen (masked; the pixels cannot be)."""
        session = self.live
        state = await session.device.capture_screen()
        state.hierarchy = masking.masked_node(state.hierarchy, session.secrets)
        return state

    # -- trails -----------------------------------------------------------------------------------

    def load(self, path: Path) -> Trail:
        """Load a trail for this device, with the same checks ``trailblaze run`` makes."""
        project = self.project
        args = {k: str(v) for k, v in project.config.project.args.items()}
        trails, problems = collect_trails(project, [path], args)
        if not problems and not trails:
            problems.append(UsageError("not a trail file", Location(str(path))))
        for trail in trails:
            problems.extend(session_problems(trail, self.live))
        if problems:
            raise ErrorList(problems)
        return trails[0]

    async def replay(self, trail: Trail, progress: Progress) -> TrailResult:
        """Replay ``trail`` as ``trailblaze run`` would (a fresh browser context on the web); the
        device keeps the state the trail left, and the session's own calls go on afterwards."""
        session = self.live
        planned = PlannedTrail(
            trail, self.driver_key, session.info.id, target=session.target, workspace=session.workspace
        )
        replay = _ReportingReplay(session, planned, progress)
        try:
            return await replay.run()
        finally:
            session.trail = self.trail
            assert self.runner is not None
            session.device.default_timeout = self.runner.timeout


class _ReportingReplay(TrailReplay):
    """A replay that sends progress after every step and leaves the device as the trail left it."""

    keep_device_state = True

    def __init__(self, session: Session, planned: PlannedTrail, progress: Progress) -> None:
        super().__init__(session, planned)
        self.progress = progress
        self.total = len(planned.trail.all_steps)

    async def _run_step(self, step: Step, text: str, runner: ToolRunner) -> StepResult:
        result = await super()._run_step(step, text, runner)
        done = len(self.result.steps) + 1
        await self.progress(done, self.total, f"{_label(step)} {result.status}: {text}")
        return result


def _label(step: Step) -> str:
    return "trailhead" if step.kind == "trailhead" else f"{step.kind} {step.index + 1}"


def _scratch_trail(project: Project) -> Trail:
    """The trail an MCP session's calls run in: never written, it only gives them a folder for
    relative file URLs and ``runTrail`` paths (the trails folder), the project's default
    arguments and a memory."""
    folder = project.config.trails_dir
    args = dict(project.config.project.args)
    return Trail(
        path=folder / "mcp-session.trail.yaml",
        id="mcp-session",
        config=TrailConfig(title="MCP session"),
        steps=[],
        arg_values=args,
    )


def run_options(project: Project, *, driver: str | None, target: str | None, timeout: float | None) -> RunOptions:
    config = project.config
    return RunOptions(
        driver=driver,
        target=target,
        timeout=timeout,
        arg_values={k: str(v) for k, v in config.project.args.items()},
        artifacts_dir=config.root / ".trailblaze" / "artifacts",
    )


def with_target(options: RunOptions, target: str | None) -> RunOptions:
    return dataclasses.replace(options, target=target)


def exit_code_of(exc: BaseException) -> ExitCode:
    return exc.exit_code if isinstance(exc, TrailblazeError) else ExitCode.ERROR
