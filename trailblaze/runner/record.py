"""``trailblaze record``: walk a trail on a device, have an agent work out the steps that have no
recording, and write what was executed back into the trail file.

For each step, in order:

* a step with a recording for this device is replayed, to bring the device to the state the
  next step starts from (with ``--rerecord`` the recording is replayed *and* replaced by what
  it executed — a hand-written call to a delegating tool becomes the primitives it resolved
  to; if it no longer works, the agent works the step out instead);
* a step without one is handed to the agent; what it executed becomes the step's recording
  under the device's classifier (``recordable: false`` steps are solved but never written);
* with ``--step N`` only step N is recorded: the steps before it are replayed, the ones after
  it are not run.

The trail file is written once, at the end of the trail, atomically, with only the new
recordings changed (:mod:`trailblaze.trail.writer`); with ``--dry-run`` the change is printed as
a diff instead. Steps finished before that are kept in ``.trailblaze/record/``
(:mod:`trailblaze.runner.progress`): Ctrl-C, a crash or a kill leave the trail file untouched,
and ``--resume`` continues from the saved steps. When the agent gives up on a step, or the
person quits, the steps finished so far are written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.agent import AgentSettings
from trailblaze.api.results import RunResult, StepResult, TrailResult
from trailblaze.core.errors import ErrorList, ExitCode, Location, TrailblazeError, UsageError
from trailblaze.runner.agent_step import (
    agent_for,
    carry_reason,
    needs_agent_message,
    pause_live_output,
    solve_step,
    step_label,
)
from trailblaze.runner.progress import RecordingProgress
from trailblaze.runner.recordlock import locked_trails
from trailblaze.runner.replay import TrailReplay, effective_timeout, step_text, tool_runner
from trailblaze.runner.run import Executor, execute, prepare
from trailblaze.runner.toolrunner import ToolRunner
from trailblaze.tools.model import ToolCall
from trailblaze.tools.resolve import CallFailed, ExecutedCall
from trailblaze.trail.loader import legacy_classifier, load_trail
from trailblaze.trail.model import ANY_CLASSIFIER, Step, Trail, classifier_to_record, lookup_order
from trailblaze.trail.writer import RecordingEdit, TrailChangedError, TrailFile, unwritable_steps

if TYPE_CHECKING:
    from trailblaze.api.session import PlannedTrail, Run, RunOptions, Session
    from trailblaze.runner.project import Project


def _echo(text: str, err: bool = False) -> None:
    import click

    click.echo(text, err=err)


@dataclass(slots=True)
class RecordOptions:
    """What ``trailblaze record`` was asked to do, beyond what a run needs."""

    agent: str
    rerecord: bool = False
    #: ``--step``: "trailhead" or a 1-based step number
    step: str | None = None
    dry_run: bool = False
    resume: bool = False
    echo: Callable[..., None] = _echo


def record_options(project: Project, options: RunOptions) -> RecordOptions:
    """What ``record`` was asked beyond a run (its own options, read from the configuration),
    with the agent decided: ``--agent``, else the project's default."""
    option = project.config.getoption
    return RecordOptions(
        agent=project.default_agent_name(options.agent),
        rerecord=option("rerecord", False),
        step=option("step", None),
        dry_run=option("dry_run", False),
        resume=option("resume", False),
    )


def record_trails(project: Project, options: RunOptions, record: RecordOptions) -> RunResult:
    """Prepare and record (the whole of ``trailblaze record``); returns the run's result."""
    agent_class = project.agents.resolve(record.agent)
    agent_class(AgentSettings(project.config))  # bad settings fail before a browser starts
    run = prepare(project, options, recordings=False)
    platforms = set()
    unwritable: list[TrailblazeError] = []
    for planned in run.planned:
        chosen = target_step(planned.trail, record.step)
        if planned.skip_reason is not None:
            continue
        platforms.add(platform := project.drivers.resolve(planned.driver_key).platform)
        if agent_class.shows_browser and platform != "web":
            raise UsageError(f"the {agent_class.name} agent records web pages; {planned.driver_key} is {platform}")
        steps = [chosen] if chosen is not None else planned.trail.all_steps
        # the steps a recording may be written into: all with --rerecord, else those without one
        if not record.rerecord and chosen is None:
            steps = [s for s in steps if s.recording_for((platform,)) is None]
        unwritable.extend(unwritable_steps(Path(planned.trail.path), steps))
    if unwritable:  # found now, not after every step was recorded
        raise ErrorList(unwritable)
    written = [] if record.dry_run else [Path(p.trail.path) for p in run.planned if p.skip_reason is None]
    with locked_trails(project.config.root, written):  # before the files are read: what they hold stays theirs
        return asyncio.run(execute(run, RecordExecutor(run, record)))


def target_step(trail: Trail, step: str | None) -> Step | None:
    """The step ``--step`` names in ``trail`` (None: every step)."""
    if step is None:
        return None
    where = Location(str(trail.path))
    if step == "trailhead":
        if trail.trailhead is None:
            raise UsageError("--step trailhead: the trail has no trailhead", where)
        return trail.trailhead
    if not step.isdigit() or not 1 <= int(step) <= len(trail.steps):
        count = len(trail.steps)
        raise UsageError(f"--step {step}: expected 'trailhead' or a step number from 1 to {count}", where)
    return trail.steps[int(step) - 1]


class RecordExecutor(Executor):
    """Runs the plan like ``trailblaze run``, but each trail through a :class:`TrailRecorder`."""

    def __init__(self, run: Run, record: RecordOptions) -> None:
        super().__init__(run)
        self.record = record
        # the text the trails were loaded from: what the recordings go into
        self.files = {id(p.trail): TrailFile(Path(p.trail.path)) for p in run.planned if p.skip_reason is None}

    def trail_runner(self, session: Session, planned: PlannedTrail) -> TrailReplay:
        return TrailRecorder(session, planned, self.record, self.files[id(planned.trail)])


class TrailRecorder(TrailReplay):
    """Walks one trail: replays what is recorded, has the agent solve the rest, writes it."""

    def __init__(self, session: Session, planned: PlannedTrail, record: RecordOptions, file: TrailFile) -> None:
        super().__init__(session, planned)
        self.healer = None
        self.record = record
        self.file = file
        self.target = target_step(self.trail, record.step)
        self.edits: dict[tuple[str | int, ...], RecordingEdit] = {}
        #: steps the agent solved with tools no recording can hold (they need `recordable: false`)
        self.needs_agent: dict[tuple[str | int, ...], list[str]] = {}
        self.stopped = False
        self.saved: RecordingProgress | None = None
        self.progress = RecordingProgress.fresh(session.run.config.root, self.trail, session.driver.key)

    async def run(self) -> TrailResult:
        problem = self._legacy_problem()
        if problem is not None:
            self._fail("error", problem, ExitCode.USAGE)
            return self.result
        try:
            self._load_progress()
        except TrailblazeError as exc:
            self._fail("error", str(exc), exc.exit_code)
            return self.result
        result = await super().run()  # Ctrl-C and kills never get past this line: nothing is written
        self._check_complete(result)
        if self._replay_first(result):
            try:
                problem = await self._replays_as_saved()
            except TrailblazeError as exc:  # the device broke while replaying: nothing is written either
                result.status, result.error, result.exit_code = "error", str(exc), exc.exit_code
                return result
            if problem is not None:
                self._unsaved(result, problem)
                return result
        try:
            self._write(result)
        except TrailblazeError as exc:
            self._fail("error", str(exc), exc.exit_code)
        return result

    # -- what each step does -------------------------------------------------------------------

    async def _run_step(self, step: Step, text: str, runner: ToolRunner) -> StepResult:
        if self.stopped or self._after_target(step):
            return StepResult(step.index, step.kind, text, "skipped")
        return await super()._run_step(step, text, runner)

    async def _execute_step(self, step: Step, text: str, result: StepResult, runner: ToolRunner) -> None:
        saved = self.saved.calls_for(step) if self.saved is not None else None
        if saved is not None:  # finished before the interruption: replay it, write it at the end
            await self._replay_calls(step, saved, result, runner)
            if result.status == "passed":
                self._keep(step, saved, result)
            return
        existing = step.recording_for(self.session.classifiers)
        selected = self.target is None or step is self.target
        if existing is None and self.target is not None and not selected:
            result.status = "error"
            result.error = (
                f"no recording for {self.session.classifiers[0]}; the steps before {step_label(self.target)} "
                f"need one to reach it (record without --step first)"
            )
            self._exit_code = ExitCode.USAGE
        elif existing is None:
            await self._solve(step, text, result, runner)
        elif selected and self.record.rerecord:
            await self._rerecord(step, existing, text, result, runner)
        else:
            await self._replay_calls(step, existing, result, runner)

    async def _solve(self, step: Step, text: str, result: StepResult, runner: ToolRunner) -> None:
        agent = await agent_for(self.session, self.record.agent)
        solved = await solve_step(agent, self.session, self.trail, step, text, runner)
        result.agent = solved.report
        result.artifacts.extend(solved.artifacts)
        verdict = solved.verdict
        if verdict.status == "complete":
            if step.recordable and solved.needs_agent:
                self.needs_agent[step.key_path] = solved.needs_agent
                self._note(f"{step_label(step)}: {needs_agent_message(solved.needs_agent)}")
            elif step.recordable:
                self._keep(step, solved.recording, result)
        elif verdict.status == "failed":
            result.status = "failed"
            result.error = f"{agent.name} could not do it: {verdict.explanation or 'no reason given'}"
            self._exit_code = ExitCode.FAILED
        else:
            result.status = "skipped"
            self.stopped = verdict.status == "quit"

    async def _rerecord(
        self, step: Step, existing: list[ToolCall], text: str, result: StepResult, runner: ToolRunner
    ) -> None:
        captured = await self._replay_capturing(step, existing, result, runner)
        if result.status == "passed":
            if _shape(captured) != _shape(existing):
                self._keep(step, captured, result)
            return
        # the recording no longer works: the agent works the step out from its text
        result.status, result.error = "passed", None
        await self._solve(step, text, result, runner)

    async def _replay_capturing(
        self, step: Step, calls: list[ToolCall], result: StepResult, runner: ToolRunner
    ) -> list[ToolCall]:
        """Replay ``calls`` and return them with each delegating call replaced by what it executed."""
        captured: list[ToolCall] = []

        async def attempt() -> None:
            captured.clear()
            for call in calls:
                group: list[ExecutedCall] = []
                runner.on_executed = group.append
                try:
                    await runner.run(call)
                finally:
                    runner.on_executed = None
                captured.extend(self._resolved(step, call, group))

        await self._with_retries(step, result, attempt)
        return captured

    def _resolved(self, step: Step, call: ToolCall, executed: list[ExecutedCall]) -> list[ToolCall]:
        spec = self.session.registry.get(call.name)
        replaceable = (
            spec is not None
            and spec.metadata.delegating
            and all(e.status == "passed" and e.recordable for e in executed)
            and not (step.kind == "trailhead" and len(executed) != 1)
        )
        if not replaceable:
            return [ToolCall(call.name, dict(call.args))]
        return carry_reason(call.args, [ToolCall(e.call.name, dict(e.call.args)) for e in executed])

    def _keep(self, step: Step, calls: list[ToolCall], result: StepResult) -> None:
        classifier = classifier_to_record(step, self.trail, self.session.classifiers)
        edit = RecordingEdit.for_step(self.trail, step, classifier, calls)
        self.edits[step.key_path] = edit
        result.recorded = True
        if not self.record.dry_run:
            self.progress.add(edit)

    def _check_complete(self, result: TrailResult) -> None:
        """A recording that ended with steps still unrecorded (skipped, quit, the input ended)
        did not pass: it is ``incomplete`` (exit 1), whatever of it was recorded is written."""
        if result.status != "passed":
            return
        in_scope = [self.target] if self.target is not None else self.trail.all_steps
        missing = [
            step
            for step in in_scope
            if step.recordable
            and step.key_path not in self.edits
            and step.recording_for(self.session.classifiers) is None
        ]
        if not missing:
            return
        result.status = "incomplete"
        result.exit_code = ExitCode.FAILED
        problems = [
            f"{step_label(step)}: {needs_agent_message(self.needs_agent[step.key_path])}"
            for step in missing
            if step.key_path in self.needs_agent
        ]
        unrecorded = [step for step in missing if step.key_path not in self.needs_agent]
        if unrecorded:
            labels = ", ".join(step_label(step) for step in unrecorded)
            noun = "step has" if len(unrecorded) == 1 else "steps have"
            problems.insert(
                0,
                f"{len(unrecorded)} {noun} no recording for {self.session.classifiers[0]} yet ({labels}); "
                f"`trailblaze record {_display(self.trail)}` records them",
            )
        result.error = "; ".join(problems)

    def _after_target(self, step: Step) -> bool:
        if self.target is None:
            return False
        steps = self.trail.all_steps
        return steps.index(step) > steps.index(self.target)

    # -- before and after --------------------------------------------------------------------------

    def _legacy_problem(self) -> str | None:
        if self.trail.format != "legacy":
            return None
        key = legacy_classifier(Path(self.trail.path), self.trail.config)
        if key == ANY_CLASSIFIER or key in lookup_order(self.session.classifiers):
            return None
        return (
            f"this legacy-format trail holds the recording for {key}; a legacy file keeps one device's "
            f"recording, so it cannot take one for {self.session.classifiers[0]} too"
        )

    def _load_progress(self) -> None:
        root = self.session.run.config.root
        if self.record.resume:
            self.saved = RecordingProgress.load(root, self.trail, self.session.driver.key)
            if self.saved is None:
                self._note(f"{self.trail.id}: no interrupted recording to resume; recording from the start")
        elif self.progress.exists():
            self._note(f"{self.trail.id}: an interrupted recording was found; `--resume` would continue it")

    def _replay_first(self, result: TrailResult) -> bool:
        """A demonstration (its calls were made from what the page reported, not run as
        tools) is replayed once before it is saved, so a trail that does not replay is never
        written: :attr:`Agent.verify_by_replay`."""
        if not self.edits or self.record.dry_run or result.status not in ("passed", "incomplete"):
            return False
        return bool(self.session.run.project.agents.resolve(self.record.agent).verify_by_replay)

    async def _replays_as_saved(self) -> str | None:
        """Replay the trail as it would be saved — every step that has a recording for this
        device, up to the first that has none (or ``--step``'s) — on a fresh page. Why it
        failed, or None."""
        session = self.session
        pause_live_output(session)
        self.record.echo(f"replaying the new recording of {_display(self.trail)} once before saving it")
        text = self.file.render(list(self.edits.values()))
        arg_values = {key: str(value) for key, value in self.trail.arg_values.items()}
        trail = load_trail(Path(self.trail.path), text=text, arg_values=arg_values)
        runner = tool_runner(session, trail, effective_timeout(session, trail))
        session.trail, session.memory = trail, dict(trail.config.memory)
        await session.device.start_trail(trail)
        try:
            for step in trail.all_steps:
                calls = step.recording_for(session.classifiers)
                if calls is None:
                    return None
                try:
                    for call in calls:
                        await runner.run(call)
                except CallFailed as exc:
                    return f"{step_label(step)} ({step_text(step, trail, session.memory)}): {exc.message}"
                if self.target is not None and step.key_path == self.target.key_path:
                    return None
            return None
        finally:
            session.trail = None
            await session.device.end_trail(trail)

    def _unsaved(self, result: TrailResult, problem: str) -> None:
        """The demonstration did not replay: the trail file stays as it was."""
        result.status = "failed"
        result.exit_code = ExitCode.FAILED
        result.error = (
            f"the new recording does not replay, so {_display(self.trail)} is left unchanged: {problem} "
            f"(the steps recorded are kept in {self.progress.path}; record them again, or `--resume`)"
        )

    def _write(self, result: TrailResult) -> None:
        edits = list(self.edits.values())
        if not edits:
            if self.saved is not None:
                self.progress.clear()
            if result.status == "passed" and not any(s.agent for s in result.steps):
                hint = "" if self.record.rerecord else " (--rerecord records them again)"
                self._note(f"{self.trail.id}: nothing to record: every step has a recording that works{hint}")
            return
        if self.record.dry_run:
            pause_live_output(self.session)
            self.record.echo(self.file.diff(edits, _display(self.trail)).rstrip("\n") or "(no change)")
            return
        try:
            outcome = self.file.save(edits)
        except TrailChangedError as exc:
            raise TrailChangedError(
                f"{exc.message}; what was recorded is kept in {self.progress.path}", exc.location
            ) from None
        self.progress.clear()
        result.recording_saved = outcome.changed
        if outcome.merged:
            self._note(f"{self.trail.path} changed on disk while recording; the new recordings were merged into it")

    def _note(self, text: str) -> None:
        pause_live_output(self.session)
        self.record.echo(f"note: {text}", err=True)


def _shape(calls: list[ToolCall]) -> list[tuple[str, Any]]:
    return [(c.name, dict(c.args)) for c in calls]


def _display(trail: Trail) -> str:
    path = Path(trail.path)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
