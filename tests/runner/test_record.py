"""``trailblaze record`` end to end: what is replayed, what is recorded, what is written when."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Ref, Reply

from tests.support.cli import CliRunner, Project

pytestmark = [pytest.mark.browser, pytest.mark.slow]

THREE_STEPS = """\
# three prompt-only steps
trail:
  - step: Open the forms page
  - step: Type Ada as the name
  - step: Submit the form
"""
DONE = ("objectiveStatus", {"status": "COMPLETE"})
SCRIPT = {
    "Open the forms page": Reply([("web_navigate", {"url": "/forms.html"}), DONE]),
    "Type Ada as the name": Reply([("web_type", {"ref": Ref('textbox "Name"'), "text": "Ada"}), DONE]),
    "Submit the form": Reply([("tap", {"ref": Ref('button "Submit"')}), DONE]),
}

Start = Callable[..., subprocess.Popen[str]]


def _llm(project: Project, server: FakeOpenAI) -> None:
    project.write("trailblaze.yaml", f"base_url: sample-app\ntimeout: 5\nllm: {{base_url: '{server.url}', model: m}}\n")


def _progress(project: Project) -> list[Path]:
    folder = project.root / ".trailblaze" / "record"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def test_dry_run_prints_the_change_and_writes_nothing(cli: CliRunner, project: Project, browser: str) -> None:
    trail = project.trail("three", THREE_STEPS)
    before = trail.read_bytes()
    with FakeOpenAI(list(SCRIPT.values())) as server:
        _llm(project, server)
        result = cli("record", "trails/three.trail.yaml", "--dry-run")  # openai: the default with llm:
    assert result.returncode == 0, result.output
    assert trail.read_bytes() == before
    assert _progress(project) == []
    assert "--- a/trails/three.trail.yaml\n+++ b/trails/three.trail.yaml\n" in result.stdout
    assert "+        - web_navigate: {url: /forms.html}\n" in result.stdout
    assert "+            nodeSelector: {web: {ariaRole: button, ariaNameRegex: Submit}}\n" in result.stdout
    assert "recording saved" not in result.stdout
    # what the agent did, beside the run's evidence: one run of the agent log per step
    (log,) = (project.root / ".trailblaze" / "artifacts").glob("*/*/agent-log.jsonl")
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    runs = [r for r in records if r["record"] == "agent_run"]
    assert [(r["objective"], r["status"], r["iterations"]) for r in runs] == [
        ("Open the forms page", "complete", 1),
        ("Type Ada as the name", "complete", 1),
        ("Submit the form", "complete", 1),
    ]
    assert [r["tool"] for r in records if r["record"] == "tool"] == ["web_navigate", "web_type", "tap"]


def test_step_n_records_only_that_step_after_replaying_the_ones_before(
    cli: CliRunner, cli_process: Start, project: Project, browser: str
) -> None:
    trail = project.trail(
        "three",
        THREE_STEPS.replace(
            "  - step: Open the forms page\n",
            "  - step: Open the forms page\n    recording:\n      web:\n        - web_navigate: {url: /forms.html}\n",
        ),
    )
    proc = cli_process("record", "trails/three.trail.yaml", "--agent", "interactive", "--step", "2")
    # a comma in a flow mapping ends the value: the writer used to refuse its own output
    out, err = proc.communicate('web_type ref=css=#name text="Welcome, ada"\ndone\n', timeout=120)
    assert proc.returncode == 0, out + err
    assert "── step 2: Type Ada as the name" in out
    assert "── step 3" not in out
    text = trail.read_text()
    assert text.count("recording:") == 2
    assert "nodeSelector: {web: {dataTestId: name-input}}" in text
    assert "text: 'Welcome, ada'" in text

    project.trail("fresh", THREE_STEPS)
    missing = cli("record", "trails/fresh.trail.yaml", "--agent", "interactive", "--step", "3")
    assert missing.returncode == 3, missing.output
    assert "no recording for web; the steps before step 3 need one to reach it" in missing.stdout

    out_of_range = cli("record", "trails/three.trail.yaml", "--step", "4")
    assert out_of_range.returncode == 3
    assert "--step 4: expected 'trailhead' or a step number from 1 to 3" in out_of_range.stderr


DEMO_TOOLS = '''
import trailblaze


@trailblaze.tool(name="demo_fillName", delegating=True, platforms=["web"])
def fill_name(name: str) -> list[trailblaze.Delegate]:
    """Type a name into the form."""
    return [trailblaze.Delegate("web_type", {"text": name, "nodeSelector": {"web": {"dataTestId": "name-input"}}})]


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(fill_name)
'''

HAND_WRITTEN = """\
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Fill in the name   # a plugin tool, hand-written
    recording:
      web:
        - demo_fillName: {name: Ada, reason: the plugin knows the form}
  - step: Submit
    recording:
      web:
        - web_click: {nodeSelector: {web: {dataTestId: no-such-button}}}
"""


def test_rerecord_rewrites_delegating_calls_to_primitives_and_asks_the_agent_for_broken_steps(
    cli: CliRunner, cli_process: Start, project: Project, browser: str
) -> None:
    project.write("demo_tools.py", DEMO_TOOLS)
    trail = project.trail("hand", HAND_WRITTEN.replace("no-such-button", "name-input"))
    before = trail.read_bytes()
    plain = cli("record", "trails/hand.trail.yaml", "-p", "demo_tools", "--agent", "interactive")
    assert plain.returncode == 0, plain.output
    assert trail.read_bytes() == before  # without --rerecord a hand-written recording stays as it is
    assert "hand: nothing to record: every step has a recording that works (--rerecord" in plain.stderr

    trail.write_text(HAND_WRITTEN)
    proc = cli_process("record", "trails/hand.trail.yaml", "-p", "demo_tools", "--agent", "interactive", "--rerecord")
    out, err = proc.communicate("tap ref=css=#submit\ndone\n", timeout=120)
    assert proc.returncode == 0, out + err
    assert "── step 3: Submit" in out  # broken: the agent works it out; steps 1-2 replay fine
    assert "── step 2" not in out
    assert (
        trail.read_text()
        == """\
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Fill in the name   # a plugin tool, hand-written
    recording:
      web:
        - web_type:
            text: Ada
            nodeSelector: {web: {dataTestId: name-input}}
            reason: the plugin knows the form
  - step: Submit
    recording:
      web:
        - web_click:
            nodeSelector: {web: {ariaRole: button, ariaNameRegex: Submit}}
"""
    )
    assert cli("run", "trails/hand.trail.yaml").returncode == 0


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_recording_leaves_the_file_untouched_and_resumes(
    cli: CliRunner, cli_process: Start, project: Project, browser: str, how: signal.Signals
) -> None:
    trail = project.trail("three", THREE_STEPS)
    before = trail.read_bytes()
    with FakeOpenAI([SCRIPT["Open the forms page"], Reply(hold=True)]) as server:
        _llm(project, server)
        proc = cli_process("record", "trails/three.trail.yaml")
        assert server.holding.wait(60), "the recording never reached step 2"
        proc.send_signal(how)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == (130 if how == signal.SIGINT else -signal.SIGKILL), out + err
    assert trail.read_bytes() == before
    if how == signal.SIGINT:
        assert "Traceback" not in err
    (saved,) = _progress(project)
    assert [s["text"] for s in json.loads(saved.read_text())["steps"]] == ["Open the forms page"]

    again = cli("record", "trails/three.trail.yaml", "--agent", "interactive")  # no --resume: a note, from scratch
    assert "an interrupted recording was found; `--resume` would continue it" in again.stderr

    with FakeOpenAI([SCRIPT["Type Ada as the name"], SCRIPT["Submit the form"]]) as server:
        _llm(project, server)
        resumed = cli("record", "trails/three.trail.yaml", "--resume")
        asked = [m[1]["content"].split("\n")[0] for m in server.conversations()]
    assert resumed.returncode == 0, resumed.output
    assert asked == ["The step: Type Ada as the name", "The step: Submit the form"]  # step 1 came from .trailblaze
    assert trail.read_text().count("recording:") == 3
    assert _progress(project) == []
    assert cli("run", "trails/three.trail.yaml").returncode == 0


def test_resume_refuses_saved_steps_that_no_longer_fit_the_trail(
    cli: CliRunner, project: Project, browser: str
) -> None:
    trail = project.trail("three", THREE_STEPS)
    overloaded = Reply(status=503, error="overloaded")
    with FakeOpenAI([SCRIPT["Open the forms page"], overloaded, overloaded, overloaded]) as server:
        _llm(project, server)
        failed = cli("record", "trails/three.trail.yaml")
    assert failed.returncode == 2, failed.output
    assert "answered 503: overloaded" in failed.stdout
    assert trail.read_text().count("recording:") == 1  # the finished step was written

    trail.write_text(THREE_STEPS)
    (project.root / ".trailblaze" / "record").mkdir(parents=True, exist_ok=True)
    from trailblaze.runner.progress import RecordingProgress
    from trailblaze.trail.loader import load_trail

    location = RecordingProgress.location(project.root, load_trail(trail), "playwright-native")
    location.write_text(
        json.dumps(
            {
                "version": 1,
                "steps": [
                    {
                        "key_path": ["trail", 0],
                        "kind": "step",
                        "index": 0,
                        "text": "Open the start page",
                        "classifier": "web",
                        "calls": [{"web_navigate": {"url": "/"}}],
                    }
                ],
            }
        )
    )
    resumed = cli("record", "trails/three.trail.yaml", "--resume", "--agent", "interactive")
    assert resumed.returncode == 3, resumed.output
    assert "the trail changed since the interrupted recording" in resumed.stdout
    assert trail.read_text() == THREE_STEPS


def test_a_legacy_file_for_another_device_is_not_given_a_web_recording(cli: CliRunner, project: Project) -> None:
    trail = project.write(
        "trails/android-phone.trail.yaml",
        "- config:\n    id: legacy\n- prompts:\n  - step: Open the app\n",
    )
    before = trail.read_bytes()
    result = cli("record", "trails/android-phone.trail.yaml", "--agent", "interactive", "--driver", "web")
    assert result.returncode == 3, result.output
    assert "holds the recording for android-phone" in result.stdout
    assert trail.read_bytes() == before


def test_an_unknown_agent_is_named_with_the_known_ones(cli: CliRunner, project: Project) -> None:
    project.trail("three", THREE_STEPS)
    result = cli("record", "--agent", "gpt")
    assert result.returncode == 3
    assert "unknown agent 'gpt' (known agents: browser, interactive, openai)" in result.stderr


def _until(proc: subprocess.Popen[str], text: str) -> str:
    assert proc.stdout is not None
    seen = ""
    while text not in seen:
        line = proc.stdout.readline()
        assert line, f"{text!r} never came; output: {seen}"
        seen += line
    return seen


def test_a_file_edited_during_the_recording_gets_the_recording_merged_in(
    cli_process: Start, project: Project, browser: str
) -> None:
    trail = project.trail("three", THREE_STEPS)
    proc = cli_process("record", "trails/three.trail.yaml", "--agent", "interactive", "--step", "1")
    _until(proc, "── step 1")
    trail.write_text(THREE_STEPS.replace("# three prompt-only steps", "# edited while recording"))
    out, err = proc.communicate("web_navigate url=/forms.html\ndone\n", timeout=120)
    assert proc.returncode == 0, out + err
    assert "changed on disk while recording; the new recordings were merged into it" in err
    assert trail.read_text() == THREE_STEPS.replace("# three prompt-only steps", "# edited while recording").replace(
        "  - step: Open the forms page\n",
        "  - step: Open the forms page\n    recording:\n      web:\n        - web_navigate: {url: /forms.html}\n",
    )


def test_a_file_whose_steps_changed_during_the_recording_is_not_overwritten(
    cli_process: Start, project: Project, browser: str
) -> None:
    trail = project.trail("three", THREE_STEPS)
    proc = cli_process("record", "trails/three.trail.yaml", "--agent", "interactive", "--step", "1")
    _until(proc, "── step 1")
    edited = THREE_STEPS.replace("Open the forms page", "Open the about page")
    trail.write_text(edited)
    out, err = proc.communicate("web_navigate url=/forms.html\ndone\n", timeout=120)
    assert proc.returncode == 3, out + err
    assert "changed on disk while recording and its step 1 'Open the forms page' is no longer where it was" in out
    assert trail.read_text() == edited
    (saved,) = _progress(project)  # the recording is not lost
    assert f"what was recorded is kept in {saved}" in out


def test_a_step_no_recording_can_go_into_is_refused_before_recording_starts(cli: CliRunner, project: Project) -> None:
    """A flow-style step (``- {step: …}``) used to be refused at the end, after a person or an
    agent had recorded every step; it is refused first, and nothing is opened."""
    project.trail(
        "flow",
        """
        trail:
          - step: Open the forms page
            recording:
              web:
                - web_navigate: {url: /forms.html}
          - {step: "Type a name, with a comma"}
        """,
    )
    result = cli("record", "trails/flow.trail.yaml", "--agent", "interactive")
    assert result.returncode == 3, result.output
    assert "trails/flow.trail.yaml:6:5: cannot write a recording into a step written in flow style" in result.stderr
    assert result.stdout == ""  # no browser, no step replayed


def test_a_second_record_of_one_trail_stops_at_once_and_the_first_loses_nothing(
    cli_process: Start, project: Project, browser: str
) -> None:
    trail = project.trail("three", THREE_STEPS)
    first = cli_process("record", "trails/three.trail.yaml", "--agent", "interactive", "--step", "1")
    _until(first, "── step 1")  # recording: it holds the file
    second = cli_process("record", "trails/three.trail.yaml", "--agent", "interactive", "--step", "1")
    out, err = second.communicate("web_navigate url=/about.html\ndone\n", timeout=60)
    assert second.returncode == 3, out + err
    assert (
        f"trails/three.trail.yaml: another `trailblaze record` (pid {first.pid}) is recording this trail file; "
        "run again when it has ended"
    ) in err
    assert trail.read_text() == THREE_STEPS  # the second one touched nothing
    out, err = first.communicate("web_navigate url=/forms.html\ndone\n", timeout=120)
    assert first.returncode == 0, out + err
    recorded = trail.read_text()
    assert "web_navigate: {url: /forms.html}" in recorded and "about" not in recorded
    third = cli_process("record", "trails/three.trail.yaml", "--agent", "interactive", "--step", "2")
    _until(third, "── step 2")  # the lock went with the first process: the next recording starts
    third.kill()
    third.wait(timeout=30)
    assert trail.read_text() == recorded  # and a killed recording writes nothing


JUDGE_TOOLS = '''
import trailblaze


@trailblaze.tool(name="demo_judgeLayout", recordable=False, platforms=["web"])
def judge_layout() -> str:
    """Say whether the page looks right (a judgement an agent makes anew every time)."""
    return "the layout looks right"


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(judge_layout)
'''


def test_a_step_solved_with_a_tool_that_needs_an_agent_every_time_is_not_given_an_empty_recording(
    cli: CliRunner, cli_process: Start, project: Project, browser: str
) -> None:
    project.write("judge_tools.py", JUDGE_TOOLS)
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\nplugins: [judge_tools]\n")
    trail = project.trail("judged", "trail:\n  - step: The page looks right\n")
    before = trail.read_text()
    proc = cli_process("record", "trails/judged.trail.yaml", "--agent", "interactive")
    out, err = proc.communicate("demo_judgeLayout\ndone\n", timeout=120)
    assert proc.returncode == 1, out + err  # incomplete: the step has no recording
    assert "step 1: demo_judgeLayout cannot be recorded" in out + err
    assert "mark the step `recordable: false`" in out + err
    assert trail.read_text() == before  # never `web: []`, which would replay as a pass

    trail.write_text("trail:\n  - step: The page looks right\n    recordable: false\n")
    replay = cli("run", "trails/judged.trail.yaml")
    assert replay.returncode == 3, replay.output
    assert "the step is `recordable: false`: an agent works it out on every run" in replay.output
    assert "--self-heal --agent NAME" in replay.output
