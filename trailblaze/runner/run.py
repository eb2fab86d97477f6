"""``trailblaze run`` as a library call: plan (see :mod:`.plan`), open sessions, replay, report.

Work is spread over **lanes**. A lane is one session slot: a (driver, device) pair that opens
a session when it first gets work and runs trails one after another until its queue is empty.

* Several devices (``--device`` repeated, ``--all-devices``, ``--shard-all N``): each device has
  its own queue holding every trail, so every trail runs on every device.
* ``--shard-split N``: one queue for all devices; each trail runs once, on whichever device is
  free (Maestro's sharding).
* ``--workers N``: N lanes per device share that device's queue, on drivers that can host
  several sessions on one device (web: one browser context each, in one browser).

Every lane closes what it opened — also when a trail fails, a device breaks, or the run is
interrupted (SIGINT/SIGTERM); the run's result then says ``interrupted`` and exit code 130.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.driver import Driver, DriverOptions
from trailblaze.api.results import Attempt, FailedStep, RunResult, TrailResult
from trailblaze.api.session import PlannedTrail, Run, RunOptions, Session
from trailblaze.core import aio, processes
from trailblaze.core.errors import ErrorList, ExitCode, InfrastructureError, TrailblazeError, UsageError
from trailblaze.runner import checks
from trailblaze.runner.plan import prepare
from trailblaze.runner.project import Project
from trailblaze.runner.replay import TrailReplay

if TYPE_CHECKING:
    from trailblaze.project.workspace import Workspace
    from trailblaze.tools.registry import ToolRegistry

__all__ = ["Executor", "execute", "prepare", "run_trails"]


@dataclass(slots=True)
class _Item:
    order: tuple[int, int]  # (trail's place in the plan, device's place): the order of results
    planned: PlannedTrail


@dataclass(eq=False)
class _Queue:
    items: deque[_Item] = field(default_factory=deque)
    lanes_alive: int = 0


@dataclass(slots=True)
class _Lane:
    driver_key: str
    device_id: str | None
    queue: _Queue


def project_of(run: Run) -> Project:
    """The runner's own project of ``run`` (plugins see it through the ``ProjectView`` protocol);
    a run made with another kind of project cannot be executed here."""
    project = run.project
    if not isinstance(project, Project):
        raise TypeError(f"a run to execute needs the runner's Project, not {type(project).__name__}")
    return project


class Executor:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.project = project_of(run)
        self.hook = run.project.hook
        self.drivers: dict[str, Driver] = {}
        self._driver_locks: dict[str, asyncio.Lock] = {}
        self._started: set[str] = set()
        self.results: dict[tuple[int, int], TrailResult] = {}
        #: every trail given to a lane, by its place in the results
        self._queued: dict[tuple[int, int], PlannedTrail] = {}
        self.stop = False

    async def execute(self) -> RunResult:
        run = self.run
        start = time.perf_counter()
        artifacts = run.options.artifacts_dir
        run.result.artifacts_dir = _shown(artifacts) if artifacts is not None else None
        run.result.fail_on_flaky = run.options.fail_on_flaky
        self.hook.trailblaze_run_start(run=run)
        try:
            lanes = await self._lanes()
            await asyncio.gather(*(self._work(lane) for lane in lanes))
        except asyncio.CancelledError:
            run.result.interrupted = True
        finally:
            await self.close_drivers()
            if self.stop and not run.result.interrupted:
                self._never_ran()
            run.result.trails = [self.results[key] for key in sorted(self.results)]
            run.result.duration_ms = (time.perf_counter() - start) * 1000
            self.hook.trailblaze_run_finish(run=run, result=run.result)
        return run.result

    # -- planning lanes -------------------------------------------------------------------------

    async def _lanes(self) -> list[_Lane]:
        by_driver: dict[str, list[int]] = {}
        for index, planned in enumerate(self.run.planned):
            if planned.skip_reason is not None:
                self._finish(_Item((index, 0), planned), self._skipped(planned), None)
            else:
                by_driver.setdefault(planned.driver_key, []).append(index)
        options = self.run.options
        lanes: list[_Lane] = []
        for driver_key, indexes in by_driver.items():
            try:
                devices = await self._devices(driver_key)
            except TrailblazeError as exc:
                for index in indexes:
                    item = _Item((index, 0), self.run.planned[index])
                    self._finish(item, self._errored(item.planned, str(exc), exc.exit_code), None)
                continue
            slots = max(1, min(options.workers, self.project.drivers.resolve(driver_key).sessions_per_device))
            indexes = self._by_target(indexes)
            if options.shard_split is not None:
                shared = _Queue(deque(_Item((i, 0), self.run.planned[i]) for i in indexes))
                lanes.extend(_Lane(driver_key, d, shared) for d in devices for _ in range(slots))
                continue
            for position, device in enumerate(devices):
                queue = _Queue(
                    deque(
                        _Item((i, position), dataclasses.replace(self.run.planned[i], device_id=device))
                        for i in indexes
                    )
                )
                lanes.extend(_Lane(driver_key, device, queue) for _ in range(slots))
        self.run.lanes = max(1, len(lanes))  # plugins share what several sessions at once can share
        for lane in lanes:
            lane.queue.lanes_alive += 1
            self._queued.update((item.order, item.planned) for item in lane.queue.items)
        return lanes

    def _by_target(self, indexes: list[int]) -> list[int]:
        """Trails of one target next to each other, so a lane opens a session per target once."""
        first: dict[str | None, int] = {}
        for index in indexes:
            first.setdefault(self.run.planned[index].target, index)
        return sorted(indexes, key=lambda i: first[self.run.planned[i].target])

    async def _devices(self, driver_key: str) -> list[str | None]:
        """The devices to use for ``driver_key``: given ones, discovered ones, or the default."""
        options = self.run.options
        explicit: list[str] = list(options.devices)
        if not explicit and self.project.config.project.device:
            explicit = [self.project.config.project.device]
        wanted = options.shard_split or options.shard_all
        ids: list[str | None] = list(explicit)
        if options.all_devices or (wanted is not None and len(explicit) < wanted):
            found = [d.id for d in await self._driver_unstarted(driver_key).devices() if d.state == "available"]
            if not found:
                raise InfrastructureError(f"no devices found for {driver_key} (see `trailblaze devices`)")
            ids = list(found) if options.all_devices or not explicit else list(explicit)
        if wanted is not None:
            flag = "--shard-split" if options.shard_split is not None else "--shard-all"
            if len(ids) < wanted:
                known = ", ".join(str(i) for i in ids) or "none"
                raise UsageError(f"{flag} {wanted} needs {wanted} devices for {driver_key}; available: {known}")
            ids = ids[:wanted]
        return ids or [None]

    # -- running a lane ---------------------------------------------------------------------------

    async def _work(self, lane: _Lane) -> None:
        session: Session | None = None
        queue = lane.queue
        try:
            while not self.stop and queue.items:
                item = queue.items.popleft()
                planned_for = (item.planned.target, item.planned.workspace)
                if session is not None and (session.target, session.workspace) != planned_for:
                    closing, session = session, None  # another app target: its own servers and toolsets
                    await self.close_session(closing)
                if session is None:
                    try:
                        session = await self.open_session(
                            lane.driver_key, lane.device_id, *planned_for, registry=item.planned.registry
                        )
                    except Exception as exc:
                        self._lane_failed(lane, item, exc)
                        return
                planned = dataclasses.replace(item.planned, device_id=session.info.id)
                replay = self.trail_runner(session, planned)
                try:
                    result = await self._run_trail(session, planned, replay)
                    attempts: list[Attempt] = []
                    while result.status in ("failed", "error") and len(attempts) < self.run.options.retries:
                        evidence = [a for step in result.steps for a in step.artifacts] + result.artifacts
                        failed_at = FailedStep.of(result.failing_step)
                        attempts.append(Attempt(result.status, result.error, result.duration_ms, evidence, failed_at))
                        closing, session = session, None  # a retry starts from a fresh session
                        await self.close_session(closing)
                        try:
                            session = await self.open_session(
                                lane.driver_key, lane.device_id, *planned_for, registry=item.planned.registry
                            )
                        except Exception as exc:
                            result = self._errored(planned, *_open_failure(lane.driver_key, exc))
                            break
                        planned = dataclasses.replace(planned, attempt=len(attempts))
                        replay = self.trail_runner(session, planned)
                        result = await self._run_trail(session, planned, replay)
                except asyncio.CancelledError:  # report the trail that was running, then stop
                    self._finish(item, replay.interrupted(), session)
                    raise
                result.attempts = attempts
                if attempts and result.status == "passed":
                    result.status = "flaky"
                self._finish(item, result, session)
                if session is None:  # a retry could not open its session: the next trail tries again
                    continue
                if session.broken is not None:  # e.g. a server died: start the next trail afresh
                    closing, session = session, None
                    await self.close_session(closing)
        finally:
            queue.lanes_alive -= 1
            if session is not None:
                await self.close_session(session)

    def _lane_failed(self, lane: _Lane, item: _Item, exc: BaseException) -> None:
        """A lane could not open its session: another lane on the queue takes the work, or,
        when none is left, the remaining trails end with the error."""
        message, code = _open_failure(lane.driver_key, exc)
        if lane.queue.lanes_alive > 1:
            lane.queue.items.appendleft(item)
            return
        for pending in (item, *lane.queue.items):
            planned = dataclasses.replace(pending.planned, device_id=pending.planned.device_id or lane.device_id)
            self._finish(pending, self._errored(planned, message, code), None)
        lane.queue.items.clear()

    async def open_session(
        self,
        driver_key: str,
        device_id: str | None,
        target: str | None,
        workspace: Workspace | None = None,
        *,
        registry: ToolRegistry | None = None,
    ) -> Session:
        """Open a device session: the driver (started once), the device, its tools and what
        plugins attach in ``trailblaze_session_setup``. ``registry``: the tools a planned trail
        was checked against (:attr:`PlannedTrail.registry`), else the workspace's. ``trailblaze
        mcp`` opens its sessions here too; close each with :meth:`close_session` and the drivers
        with :meth:`close_drivers`."""
        driver = await self._driver(driver_key)
        device = await driver.open(device_id)
        tools = registry if registry is not None else self.project.registry_for(workspace)
        session = Session(
            self.run, driver, device, tools.for_device(driver.key, driver.platform), target=target, workspace=workspace
        )
        await session.exit_stack.__aenter__()
        session.exit_stack.push_async_callback(device.close)
        try:
            await _gather(self.hook.trailblaze_session_setup(session=session))
        except BaseException as exc:
            await session.exit_stack.aclose()
            if isinstance(exc, TrailblazeError | asyncio.CancelledError):
                raise
            raise InfrastructureError(f"session setup failed: {type(exc).__name__}: {exc}") from exc
        self.hook.trailblaze_session_start(session=session)
        return session

    async def set_up_again(self, session: Session, workspace: Workspace | None) -> None:
        """Set an open session up again with the project's tools as they are now (``trailblaze
        mcp``'s ``toolbox(action=RELOAD)``): a fresh registry, then ``trailblaze_session_setup``
        again — MCP toolsets restart their servers. The device stays as it is; when setup fails
        the session keeps the tools it got before the failure."""
        driver = session.driver
        session.workspace = workspace
        session.registry = self.project.registry_for(workspace).for_device(driver.key, driver.platform)
        try:
            await _gather(self.hook.trailblaze_session_setup(session=session))
        except (TrailblazeError, asyncio.CancelledError):
            raise
        except Exception as exc:
            raise InfrastructureError(f"session setup failed: {type(exc).__name__}: {exc}") from exc

    async def close_session(self, session: Session) -> None:
        try:
            self.hook.trailblaze_session_finish(session=session)
        finally:
            await session.exit_stack.aclose()

    async def _run_trail(self, session: Session, planned: PlannedTrail, replay: TrailReplay) -> TrailResult:
        if self.project.has_dynamic_tools:  # tools from servers exist only now: check again
            problems = checks.session_problems(planned.trail, session)
            if problems:
                error = ErrorList(problems)
                return self._errored(planned, str(error), error.exit_code)
        return await replay.run()

    def trail_runner(self, session: Session, planned: PlannedTrail) -> TrailReplay:
        """What runs one trail on its session (``trailblaze record`` walks it with an agent instead)."""
        return TrailReplay(session, planned)

    def _finish(self, item: _Item, result: TrailResult, session: Session | None) -> None:
        self.results[item.order] = result
        self.hook.trailblaze_trail_finish(trail=item.planned.trail, result=result, session=session)
        if self.run.options.fail_fast and result.status in ("failed", "error"):
            self.stop = True

    def _never_ran(self) -> None:
        """After ``-x`` stopped the run: the trails still queued are reported as skipped."""
        for order, planned in self._queued.items():
            if order not in self.results:
                skipped = dataclasses.replace(planned, skip_reason="not run: -x stopped the run after a failure")
                self._finish(_Item(order, skipped), self._skipped(skipped), None)

    def _skipped(self, planned: PlannedTrail) -> TrailResult:
        return TrailResult.for_trail(
            planned.trail, planned.driver_key, planned.device_id, "skipped", skip_reason=planned.skip_reason
        )

    def _errored(self, planned: PlannedTrail, message: str, code: ExitCode) -> TrailResult:
        return TrailResult.for_trail(
            planned.trail, planned.driver_key, planned.device_id, "error", error=message, exit_code=code
        )

    # -- drivers ----------------------------------------------------------------------------------

    def _driver_unstarted(self, key: str) -> Driver:
        driver = self.drivers.get(key)
        if driver is None:
            driver = self.project.drivers.require(key)(self._driver_options())
            self.drivers[key] = driver
        return driver

    async def _driver(self, key: str) -> Driver:
        lock = self._driver_locks.setdefault(key, asyncio.Lock())
        async with lock:
            driver = self._driver_unstarted(key)
            if key not in self._started:
                await driver.start()
                self._started.add(key)
        return driver

    def _driver_options(self) -> DriverOptions:
        """What every driver of the run is made with; each reads its own settings from the
        run's configuration."""
        options = self.run.options
        timeout = options.timeout or self.project.config.project.timeout
        return DriverOptions(timeout=timeout, artifacts_dir=options.artifacts_dir, config=self.run.config)

    async def close_drivers(self) -> None:
        for driver in self.drivers.values():
            with contextlib.suppress(Exception):  # closing must not hide the run's own outcome
                await driver.close()


def _open_failure(driver_key: str, exc: BaseException) -> tuple[str, ExitCode]:
    """What a trail whose session would not open ends with: the message and exit code."""
    if isinstance(exc, TrailblazeError):
        return str(exc), exc.exit_code
    return f"{driver_key}: {type(exc).__name__}: {exc}", ExitCode.ERROR


def _shown(path: Path) -> str:
    """A path as reports show it: relative to the working directory when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(path)


async def _gather(results: list[Awaitable[Any] | None]) -> None:
    pending = [r for r in results if r is not None]
    if pending:
        await asyncio.gather(*pending)


async def execute(run: Run, executor: Executor | None = None) -> RunResult:
    """Run the plan. Ctrl-C and SIGTERM stop it in order (servers' shutdown waits shortened,
    the finished trails reported, exit 130); a second one stops Trailblaze at once. Nothing
    the run started outlives it (:mod:`trailblaze.core.processes`)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    remove = processes.install_interrupts(loop, task) if task is not None else None
    try:
        with processes.guard(active=project_of(run).has_dynamic_tools):
            return await (executor or Executor(run)).execute()
    finally:
        if remove is not None:
            remove()


def run_trails(project: Project, options: RunOptions) -> RunResult:
    """Prepare and execute a run (the whole of ``trailblaze run``); returns its result."""
    if (options.agent or options.save_recording) and not options.self_heal:
        raise UsageError("--agent and --save-recording go with --self-heal")
    if options.self_heal:  # an unknown agent or bad LLM settings fail before a browser starts
        from trailblaze.api.agent import AgentSettings

        options = dataclasses.replace(options, agent=project.default_agent_name(options.agent))
        project.agents.resolve(options.agent or "")(AgentSettings(project.config))
    run = prepare(project, options, recordings=not options.self_heal, select=True)  # the agent works such steps out
    return aio.run(_execute_planned(run))


async def _execute_planned(run: Run) -> RunResult:
    """The plan is known: what was started early for drivers it does not use is stopped first
    (:mod:`trailblaze.core.aio`)."""
    await aio.keep_only({planned.driver_key for planned in run.planned if planned.skip_reason is None})
    return await execute(run)
