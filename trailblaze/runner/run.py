"""``trailblaze run`` as a library call: plan the trails, open sessions, replay, report.

:func:`prepare` loads and checks every trail before any device work; a single problem stops the
run with exit code 3 (like pytest's collection errors). :func:`execute` then runs the plan,
one session per (driver, device), and always closes what it opened — also when a trail fails,
a driver breaks, or the run is interrupted (SIGINT/SIGTERM).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from trailblaze.driver import Driver, DriverOptions
from trailblaze.errors import ErrorList, ExitCode, Location, TrailblazeError, UsageError
from trailblaze.runner.project import Project
from trailblaze.runner.replay import TrailReplay
from trailblaze.runner.results import RunResult, TrailResult
from trailblaze.runner.session import PlannedTrail, Run, RunOptions, Session
from trailblaze.trail.checks import check_trail_tools
from trailblaze.trail.model import Trail


def prepare(project: Project, options: RunOptions) -> Run:
    """Collect, plan and check; raise :class:`ErrorList` with every problem found."""
    trails, problems = project.collect(options.paths, options.arg_values)
    run = Run(project, options)
    dynamic = project.has_dynamic_tools
    for trail in trails:
        try:
            planned = plan_trail(project, trail, options)
        except UsageError as exc:
            problems.append(UsageError(exc.message, exc.location or _trail_location(trail)))
            continue
        if planned.skip_reason is None:
            problems.extend(project.check(trail, planned.driver_key, dynamic_tools=dynamic))
        run.planned.append(planned)
    if problems:
        raise ErrorList(problems)
    if not run.planned and not problems:
        where = ", ".join(str(p) for p in options.paths) or str(project.config.trails_dir)
        raise UsageError(f"no trail files found in {where} (looked for *.trail.yaml and trail.yaml)")
    return run


def _trail_location(trail: Trail) -> Location:
    return Location(str(trail.path))


def plan_trail(project: Project, trail: Trail, options: RunOptions) -> PlannedTrail:
    driver = project.drivers.resolve(project.default_driver_name(options.driver, trail))
    device_id = options.device or project.config.project.device
    reason = skip_reason(trail, driver.platform)
    return PlannedTrail(trail, driver.key, device_id, reason)


def skip_reason(trail: Trail, platform: str) -> str | None:
    """Why ``trail`` does not run on this platform, if it does not: ``config.skip`` names it,
    or ``config.devices`` lists only other classifiers."""

    def matches(key: str) -> bool:
        return key == platform or key.startswith(platform + "-")

    for classifier, reason in (trail.config.skip or {}).items():
        if matches(classifier):
            return reason or f"skipped on {classifier}"
    declared = list(trail.config.devices)
    if declared and not any(matches(c) for c in declared):
        return f"trail is for {', '.join(declared)}; this run uses {platform}"
    return None


@dataclass(slots=True)
class _Group:
    driver_key: str
    device_id: str | None
    items: list[PlannedTrail]


class Executor:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.project = run.project
        self.hook = run.project.hook
        self.drivers: dict[str, Driver] = {}
        self.results: dict[int, TrailResult] = {}
        self.stop = False

    async def execute(self) -> RunResult:
        run = self.run
        start = time.perf_counter()
        self.hook.trailblaze_run_start(run=run)
        try:
            for group in self._groups():
                if self.stop:
                    break
                await self._run_group(group)
        except asyncio.CancelledError:
            run.result.interrupted = True
        finally:
            await self._close_drivers()
            run.result.trails = [self.results[i] for i in sorted(self.results)]
            run.result.duration_ms = (time.perf_counter() - start) * 1000
            self.hook.trailblaze_run_finish(run=run, result=run.result)
        return run.result

    def _groups(self) -> list[_Group]:
        groups: dict[tuple[str, str | None], _Group] = {}
        for index, planned in enumerate(self.run.planned):
            if planned.skip_reason is not None:
                self._finish(index, self._skipped(planned), None)
                continue
            key = (planned.driver_key, planned.device_id)
            groups.setdefault(key, _Group(planned.driver_key, planned.device_id, [])).items.append(planned)
        return list(groups.values())

    async def _run_group(self, group: _Group) -> None:
        indexes = [self.run.planned.index(p) for p in group.items]
        try:
            driver = await self._driver(group.driver_key)
            device = await driver.open(group.device_id)
        except TrailblazeError as exc:
            self._fail_all(group, indexes, str(exc), exc.exit_code)
            return
        except Exception as exc:
            self._fail_all(group, indexes, f"{group.driver_key}: {type(exc).__name__}: {exc}", ExitCode.ERROR)
            return
        session = Session(self.run, driver, device, self.project.tools.for_device(driver.key, driver.platform))
        try:
            async with session.exit_stack:
                await self._run_session(session, group, indexes)
        finally:
            await device.close()

    async def _run_session(self, session: Session, group: _Group, indexes: list[int]) -> None:
        try:
            await _gather(self.hook.trailblaze_session_setup(session=session))
        except TrailblazeError as exc:
            self._fail_all(group, indexes, str(exc), exc.exit_code)
            return
        except Exception as exc:
            self._fail_all(group, indexes, f"session setup failed: {type(exc).__name__}: {exc}", ExitCode.ERROR)
            return
        self.hook.trailblaze_session_start(session=session)
        try:
            for index, planned in zip(indexes, group.items, strict=True):
                if self.stop:
                    break
                problems = []
                if self.project.has_dynamic_tools:  # tools from servers exist only now: check again
                    problems = check_trail_tools(
                        planned.trail, session.registry, session.classifiers, driver=session.driver.key
                    )
                if problems:
                    result = self._errored(planned, ErrorList(problems))
                else:
                    result = await self.run_trail(session, planned)
                self._finish(index, result, session)
        finally:
            self.hook.trailblaze_session_finish(session=session)

    async def run_trail(self, session: Session, planned: PlannedTrail) -> TrailResult:
        """Run one trail on its session (``trailblaze record`` walks it with an agent instead)."""
        return await TrailReplay(session, planned).run()

    def _finish(self, index: int, result: TrailResult, session: Session | None) -> None:
        self.results[index] = result
        trail = self.run.planned[index].trail
        self.hook.trailblaze_trail_finish(trail=trail, result=result, session=session)
        if self.run.options.fail_fast and result.status in ("failed", "error"):
            self.stop = True

    def _fail_all(self, group: _Group, indexes: list[int], message: str, code: ExitCode) -> None:
        for index, planned in zip(indexes, group.items, strict=True):
            if index not in self.results:
                self._finish(index, self._errored(planned, TrailblazeError(message), code), None)

    def _skipped(self, planned: PlannedTrail) -> TrailResult:
        trail = planned.trail
        return TrailResult(
            str(trail.path),
            trail.id,
            trail.title,
            "skipped",
            planned.driver_key,
            planned.device_id,
            tags=list(trail.config.tags),
            skip_reason=planned.skip_reason,
        )

    def _errored(self, planned: PlannedTrail, exc: TrailblazeError, code: ExitCode | None = None) -> TrailResult:
        trail = planned.trail
        return TrailResult(
            str(trail.path),
            trail.id,
            trail.title,
            "error",
            planned.driver_key,
            planned.device_id,
            error=str(exc),
            exit_code=code or exc.exit_code,
            tags=list(trail.config.tags),
        )

    async def _driver(self, key: str) -> Driver:
        driver = self.drivers.get(key)
        if driver is None:
            driver_class = self.project.drivers.resolve(key)
            driver = driver_class(self._driver_options())
            self.drivers[key] = driver
            await driver.start()
        return driver

    def _driver_options(self) -> DriverOptions:
        project = self.project.config.project
        options = self.run.options
        target = project.targets.get(project.target) if project.target else None
        base_url = options.base_url or (target.base_url if target else None) or project.base_url
        if base_url and "://" not in base_url and base_url != "sample-app" and not base_url.startswith("/"):
            base_url = str(self.project.config.resolve(base_url))
        return DriverOptions(
            timeout=options.timeout or project.timeout,
            headless=not options.headed and project.headless,
            browser=str(self.project.config.resolve(project.browser)) if project.browser else None,
            base_url=base_url,
            artifacts_dir=options.artifacts_dir,
            extra=_driver_extra(options),
        )

    async def _close_drivers(self) -> None:
        for driver in self.drivers.values():
            with contextlib.suppress(Exception):  # closing must not hide the run's own outcome
                await driver.close()


def _driver_extra(options: RunOptions) -> dict[str, Any]:
    port = options.remote_debugging_port
    return {} if port is None else {"remote_debugging_port": port}


async def _gather(results: list[Awaitable[Any] | None]) -> None:
    pending = [r for r in results if r is not None]
    if pending:
        await asyncio.gather(*pending)


async def execute(run: Run, executor: Executor | None = None) -> RunResult:
    """Run the plan; SIGTERM is treated like Ctrl-C (clean up, report, exit 130)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    installed = False
    if task is not None:
        try:
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
            installed = True
        except (NotImplementedError, RuntimeError):  # not the main thread, or not supported
            pass
    try:
        return await (executor or Executor(run)).execute()
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGTERM)


def run_trails(project: Project, options: RunOptions) -> RunResult:
    """Prepare and execute a run (the whole of ``trailblaze run``); returns its result."""
    run = prepare(project, options)
    return asyncio.run(execute(run))
