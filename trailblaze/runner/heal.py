"""``trailblaze run --self-heal --agent NAME``: an agent takes over when a recorded step fails.

Off by default — replay stays deterministic and free. With it, a recorded step that fails
(after its ``maxRetries``) is worked out by the agent from its text, on the screen as the
failure left it. If the agent completes it, the step and the trail are reported as *healed*
(exit code 0, a status of its own in the terminal, the JSON and JUnit), so a green run that
needed an LLM is never mistaken for a deterministic one. A ``recordable: false`` step, which
never has a recording, is solved live by the agent as well.

With ``--save-recording`` the new recordings replace the old ones in the trail file — only
when the whole trail then ended healed, so a recording is written only after the rest of the
trail passed on top of it. The write is atomic and leaves the rest of the file as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.runner.agent_step import agent_for, solve_step
from trailblaze.tools.model import ToolCall
from trailblaze.trail.model import classifier_to_record
from trailblaze.trail.writer import RecordingEdit, TrailFile

if TYPE_CHECKING:
    from trailblaze.api.results import StepResult, TrailResult
    from trailblaze.api.session import Session
    from trailblaze.runner.toolrunner import ToolRunner
    from trailblaze.trail.model import Step, Trail


class Healer:
    def __init__(self, session: Session, trail: Trail, agent_name: str, save: bool) -> None:
        self.session = session
        self.trail = trail
        self.agent_name = agent_name
        self.save = save
        self.file = TrailFile(Path(trail.path)) if save else None
        self.healed: dict[tuple[str | int, ...], tuple[Step, list[ToolCall]]] = {}

    @classmethod
    def for_replay(cls, session: Session, trail: Trail) -> Healer:
        options = session.run.options
        assert options.agent is not None, "run_trails names the agent of a --self-heal run"
        return cls(session, trail, options.agent, options.save_recording)

    async def heal(self, step: Step, text: str, result: StepResult, runner: ToolRunner, *, recorded: bool) -> None:
        """Let the agent work out the step that just failed (``result``)."""
        if not recorded and step.recordable:
            return  # not a failure of a recording: the step was never recorded
        failure = result.error
        agent = await agent_for(self.session, self.agent_name)
        solved = await solve_step(agent, self.session, self.trail, step, text, runner)
        result.agent = solved.report
        result.artifacts.extend(solved.artifacts)
        if solved.verdict.status != "complete":
            why = solved.verdict.explanation or solved.verdict.status
            result.error = f"{failure}; self-heal by {agent.name} did not succeed: {why}"
            return
        result.status = "passed" if not recorded else "healed"
        result.error = failure if recorded else None
        if recorded and not solved.needs_agent:  # a recording without those calls would pass doing nothing
            self.healed[step.key_path] = (step, solved.recording)

    def finish(self, result: TrailResult) -> None:
        """With ``--save-recording``, write the healed steps' recordings into the file."""
        if self.file is None or result.status != "healed" or not self.healed:
            return
        edits = []
        for step, calls in self.healed.values():
            key = classifier_to_record(step, self.trail, self.session.classifiers)
            edits.append(RecordingEdit.for_step(self.trail, step, key, calls))
        self.file.save(edits)
        result.recording_saved = True
        for step_result in result.steps:
            if step_result.status == "healed":
                step_result.recorded = True
