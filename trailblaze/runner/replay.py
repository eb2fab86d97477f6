"""Replay one trail on a session: walk its steps and invoke each step's recording.

No agent is involved: a step without a recording for the session's device ends the trail with
status *error* and says how to record it. Steps after a failing one are reported as skipped.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.results import StepResult, ToolReport, TrailResult, trace_group
from trailblaze.api.session import PlannedTrail, Session
from trailblaze.core.errors import ErrorList, ExitCode, Status, ToolFailure, TrailblazeError, UsageError
from trailblaze.core.interpolate import resolver, substitute
from trailblaze.core.limits import one_line
from trailblaze.runner import evidence
from trailblaze.runner.toolrunner import ToolRunner
from trailblaze.tools.model import ToolCall
from trailblaze.tools.resolve import CallFailed
from trailblaze.trail.model import Step, Trail

if TYPE_CHECKING:
    from trailblaze.runner.heal import Healer

MAX_INLINE_DEPTH = 8


def effective_timeout(session: Session, trail: Trail) -> float:
    """Seconds an action may wait: the trail's ``config.timeout``, else ``--timeout``, else
    ``timeout:`` in trailblaze.yaml (default 10). A tool's own ``timeoutMs`` beats all three."""
    if trail.config.timeout is not None:
        return trail.config.timeout
    if session.run.options.timeout is not None:
        return session.run.options.timeout
    return float(session.run.config.project.timeout)


def step_text(step: Step, trail: Trail, memory: Mapping[str, Any]) -> str:
    return str(substitute(step.label, resolver(trail.arg_values, memory, None)))


def no_recording_message(step: Step, trail: Trail, classifier: str, driver_key: str) -> str:
    if not step.recordable:
        return (
            "the step is `recordable: false`: an agent works it out on every run (it needs judgement a recording "
            "cannot replay); run with `--self-heal --agent NAME`"
        )
    has = sorted(step.recordings) if step.recordings else []
    found = f" (it has recordings for: {', '.join(has)})" if has else ""
    number = "trailhead" if step.kind == "trailhead" else str(step.index + 1)
    return (
        f"no recording for {classifier}{found}; replay needs one: record it with "
        f"`trailblaze record {trail.path} --step {number} --driver {driver_key}` "
        f"or write `recording: {{{classifier}: [...]}}` by hand"
    )


class TrailReplay:
    #: leave the device as the trail left it instead of closing its context (``trailblaze mcp``
    #: replays a trail and the client's session goes on from there)
    keep_device_state = False

    def __init__(self, session: Session, planned: PlannedTrail) -> None:
        self.session = session
        self.trail = planned.trail
        self.attempt = planned.attempt
        self.hook = session.run.project.hook
        self.result = TrailResult.for_trail(self.trail, session.driver.key, session.info.id)
        self._current: StepResult | None = None
        #: the recorded call of the current step being replayed: a failure points at its line
        self._call: ToolCall | None = None
        self._exit_code = ExitCode.FAILED
        self.healer: Healer | None = None
        if session.run.options.self_heal:  # only then: healing needs agents and the trail writer
            from trailblaze.runner.heal import Healer

            self.healer = Healer.for_replay(session, self.trail)

    async def run(self) -> TrailResult:
        session, trail = self.session, self.trail
        session.trail = trail
        session.attempt = self.attempt
        session.memory = dict(trail.config.memory)
        timeout = effective_timeout(session, trail)
        session.device.default_timeout = timeout
        runner = tool_runner(session, trail, timeout, self._report)
        self.hook.trailblaze_trail_start(trail=trail, session=session)
        start = time.perf_counter()
        try:
            await session.device.start_trail(trail)
            try:
                try:
                    await self._run_steps(runner)
                    if self.healer is not None:
                        self.healer.finish(self.result)
                except Exception as exc:
                    self._broke(exc)
                await self._trail_evidence()
            finally:
                if not self.keep_device_state:
                    await session.device.end_trail(trail)
        except Exception as exc:
            self._broke(exc)
        finally:
            self.result.duration_ms = (time.perf_counter() - start) * 1000
            session.trail = None
        return self.result

    def interrupted(self) -> TrailResult:
        """The trail's result when the run was interrupted during it: the steps that finished,
        the step in flight as an error "interrupted", the rest skipped."""
        result = self.result
        done = {(s.kind, s.index) for s in result.steps}
        in_flight = self._current
        if in_flight is not None and (in_flight.kind, in_flight.index) not in done:
            in_flight.status = "error"
            in_flight.error = "interrupted"
            result.steps.append(in_flight)
            done.add((in_flight.kind, in_flight.index))
        for step in self.trail.all_steps:
            if (step.kind, step.index) not in done:
                result.steps.append(StepResult(step.index, step.kind, step_text(step, self.trail, {}), "skipped"))
        result.status = "error"
        result.exit_code = ExitCode.INTERRUPTED
        if in_flight is not None:
            where = "trailhead" if in_flight.kind == "trailhead" else f"step {in_flight.index + 1}"
            result.error = f"interrupted during {where} ({one_line(in_flight.text)})"
        else:
            result.error = "interrupted"
        return result

    def _report(self, report: ToolReport) -> None:
        if self._current is not None:
            self._current.tools.append(report)

    def _fail(self, status: Status, message: str, exit_code: ExitCode) -> None:
        if self.result.status in ("passed", "healed"):
            self.result.status = status
            self.result.error = message
            self.result.exit_code = exit_code

    async def _trail_evidence(self) -> None:
        result = self.result
        await evidence.of_trail(self.session, self.trail, result, self.attempt)
        if result.artifacts and result.error and result.status not in ("passed", "healed"):
            shown = self.session.run.result.artifacts_dir
            result.error += "\n" + "\n".join(f"{a.kind}: {evidence.shown(a, shown)}" for a in result.artifacts)

    def _broke(self, exc: Exception) -> None:
        if isinstance(exc, TrailblazeError):
            self._fail("error", str(exc), exc.exit_code)
        else:  # the driver itself broke (browser crashed, device gone)
            self._fail("error", f"{self.session.driver.key}: {type(exc).__name__}: {exc}", ExitCode.ERROR)

    async def _run_steps(self, runner: ToolRunner) -> None:
        for step in self.trail.all_steps:
            text = step_text(step, self.trail, self.session.memory)
            cleanup = step.always and self.result.status == "failed"  # not after an error: the device may be gone
            if self.result.status not in ("passed", "healed") and not cleanup:
                self.result.steps.append(StepResult(step.index, step.kind, text, "skipped"))
                continue
            result = await self._run_step(step, text, runner)
            self.result.steps.append(result)
            if result.status in ("failed", "error"):
                self._fail(result.status, self._failure_message(step, text, result), self._exit_code)
            elif result.status == "healed" and self.result.status == "passed":
                self.result.status = "healed"

    def _failure_message(self, step: Step, text: str, result: StepResult) -> str:
        """``trails/login.trail.yaml:14: step 2 (Sign in): <error>``, then where its evidence
        is. The line is the failing recorded call's (as pytest points at the failing assert
        rather than at the test), else the step's."""
        where = "trailhead" if step.kind == "trailhead" else f"step {step.index + 1}"
        place = step.location
        call = self._call.location if self._call is not None else None
        if call is not None and call.line is not None:
            place = call
        line = f":{place.line}" if place.line is not None else ""
        message = (
            f"{place.path or step.location.path or self.trail.path}{line}: {where} ({one_line(text)}): {result.error}"
        )
        if result.artifacts:
            shown = self.session.run.result.artifacts_dir
            message += "\nevidence: " + ", ".join(evidence.shown(a, shown) for a in result.artifacts)
        return message

    async def _run_step(self, step: Step, text: str, runner: ToolRunner) -> StepResult:
        session = self.session
        result = StepResult(step.index, step.kind, text, "passed")
        self._current = result
        self.hook.trailblaze_step_start(step=step, trail=self.trail, session=session)
        start = time.perf_counter()
        await session.device.start_step(step, trace_group(step.kind, step.index, text))
        try:
            await self._execute_step(step, text, result, runner)
        finally:
            await session.device.end_step(step)
        result.duration_ms = (time.perf_counter() - start) * 1000
        await evidence.of_step(session, self.trail, step, result, self.attempt)
        self._current = None
        self.hook.trailblaze_step_finish(step=step, result=result, session=session)
        return result

    async def _execute_step(self, step: Step, text: str, result: StepResult, runner: ToolRunner) -> None:
        """Replay the step's recording into ``result``; a ``--self-heal`` agent takes over
        when it fails (or, for a ``recordable: false`` step, when there is none)."""
        self._call = None
        calls = step.recording_for(self.session.classifiers)
        if calls is None:
            result.status = "error"
            result.error = no_recording_message(step, self.trail, self.session.classifiers[0], self.session.driver.key)
            self._exit_code = ExitCode.USAGE
        else:
            await self._replay_calls(step, calls, result, runner)
        if self.healer is not None and result.status in ("failed", "error"):
            await self.healer.heal(step, text, result, runner, recorded=calls is not None)

    async def _replay_calls(self, step: Step, calls: list[ToolCall], result: StepResult, runner: ToolRunner) -> None:
        async def attempt() -> None:
            for call in calls:
                self._call = call
                await runner.run(call)

        await self._with_retries(step, result, attempt)

    async def _with_retries(self, step: Step, result: StepResult, attempt: Callable[[], Awaitable[None]]) -> None:
        """Run ``attempt`` (a replay of the step's calls) until it passes or the step's
        ``maxRetries`` are spent — the one retry loop of replay and record. ``result`` counts the
        attempts, holds the last one's tools and, if it never passed, its failure."""
        for number in range(1, step.max_retries + 2):
            result.attempts = number
            result.tools = []
            try:
                await attempt()
                return
            except CallFailed as exc:
                if number <= step.max_retries:
                    continue
                result.status = exc.status
                result.error = exc.message
                self._exit_code = exc.exit_code


def tool_runner(
    session: Session, trail: Trail, timeout: float, on_report: Callable[[ToolReport], None] | None = None
) -> ToolRunner:
    """A tool runner for ``trail`` whose calls can run another trail inline (``runTrail``)."""
    return ToolRunner(session, trail, timeout, on_report, functools.partial(replay_inline, session, trail, timeout))


async def replay_inline(session: Session, caller: Trail, timeout: float, path: str) -> str:
    """``runTrail`` (``ctx.run_trail``): run another trail's recordings inside the current step,
    on the same session and memory. The path is relative to the calling trail's folder."""
    from trailblaze.trail.loader import load_trail

    base = Path(caller.path).parent
    depth = session.state.get("runTrail.depth", 0)
    if depth >= MAX_INLINE_DEPTH:
        raise ToolFailure(f"runTrail nested deeper than {MAX_INLINE_DEPTH} levels (does {path} run itself?)")
    outer_args = session.trail.arg_values if session.trail else {}
    try:
        trail = load_trail((base / path).resolve(), arg_values={k: str(v) for k, v in outer_args.items()})
    except ErrorList as exc:  # a broken shared trail is a bad trail file, like a missing one (exit 3)
        raise UsageError(f"runTrail {path}: {exc.errors[0]}") from None
    runner = tool_runner(session, trail, timeout)
    session.state["runTrail.depth"] = depth + 1
    try:
        for step in trail.all_steps:
            calls = step.recording_for(session.classifiers)
            if calls is None:
                message = no_recording_message(step, trail, session.classifiers[0], session.driver.key)
                raise ToolFailure(f"runTrail {path}: {message}")
            for call in calls:
                try:
                    await runner.run(call)
                except CallFailed as exc:
                    raise ToolFailure(f"runTrail {path}: {exc.message}") from None
    finally:
        session.state["runTrail.depth"] = depth
    return f"ran {len(trail.all_steps)} steps of {path}"
