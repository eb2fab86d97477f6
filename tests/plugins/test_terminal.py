"""What the reporters print of trails, pages and servers: whatever a step's text, a title, an
argument or an error holds, no printed line is a command to the CI runner reading the log."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from tests.support.cli import CliRunner, Project
from trailblaze.api.results import AgentReport, Attempt, RunResult, StepResult, ToolReport, TrailResult
from trailblaze.core.errors import Location
from trailblaze.plugins.github_report import GithubReport, job_summary
from trailblaze.plugins.terminal import TerminalReporter
from trailblaze.pytest_plugin import _shown, _steps

LOG_COMMAND = re.compile(r"^\s*(::|##\[|##vso\[)")
#: what an attacker writes: workflow commands after line breaks of every kind, controls, bidi marks
PIECES = ["\n", "\r", "\r\n", "\x85", "\u2028", "\x0b", "::error::x", "::add-mask::s", "::stop-commands::t"]
PIECES += ["##vso[task.setvariable]x", " ", "\t", "\x00", "\x1b[2J", "\u202e", "a", "%0A", ":", ","]
HOSTILE = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=30)


def _trail_result(texts: list[str], status: str) -> TrailResult:
    trail_id, title, step_text, tool, error, explanation, device = texts
    step = StepResult(
        0, "step", step_text, "failed", error=error, tools=[ToolReport(tool, {"a": error}, "failed", 1.0, [tool])]
    )
    step.agent = AgentReport(tool, "incomplete", explanation, model=tool)
    result = TrailResult(f"trails/{trail_id}.trail.yaml", trail_id, title, status, "web", device, error=error)  # type: ignore[arg-type]
    result.steps = [step]
    result.attempts = [Attempt("failed", error, 1.0)] if status == "flaky" else []
    result.skip_reason = error if status == "skipped" else None
    return result


def _terminal_output(result: TrailResult, verbosity: int, style: str, concurrent: bool) -> str:
    out = io.StringIO()
    reporter = TerminalReporter(verbosity, style=style)
    reporter.console = Console(file=out, highlight=False, soft_wrap=True, markup=False, emoji=False, width=200)
    reporter.concurrent = reporter.show_device = concurrent
    session = SimpleNamespace(id="s1", info=SimpleNamespace(id=result.device))
    trail = SimpleNamespace(id=result.id, all_steps=[])
    step = SimpleNamespace(kind="step", index=0, label=result.steps[0].text)
    reporter.trailblaze_trail_start(trail=trail, session=session)  # type: ignore[arg-type]
    reporter.trailblaze_step_start(step=step, trail=trail, session=session)  # type: ignore[arg-type]
    reporter.trailblaze_tool_report(report=result.steps[0].tools[0], session=session)  # type: ignore[arg-type]
    reporter.trailblaze_step_finish(step=step, result=result.steps[0], session=session)  # type: ignore[arg-type]
    reporter.trailblaze_trail_finish(trail=trail, result=result, session=session)  # type: ignore[arg-type]
    reporter.durations = 0
    reporter.trailblaze_run_finish(run=None, result=RunResult([result]))  # type: ignore[arg-type]
    return out.getvalue()


@given(
    st.lists(HOSTILE, min_size=7, max_size=7),
    st.sampled_from(["failed", "error", "flaky", "skipped", "passed"]),
    st.sampled_from([(2, "line"), (0, "dot"), (-1, "line")]),
    st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_no_text_from_a_trail_starts_a_ci_command_in_any_reporter(
    texts: list[str], status: str, shape: tuple[int, str], concurrent: bool
) -> None:
    result = _trail_result(texts, status)
    verbosity, style = shape
    printed = _terminal_output(result, verbosity, style, concurrent).splitlines()
    assert not [line for line in printed if LOG_COMMAND.match(line)]
    assert not any(c in line for line in printed for c in "\x00\x1b\u202e\r")

    github = GithubReport()
    github.stream = io.StringIO()
    where = SimpleNamespace(all_steps=[SimpleNamespace(index=0, kind="step", location=Location("t", 3))])
    github.trailblaze_trail_finish(trail=where, result=result, session=None)  # type: ignore[arg-type]
    annotations = github.stream.getvalue().splitlines()
    assert len(annotations) == (status in ("failed", "error", "flaky"))  # ours, one line each, nothing else
    assert all(line.startswith(("::error file=", "::warning file=")) for line in annotations)
    assert not any(c in line for line in annotations for c in "\x00\x1b\u202e\r")
    assert len(job_summary(RunResult([result])).splitlines()) == (8 if status != "passed" else 4)  # one row

    section = _steps(result, []) + "\n" + _shown(f"{result.status}: {result.error}")  # pytest -p trailblaze
    assert not [line for line in section.split("\n") if LOG_COMMAND.match(line)]
    assert not any(c in section for c in "\x00\x1b\u202e\r")


def test_a_step_text_with_a_line_break_is_one_line_and_a_bidi_mark_is_shown() -> None:
    result = _trail_result(
        ["t", "Pay \u202egnp.exe", "Open\n::error::pwned", "web_tap", "boom\n::add-mask::x", "", "d"], "failed"
    )
    printed = _terminal_output(result, 2, "line", False)
    assert "PASSED" not in printed and "    FAILED  step 1: Open\\n::error::pwned\n" in printed
    assert "        \\x3a:add-mask::x\n" in printed  # an error's own line that would be a command
    assert "Pay \\u202egnp.exe" in _steps(result, [])


def test_a_run_ends_with_the_reports_it_wrote(project: Project, cli: CliRunner) -> None:
    project.trail(
        "passes",
        """
        config: {id: passes}
        trail:
          - step: Open the forms page
            recording:
              web:
                - web_navigate: {url: /forms.html}
        """,
    )
    project.write("taken", "a file where a folder should be\n")
    result = cli("run", "-q", "--json", "r.json", "--junit", "taken/r.xml")
    assert result.returncode == 2, result.output  # a report that cannot be written is an error
    assert "error: cannot write --junit taken/r.xml" in result.stderr
    assert result.stdout.splitlines()[-1] == "reports: JSON r.json"  # only what was written, no HTML hint
    quiet = cli("run", "-q")
    assert "reports:" not in quiet.output
