"""The ``interactive`` agent driven over plain stdin, as a script (or a person) would."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

import pytest

from tests.support.cli import CliRunner, Project

pytestmark = pytest.mark.browser

TRAIL = """\
config:
  title: Newsletter sign-up
trail:
  - step: Open the forms page
  - step: Type the name and subscribe
  - step: Submit the form   # not reached: the person quits before it
  - verify: The result is shown
"""

SESSION = """\
help
web_navigate url=/forms.html
done
web_type ref='css=#name' text="Ada Lovelace"
web_click ref='button "Clear All"'
tap ref='css=#clear'
undo
undo
web_click: {ref: 'css=#newsletter'}
frobnicate x=1
web_type ref=css=#name
quit
"""


def test_a_person_records_steps_with_undo_and_quits(
    cli_process: Callable[..., subprocess.Popen[str]], cli: CliRunner, project: Project, browser: str
) -> None:
    trail = project.trail("signup", TRAIL)
    proc = cli_process("record", "trails/signup.trail.yaml", "--agent", "interactive", "--json", "r.json")
    out, err = proc.communicate(SESSION, timeout=120)
    assert proc.returncode == 1, out + err  # steps are left without a recording: not a pass

    assert "── step 1: Open the forms page" in out
    assert "   type a tool call, or done / undo / skip / fail / quit / help" in out
    assert "undo                 drop the last recorded call" in out  # help
    assert 'textbox "Name" [e' in out  # the screen, with refs
    assert "  recorded web_type: {text: Ada Lovelace, nodeSelector: {web: {dataTestId: name-input}}}" in out
    assert out.count("undone: web_click") == 2
    assert "✗ failed: unknown tool 'frobnicate'" in out
    assert "✗ failed: invalid arguments for web_type: text: required" in out
    assert "── step 3" not in out  # quit in step 2: nothing after it runs

    assert (
        trail.read_text()
        == """\
config:
  title: Newsletter sign-up
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Type the name and subscribe
  - step: Submit the form   # not reached: the person quits before it
  - verify: The result is shown
"""
    )
    assert "step 2: quit by interactive" in out
    assert "INCOMPLETE signup" in out
    unrecorded = "3 steps have no recording for web yet (step 2, step 3, verify 4)"
    assert f"{unrecorded}; `trailblaze record trails/signup.trail.yaml` records them" in out
    document = json.loads((project.root / "r.json").read_text(encoding="utf-8"))
    assert document["summary"]["incomplete"] == 1
    assert document["exit_code"] == 1
    assert document["trails"][0]["status"] == "incomplete"
    assert document["trails"][0]["error"].startswith(unrecorded)


def test_a_person_records_a_whole_trail_that_then_replays(
    cli_process: Callable[..., subprocess.Popen[str]], cli: CliRunner, project: Project, browser: str
) -> None:
    trail = project.trail("signup", TRAIL)
    session = "\n".join(
        [
            "web_navigate url=/forms.html",
            "done",
            "web_type ref=css=#name text=Ada",
            "web_click: {ref: 'css=#newsletter'}",
            "done",
            "tap ref=css=#submit",
            "done",
            "web_click ref=css=#submit",  # refused: a verify step only checks
            "web_verifyTextVisible text='Newsletter: yes'",
            "done",
            "",
        ]
    )
    proc = cli_process("record", "trails/signup.trail.yaml", "--agent", "interactive")
    out, err = proc.communicate(session, timeout=120)
    assert proc.returncode == 0, out + err
    assert "web_click is not allowed here: a verify step may only use verification (read-only) tools" in out
    text = trail.read_text()
    assert "- web_verifyTextVisible: {text: 'Newsletter: yes'}" in text
    assert "nodeSelector: {web: {ariaRole: button, ariaNameRegex: Submit}}" in text
    replay = cli("run", "trails/signup.trail.yaml")
    assert replay.returncode == 0, replay.output


def test_the_end_of_input_stops_like_quit(
    cli_process: Callable[..., subprocess.Popen[str]], project: Project, browser: str
) -> None:
    trail = project.trail("signup", TRAIL)
    before = trail.read_bytes()
    proc = cli_process("record", "trails/signup.trail.yaml", "--agent", "interactive")
    out, err = proc.communicate("", timeout=120)
    assert proc.returncode == 1, out + err  # nothing was recorded: that is not PASSED
    assert "(end of input: stopping)" in out
    assert "INCOMPLETE signup" in out
    assert "4 steps have no recording for web yet (step 1, step 2, step 3, verify 4)" in out
    assert trail.read_bytes() == before


def test_after_a_call_only_what_changed_on_screen_is_shown(
    cli_process: Callable[..., subprocess.Popen[str]], project: Project, browser: str
) -> None:
    project.trail("signup", TRAIL)
    session = "\n".join(
        [
            "web_navigate url=/forms.html",  # another page: shown whole
            "done",
            "web_type ref=css=#name text=Ada",  # one line changed
            "web_type ref=css=#name text=Ada",  # nothing changed
            "screen",  # all of it, on request
            "quit",
            "",
        ]
    )
    proc = cli_process("record", "trails/signup.trail.yaml", "--agent", "interactive")
    out, _ = proc.communicate(session, timeout=120)
    step2 = out.split("── step 2", 1)[1]
    changed = step2.split("screen changed (`screen` shows all of it):\n", 1)[1].split(">", 1)[0]
    assert [line.strip() for line in changed.splitlines()] == [
        '- textbox "Name" [e7]',
        '+ textbox "Name" value=Ada focused [e7]',
    ], out
    assert step2.count("   screen: unchanged") == 1
    assert step2.count("   screen:\n") == 2  # at the step's start, and for `screen`
    assert out.split("── step 2", 1)[0].count('button "Submit"') == 1  # the new page, whole, once


def test_screen_changes_are_lines_gone_and_new_or_the_whole_screen() -> None:
    from trailblaze.agents.interactive import screen_changes

    before = ["heading 'Forms'", "textbox 'Name' [e1]", "button 'Submit' [e2]"]
    assert screen_changes(before, before) == []
    after = ["heading 'Forms'", "textbox 'Name' value=Ada [e1]", "button 'Submit' [e2]"]
    assert screen_changes(before, after) == ["- textbox 'Name' [e1]", "+ textbox 'Name' value=Ada [e1]"]
    assert screen_changes(before, ["heading 'About'", "link 'Home' [e3]"]) is None  # another page
