"""The ``openai`` agent records a prompt-only trail against a scripted OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest
from fake_openai import MODEL, FakeOpenAI, Ref, Reply

from tests.support.cli import CliRunner, Project

pytestmark = pytest.mark.browser

PROMPT_ONLY = """\
# Authored once by an agent, replayed deterministically afterwards.
config:
  title: Contact form
  args:
    name: {type: string, default: Ada Lovelace}

trail:
  - step: Open the forms page
  - step: Type {{args.name}} as the name   # the agent picks the field
  - step: Choose the Pro plan and subscribe to the newsletter
  - step: Submit the form
    # an android recording that recording on the web must leave alone
    recording:
      android:
        - tapOnElementWithText: {text: 'Submit'}
  - verify: The result shows the name
"""

RECORDED = """\
# Authored once by an agent, replayed deterministically afterwards.
config:
  title: Contact form
  args:
    name: {type: string, default: Ada Lovelace}

trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html, reason: the form is on the forms page}
  - step: Type {{args.name}} as the name   # the agent picks the field
    recording:
      web:
        - web_type:
            text: '{{args.name}}'
            nodeSelector: {web: {dataTestId: name-input}}
  - step: Choose the Pro plan and subscribe to the newsletter
    recording:
      web:
        - web_selectOption:
            values: [pro]
            nodeSelector: {web: {ariaRole: combobox, ariaNameRegex: Plan}}
        - web_click:
            nodeSelector: {web: {ariaRole: checkbox, ariaNameRegex: Subscribe to newsletter}}
  - step: Submit the form
    # an android recording that recording on the web must leave alone
    recording:
      android:
        - tapOnElementWithText: {text: 'Submit'}
      web:
        - web_click:
            nodeSelector: {web: {ariaRole: button, ariaNameRegex: Submit}}
  - verify: The result shows the name
    recording:
      web:
        - web_verifyElementVisible:
            nodeSelector: {web: {ariaRole: heading, ariaNameRegex: Submission result}}
        - web_verifyTextVisible: {text: 'Name: {{args.name}}'}
"""


def _script() -> list[Reply]:
    done = Reply([("objectiveStatus", {"status": "COMPLETE", "explanation": "done"})])
    return [
        Reply([("web_navigate", {"url": "/forms.html", "reason": "the form is on the forms page"})]),
        done,
        Reply([("web_type", {"ref": Ref('textbox "Name"'), "text": "Ada Lovelace"}), *done.calls]),
        Reply([("web_selectOption", {"ref": Ref('combobox "Plan"'), "values": ["pro"]})]),
        Reply([("tap", {"ref": Ref('checkbox "Subscribe')})]),
        done,
        Reply([("tap", {"ref": Ref('button "Submit"')})]),
        done,
        Reply([("web_click", {"ref": Ref('button "Submit"')})]),  # refused: a verify step only checks
        Reply(
            [
                ("assertVisible", {"ref": Ref('heading "Submission result"')}),
                ("web_verifyTextVisible", {"text": "Name: Ada Lovelace"}),
            ]
        ),
        done,
    ]


def _use(project: Project, server: FakeOpenAI, extra: str = "") -> None:
    project.write(
        "trailblaze.yaml",
        f"base_url: sample-app\ntimeout: 5\nllm:\n  base_url: {server.url}\n  model: test-model\n{extra}",
    )


def test_a_prompt_only_trail_recorded_by_the_llm_replays_green_without_it(
    cli: CliRunner, project: Project, browser: str
) -> None:
    trail = project.trail("contact", PROMPT_ONLY)
    with FakeOpenAI(_script()) as server:
        _use(project, server)
        recorded = cli("record", "trails/contact.trail.yaml", "--agent", "openai", "--json", "record.json")
        assert recorded.returncode == 0, recorded.output
        assert trail.read_text() == RECORDED
        assert "recording saved to" in recorded.stdout

        # each step was a fresh conversation: the step's text and the screen, nothing earlier
        starts = list(server.conversations())
        assert [m[1]["content"].split("\n")[0] for m in starts] == [
            "The step: Open the forms page",
            "The step: Type Ada Lovelace as the name",
            "The step: Choose the Pro plan and subscribe to the newsletter",
            "The step: Submit the form",
            "The step: The result shows the name",
        ]
        assert "verification step" in starts[-1][0]["content"]
        for body in server.requests:
            screens = [m for m in body["messages"] if "The screen now:\n" in (m.get("content") or "")]
            assert len(screens) == 1  # older screens are replaced, never resent
            offered = {t["function"]["name"] for t in body["tools"]}
            assert "objectiveStatus" in offered
        verify_tools = {t["function"]["name"] for t in server.requests[-1]["tools"]}
        assert "web_click" not in verify_tools
        assert "web_verifyTextVisible" in verify_tools
        refused = server.requests[9]["messages"][-2]
        assert refused["role"] == "tool"
        assert "not one of the tools offered" in refused["content"]

    steps = recorded.json("record.json")["trails"][0]["steps"]
    assert [s["recorded"] for s in steps] == [True] * 5
    assert {s["agent"]["model"] for s in steps} == {MODEL}
    assert all(s["agent"]["total_tokens"] > 0 and s["agent"]["turns"] >= 1 for s in steps)
    assert steps[2]["agent"]["turns"] == 3

    # replay: no agent, no server — deterministic, and the recorded {{args.name}} follows --arg
    replayed = cli("run", "trails/contact.trail.yaml")
    assert replayed.returncode == 0, replayed.output
    other = cli("run", "trails/contact.trail.yaml", "--arg", "name=Grace Hopper", "--json", "run.json")
    assert other.returncode == 0, other.output
    verify = other.json("run.json")["trails"][0]["steps"][-1]["tools"][-1]
    assert verify["args"] == {"text": "Name: Grace Hopper"}


def test_a_step_the_llm_gives_up_on_fails_the_recording_and_keeps_the_finished_steps(
    cli: CliRunner, project: Project, browser: str
) -> None:
    trail = project.trail("contact", PROMPT_ONLY)
    script = [
        Reply([("web_navigate", {"url": "/forms.html"}), ("objectiveStatus", {"status": "COMPLETE"})]),
        Reply([("objectiveStatus", {"status": "FAILED", "explanation": "there is no name field"})]),
    ]
    with FakeOpenAI(script) as server:
        _use(project, server)
        result = cli("record", "trails/contact.trail.yaml", "--agent", "openai")
    assert result.returncode == 1, result.output
    assert "openai could not do it: there is no name field" in result.stdout
    text = trail.read_text()
    assert "- web_navigate: {url: /forms.html}" in text
    assert text.count("recording:") == 2  # step 1's new one and step 4's android one


def test_a_step_not_finished_within_the_turn_budget_fails(cli: CliRunner, project: Project, browser: str) -> None:
    trail = project.trail("contact", PROMPT_ONLY)
    before = trail.read_bytes()
    script = [Reply(content="Let me think."), Reply([("web_navigate", {"url": "/forms.html"})])]
    with FakeOpenAI(script) as server:
        _use(project, server, "  max_turns: 2\n")
        result = cli("record", "trails/contact.trail.yaml", "--agent", "openai")
        nudge = server.requests[1]["messages"][-1]
    assert result.returncode == 1, result.output
    assert "not finished after 2 LLM turns" in result.stdout
    assert "objectiveStatus" in nudge["content"]
    assert trail.read_bytes() == before


def test_a_refused_api_key_is_a_configuration_error(cli: CliRunner, project: Project, browser: str) -> None:
    trail = project.trail("contact", PROMPT_ONLY)
    before = trail.read_bytes()
    with FakeOpenAI([], api_key="sk-right") as server:
        _use(project, server, "  api_key_env: TEST_LLM_KEY\n")
        result = cli("record", "trails/contact.trail.yaml", "--agent", "openai", env={"TEST_LLM_KEY": "sk-wrong"})
    assert result.returncode == 3, result.output
    assert "refused the API key (401): Incorrect API key provided" in result.output
    assert "Traceback" not in result.output
    assert trail.read_bytes() == before


@pytest.mark.parametrize(
    ("llm", "env", "message"),
    [
        ("llm:\n  base_url: http://127.0.0.1:9/v1\n", {}, "needs a model"),
        ("llm:\n  model: m\n", {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}, "needs an API key"),
        ("llm:\n  model: m\n  api_key_env: NOT_SET_ANYWHERE\n", {}, "NOT_SET_ANYWHERE, which is not set"),
        ("llm:\n  model: m\n  max_turns: 0\n", {}, "max_turns"),
    ],
)
def test_llm_settings_are_checked_before_anything_starts(
    cli: CliRunner, project: Project, llm: str, env: dict[str, str], message: str
) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\n" + llm)
    project.trail("contact", PROMPT_ONLY)
    result = cli("record", "--agent", "openai", env={"OPENAI_MODEL": "", **env})
    assert result.returncode == 3, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_an_unreachable_llm_is_an_infrastructure_error(cli: CliRunner, project: Project, browser: str) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\nllm:\n  base_url: http://127.0.0.1:9/v1\n  model: m\n")
    trail = project.trail("contact", PROMPT_ONLY)
    before = trail.read_bytes()
    result = cli("record", "--agent", "openai")
    assert result.returncode == 2, result.output
    assert "cannot reach the LLM at http://127.0.0.1:9/v1/chat/completions" in result.stdout
    assert trail.read_bytes() == before


def test_tools_are_offered_compactly_with_a_reason_argument() -> None:
    from trailblaze.agents.conversation import tool_schema
    from trailblaze.pluginmanager import get_plugin_manager
    from trailblaze.project.config import Config, ProjectConfig
    from trailblaze.runner.project import Project

    registry = Project(Config(ProjectConfig(), None), get_plugin_manager(autoload=False)).tools
    click = tool_schema(registry.require("web_click"), platform="web")
    assert click["type"] == "function"
    function = click["function"]
    assert function["name"] == "web_click"
    parameters = function["parameters"]
    assert "$defs" not in json.dumps(parameters) and "null" not in json.dumps(parameters)
    selector = parameters["properties"]["nodeSelector"]
    assert selector["type"] == "object" and selector["description"].startswith("Instead of ref")
    assert '"web": {ariaRole' in selector["description"] and "androidAccessibility" not in selector["description"]
    assert parameters["properties"]["reason"]["type"] == "string"
    assert "reason" not in tool_schema(registry.require("objectiveStatus"))["function"]["parameters"]["properties"]
