"""What CI reads: ``--reporter dot|github``, ``--durations`` and ``--workers`` output, end to end
against the sample app; the GitHub escaping rules as units."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.ci_project import ci_project
from tests.support.cli import CliRunner, Project
from trailblaze.plugins.github_report import _cell, annotation, escape_data, escape_property

pytestmark = pytest.mark.slow


def test_github_escaping() -> None:
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = annotation("error", "not found:\nx", file="trails/a,b.trail.yaml", line=12, title="failed: A: b")
    assert line == "::error file=trails/a%2Cb.trail.yaml,line=12,title=failed%3A A%3A b::not found:%0Ax"
    # a job summary cell: one line, its own column, and no HTML of the trail's rendered by GitHub
    assert _cell("no <b>nope</b> &\n<script>x</script> | y") == (
        "no &lt;b&gt;nope&lt;/b&gt; &amp; &lt;script&gt;x&lt;/script&gt; \\| y"
    )


@pytest.mark.browser
def test_dot_reporter_prints_a_character_per_trail(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project)
    result = cli("run", "-p", "flaky_tools", "--reporter", "dot", "--retries", "1")
    assert result.returncode == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[1] == "FR."  # fails, flaky, passes: in the order of the files
    assert lines[2].startswith("FAILED  fails (") and "No such heading" in result.stdout
    assert lines[-1].startswith("1 passed, 1 flaky, 1 failed in ")


@pytest.mark.browser
def test_github_reporter_annotates_the_failing_step_and_writes_a_job_summary(
    cli: CliRunner, project: Project, browser: str
) -> None:
    ci_project(project)
    summary = project.write("summary.md", "# before\n")
    result = cli(
        "run",
        "-p",
        "flaky_tools",
        "--reporter",
        "github",
        "--retries",
        "1",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.returncode == 1, result.output
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 1
    # the failing call of the verify step (line 7) is on line 10 of trails/fails.trail.yaml
    assert errors[0].startswith(
        "::error file=trails/fails.trail.yaml,line=10,title=failed%3A Looks for what is not there::"
    )
    assert "No such heading" in errors[0] and "\n" not in errors[0]
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning ")]
    # on the call that failed before the retry passed (line 10), not the trail's first step
    assert len(warnings) == 1 and "file=trails/flaky.trail.yaml,line=10,title=flaky%3A" in warnings[0]
    assert "FAILED  fails" in result.stdout  # the terminal lines are still there
    text = summary.read_text()
    assert text.startswith("# before\n## trailblaze\n")
    assert "**1** passed, **1** flaky, **1** failed" in text
    assert "| fails | failed | trails/fails.trail.yaml |" in text
    assert "| flaky | flaky | trails/flaky.trail.yaml | step 2" in text


@pytest.mark.browser
def test_durations_lists_the_slowest_trails_and_steps(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "passes", "flaky")
    result = cli("run", "-p", "flaky_tools", "--retries", "1", "--durations", "1")
    assert result.returncode == 0, result.output
    out = result.stdout
    trails = out.split("slowest 1 durations (trails)\n", 1)[1].split("slowest 1 durations (steps)\n")
    assert len(trails[0].splitlines()) == 1 and re.match(r"\s+\d+\.\d\ds (passes|flaky)$", trails[0].splitlines()[0])
    assert re.match(r"\s+\d+\.\d\ds (passes|flaky) step \d: ", trails[1].splitlines()[0])
    every = cli("run", "-p", "flaky_tools", "--durations", "0", "--retries", "1").stdout
    assert "all durations (steps)" in every
    assert len(every.split("all durations (trails)\n")[1].split("all durations (steps)")[0].splitlines()) == 2
    assert cli("run", "--durations", "-3").returncode == 3


@pytest.mark.browser
def test_workers_output_names_the_trail_on_every_line(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project)
    for name in ("passes", "fails"):
        for copy in range(2):
            text = (project.root / "trails" / f"{name}.trail.yaml").read_text()
            project.write(f"trails/{name}-{copy}.trail.yaml", text.replace(f"id: {name}", f"id: {name}-{copy}"))
    result = cli("run", "-p", "flaky_tools", "--workers", "2", "-vv", "--retries", "1")
    assert result.returncode == 1, result.output
    ids = {"passes", "fails", "flaky", "passes-0", "passes-1", "fails-0", "fails-1"}
    lines = result.stdout.splitlines()
    assert lines[0].startswith("trailblaze ") and lines[-1].startswith("3 passed, 1 flaky, 3 failed in ")
    for line in lines[1:-1]:
        prefixed = re.match(r"^(?:\s+)?\[([\w-]+)\] ", line)
        finished = re.match(r"^(PASSED|FAILED|FLAKY)\s+([\w-]+) \(", line)
        owner = prefixed.group(1) if prefixed else finished.group(2) if finished else None
        assert owner in ids, f"a line that names no trail: {line!r}"
    assert sum(1 for line in lines if re.match(r"^\[[\w-]+\] (PASSED|FAILED) +(step|verify) \d", line)) >= 10


ESCAPING_TOOLS = '''
import trailblaze


@trailblaze.tool(name="shout")
def shout() -> None:
    """Fail with what a hostile server or page could say."""
    raise trailblaze.ToolFailure("title \\x1b]0;PWNED\\x07 clear \\x1b[2J red \\x1b[31mRED\\x1b[0m csi \\x9b2J")


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(shout)
'''


def test_escape_sequences_in_errors_never_reach_the_terminal(cli: CliRunner, project: Project) -> None:
    project.write("escaping_tools.py", ESCAPING_TOOLS)
    project.write("trailblaze.yaml", "driver: null-test\n")
    project.trail("loud", "trail:\n  - step: s\n    recording:\n      test:\n        - shout: {}\n")
    result = cli("run", "-p", "escaping_tools", "-p", "tests.support.null_driver")
    assert result.returncode == 1, result.output
    assert "\x1b" not in result.output and "\x9b" not in result.output and "\x07" not in result.output
    assert "title \\x1b]0;PWNED\\x07 clear \\x1b[2J" in result.stdout  # shown, escaped


def test_printable_escapes_control_characters_and_keeps_lines() -> None:
    from trailblaze.core.limits import printable

    assert printable("a\x1b[31mb\x9b\x07\r\nc\td é 😀") == "a\\x1b[31mb\\x9b\\x07\\r\nc\td é 😀"
    assert printable("plain text") == "plain text"


ECHO_TOOLS = '''
import trailblaze


@trailblaze.tool(name="fail_saying", platforms=["test"])
def fail_saying(text: str) -> None:
    """Fail with ``text`` as it is (a page or an MCP server quoted in an error)."""
    raise trailblaze.ToolFailure(text)


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(fail_saying)
'''

INJECTING_TRAIL = r"""
config: {id: "inject", title: "Pay \u202egnp.exe\n::error::from the title"}
trail:
  - step: "Open\n::add-mask::from-the-step\n::stop-commands::token"
    recording:
      test:
        - fail_saying: {text: "quoted page\n::error file=x::from the page\r::warning::cr\u0085::notice::nel\u001b[2J"}
"""


@pytest.mark.parametrize("reporter", [("--reporter", "line", "-vv"), ("--reporter", "dot"), ("--reporter", "github")])
def test_no_text_of_a_trail_becomes_a_workflow_command(
    cli: CliRunner, tmp_path: Path, reporter: tuple[str, ...]
) -> None:
    """A line break in a step's text or a tool's error reached the Actions log raw, where
    ``::add-mask::``, ``::stop-commands::`` and ``::error`` took effect."""
    (tmp_path / "trailblaze.yaml").write_text("driver: null-test\n", encoding="utf-8")
    (tmp_path / "echo_tools.py").write_text(ECHO_TOOLS, encoding="utf-8")
    (tmp_path / "trails").mkdir()
    (tmp_path / "trails" / "inject.trail.yaml").write_text(INJECTING_TRAIL, encoding="utf-8")
    result = cli("run", "-p", "tests.support.null_driver", "-p", "echo_tools", *reporter)
    assert result.returncode == 1, result.output
    lines = (result.stdout + result.stderr).splitlines()
    commands = [line for line in lines if re.match(r"\s*::", line)]
    ours = [line for line in commands if line.startswith("::error file=trails/inject.trail.yaml,line=")]
    assert commands == ours and len(ours) == (reporter[1] == "github")
    assert "from the step" not in result.output or "Open\\n::add-mask::from-the-step" in result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output and "\r" not in result.output
