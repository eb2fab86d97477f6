"""``trailblaze run --self-heal``: a failing recorded step is worked out by the agent."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from fake_openai import FakeOpenAI, Ref, Reply

from tests.support.cli import CliRunner, Project

pytestmark = pytest.mark.browser

BROKEN = """\
# the app renamed the name field's test id since this was recorded
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Type Ada as the name
    recording:
      web:
        - web_type:
            text: Ada
            nodeSelector: {web: {dataTestId: full-name-input}}
      android:
        - inputText: {text: Ada}
  - step: Submit the form
    recording:
      web:
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Submit}}}
  - verify: The result shows the name
    recording:
      web:
        - web_verifyTextVisible: {text: "Name: Ada"}
"""
HEALING = [
    Reply([("web_type", {"ref": Ref('textbox "Name"'), "text": "Ada"}), ("objectiveStatus", {"status": "COMPLETE"})])
]


def _llm(project: Project, server: FakeOpenAI) -> None:
    project.write("trailblaze.yaml", f"base_url: sample-app\nllm: {{base_url: '{server.url}', model: m}}\n")


def test_a_healed_trail_passes_with_a_status_of_its_own(cli: CliRunner, project: Project, browser: str) -> None:
    trail = project.trail("broken", BROKEN)
    before = trail.read_bytes()
    with FakeOpenAI(list(HEALING)) as server:
        _llm(project, server)
        plain = cli("run", "--timeout", "1")
        assert plain.returncode == 1, plain.output  # without --self-heal: an ordinary failure
        assert server.requests == []
        healed = cli(
            "run", "--timeout", "1", "--self-heal", "--agent", "openai", "--json", "r.json", "--junit", "j.xml"
        )
        (conversation,) = server.conversations()
    assert healed.returncode == 0, healed.output
    assert "HEALED  broken" in healed.stdout
    assert "step 2: healed by openai (it failed: web_type:" in healed.stdout
    assert "1 healed in" in healed.stdout
    assert "The step: Type Ada as the name" in conversation[1]["content"]

    document = healed.json("r.json")
    assert document["summary"]["healed"] == 1
    assert document["summary"]["passed"] == 0
    assert document["exit_code"] == 0
    result = document["trails"][0]
    assert result["status"] == "healed"
    assert result["recording_saved"] is False
    assert [s["status"] for s in result["steps"]] == ["passed", "healed", "passed", "passed"]
    step = result["steps"][1]
    assert "full-name-input" in step["error"]
    assert step["agent"]["name"] == "openai"
    assert step["agent"]["status"] == "complete"
    assert step["tools"][-1]["args"]["nodeSelector"] == {"web": {"dataTestId": "name-input"}}

    case = ET.parse(healed.cwd / "j.xml").getroot().find("testsuite/testcase")
    assert case is not None
    assert case.find("failure") is None
    assert case.find("error") is None
    assert case.find("properties/property").attrib == {"name": "trailblaze.status", "value": "healed"}  # type: ignore[union-attr]
    assert "healed, it failed with" in (case.findtext("system-out") or "")
    assert trail.read_bytes() == before  # only --save-recording writes


def test_save_recording_replaces_the_broken_recording(cli: CliRunner, project: Project, browser: str) -> None:
    trail = project.trail("broken", BROKEN)
    with FakeOpenAI(list(HEALING)) as server:
        _llm(project, server)
        healed = cli("run", "--timeout", "1", "--self-heal", "--save-recording")  # openai: the default with llm:
    assert healed.returncode == 0, healed.output
    assert "recording saved to" in healed.stdout
    assert trail.read_text() == BROKEN.replace(
        "            nodeSelector: {web: {dataTestId: full-name-input}}",
        "            nodeSelector: {web: {dataTestId: name-input}}",
    )
    again = cli("run")
    assert again.returncode == 0, again.output
    assert "PASSED  broken" in again.stdout


def test_when_healing_fails_the_trail_fails_with_both_reasons(cli: CliRunner, project: Project, browser: str) -> None:
    trail = project.trail("broken", BROKEN)
    before = trail.read_bytes()
    give_up = [Reply([("objectiveStatus", {"status": "FAILED", "explanation": "no name field"})])]
    with FakeOpenAI(give_up) as server:
        _llm(project, server)
        result = cli("run", "--timeout", "1", "--self-heal", "--save-recording", "--json", "r.json")
    assert result.returncode == 1, result.output
    error = result.json("r.json")["trails"][0]["error"]
    assert "full-name-input" in error
    assert "self-heal by openai did not succeed: no name field" in error
    assert trail.read_bytes() == before


def test_self_heal_options_need_self_heal(cli: CliRunner, project: Project) -> None:
    project.trail("broken", BROKEN)
    result = cli("run", "--save-recording")
    assert result.returncode == 3
    assert "--agent and --save-recording go with --self-heal" in result.stderr
    unknown = cli("run", "--self-heal", "--agent", "nobody")
    assert unknown.returncode == 3
    assert "unknown agent 'nobody'" in unknown.stderr


LIVE = """\
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Type today's name   # always solved live
    recordable: false
  - verify: The name is filled in
    recording:
      web:
        - web_verifyValue: {expected: Ada, type: VALUE, nodeSelector: {web: {dataTestId: name-input}}}
"""


def test_a_step_that_is_never_recorded_is_solved_live_by_the_agent(
    cli: CliRunner, project: Project, browser: str
) -> None:
    trail = project.trail("live", LIVE)
    before = trail.read_bytes()
    with FakeOpenAI(list(HEALING)) as server:
        _llm(project, server)
        without = cli("run")
        assert without.returncode == 3, without.output
        # found before anything runs, saying an agent is needed
        assert "step 2 (Type today's name): the step is `recordable: false`" in without.stderr
        assert "run with `--self-heal --agent NAME`" in without.stderr
        live = cli("run", "--self-heal", "--save-recording", "--json", "r.json")
    assert live.returncode == 0, live.output
    result = live.json("r.json")["trails"][0]
    assert result["status"] == "passed"
    assert result["steps"][1]["agent"]["name"] == "openai"
    assert result["steps"][1]["recorded"] is False
    assert "step 2: done by openai (not recorded)" in live.stdout
    assert trail.read_bytes() == before
