"""Callbacks from MCP tools to the device, end to end: real server, real Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliRunner, Project

from .conftest import Recorded

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]


def _setup(project: Project, probe: Path) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        base_url: sample-app
        timeout: 5
        mcp_servers:
          - script: {probe}
        """,
    )


def test_an_executable_tool_acts_through_callbacks_and_only_the_tool_is_reported(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    project.trail(
        "act",
        """
        trail:
          - step: act through the callback API
            recording:
              web:
                - callback:
                    steps:
                      - {method: navigate, params: {url: /forms.html}}
                      - {method: isVisible, params: {text: Forms}}
                      - {method: getElementText, params: {selector: {web: {headingLevel: 1}}}}
                - web_verifyTextVisible: {text: Forms}
        """,
    )
    result = cli("run", "--json", "results.json", env=recorded.env)
    assert result.returncode == 0, result.output
    assert recorded.one("callback")["results"] == [None, True, "Forms"]
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [t["name"] for t in tools] == ["callback", "web_verifyTextVisible"]  # navigate is not reported apart


def test_a_delegating_tool_queries_then_delegates(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    project.trail(
        "query",
        """
        trail:
          - step: open forms unless already there
            recording:
              web:
                - web_navigate: {url: /index.html}
                - delegating_callback:
                    steps: [{method: is_visible, params: {text: Forms, timeout_ms: 0}}]
                    delegates: [{tool: web_navigate, args: {url: /forms.html}}]
                - web_verifyTextVisible: {text: Contact}
        """,
    )
    result = cli("run", "--json", "results.json", env=recorded.env)
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["delegated_from"]) for t in tools][:2] == [
        ("web_navigate", []),
        ("web_navigate", ["delegating_callback"]),
    ]
    assert recorded.one("callback")["results"] == [True]


def test_a_delegating_tool_that_acts_fails_the_step_and_says_why(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    project.trail(
        "refused",
        """
        trail:
          - step: act while delegating
            recording:
              web:
                - delegating_callback:
                    steps: [{method: navigate, params: {url: /forms.html}}]
                    delegates: []
        """,
    )
    result = cli("run", "--json", "results.json", env=recorded.env)
    assert result.returncode == 1, result.output
    error = result.json()["trails"][0]["steps"][0]["error"]
    assert "called the action navigate() over the callback API" in error
    assert "must return the actions as _trailblaze_delegates" in error
    assert recorded.one("callback_error")["code"] == -32011


def test_the_invocation_id_may_be_omitted_with_one_device(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    project.trail(
        "no-id",
        """
        trail:
          - step: callback without the id
            recording:
              web:
                - callback:
                    with_id: false
                    steps: [{method: navigate, params: {url: /lists.html}}, {method: has_text, params: {text: Lists}}]
        """,
    )
    result = cli("run", env=recorded.env)
    assert result.returncode == 0, result.output
    entry = recorded.one("callback")
    assert entry["invocation"] is None
    assert entry["results"] == [None, True]


def test_two_concurrent_sessions_each_drive_their_own_device(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    for name, page, heading in (("a", "/forms.html", "Forms"), ("b", "/lists.html", "Lists")):
        project.trail(
            name,
            f"""
            trail:
              - step: navigate and read back, overlapping with the other session
                recording:
                  web:
                    - navigate_and_read: {{path: {page}, pause_s: 1.5}}
                    - web_verifyTextVisible: {{text: {heading}}}
            """,
        )
    result = cli("run", "--workers", "2", "--json", "results.json", env=recorded.env)
    assert result.returncode == 0, result.output
    reads = recorded.entries("navigate_and_read")
    assert sorted((r["path"], r["heading"]) for r in reads) == [("/forms.html", "Forms"), ("/lists.html", "Lists")]
    sessions = {r["meta"]["trailblaze"]["sessionId"] for r in reads}
    tokens = {r["meta"]["trailblaze"]["token"] for r in reads}
    assert len(sessions) == len(tokens) == 2  # two sessions, each with its own token (and its own server)
    assert len({r["pid"] for r in reads}) == 2
    first, second = sorted(reads, key=lambda r: r["started"])
    assert second["started"] < first["ended"], "the two calls did not overlap"


# -- tools by name (callTool) ------------------------------------------------------------------------------


def _call(name: str, **arguments: object) -> dict[str, object]:
    return {"method": "callTool", "params": {"name": name, "arguments": arguments}}


def test_a_delegating_tool_runs_tools_by_name_and_they_are_recorded_in_its_place(
    cli: CliRunner, cli_process: Any, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    steps = [_call("web_navigate", url="/forms.html"), _call("web_type", ref="css=#name", text="Ada")]
    project.trail(
        "by-name",
        f"""
        trail:
          - step: fill the name through a delegating tool
            recording:
              web:
                - delegating_callback: {{steps: {json.dumps(steps)}, delegates: []}}
                - web_verifyValue: {{ref: "css=#name", type: VALUE, expected: Ada}}
        """,
    )
    result = cli("run", "--json", "results.json", env=recorded.env)
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["delegated_from"], t["recordable"]) for t in tools] == [
        ("web_navigate", ["delegating_callback"], True),
        ("web_type", ["delegating_callback"], True),
        ("web_verifyValue", [], True),
    ]
    # a built-in tool's output comes back as the call's result
    navigated, typed = recorded.one("callback")["results"]
    assert navigated.endswith("/forms.html")
    assert typed == "typed into ref 'css=#name'"

    trail = project.trail("record-me", "trail:\n  - step: fill the name\n")
    proc = cli_process("record", "trails/record-me.trail.yaml", "--agent", "interactive", env=recorded.env)
    line = f"delegating_callback: {{steps: {json.dumps(steps)}, delegates: []}}\ndone\n"
    out, err = proc.communicate(line, timeout=120)
    assert proc.returncode == 0, out + err
    text = trail.read_text()
    assert "- web_navigate: {url: /forms.html}" in text
    assert "- web_type:" in text
    assert "delegating_callback" not in text


def test_tools_an_executable_tool_runs_by_name_are_reported_but_not_recorded(
    cli: CliRunner, cli_process: Any, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    trail = project.trail("record-me", "trail:\n  - step: fill the name\n")
    steps = [_call("web_navigate", url="/forms.html"), _call("web_type", ref="css=#name", text="Ada")]
    proc = cli_process("record", "trails/record-me.trail.yaml", "--agent", "interactive", env=recorded.env)
    out, err = proc.communicate(f"callback: {{steps: {json.dumps(steps)}}}\ndone\n", timeout=120)
    assert proc.returncode == 0, out + err
    text = trail.read_text()
    assert "- callback:" in text  # the executable tool itself: replay runs it, and it runs the others
    assert "- web_type:" not in text and "- web_navigate:" not in text
    assert recorded.one("callback")["results"][1] == "typed into ref 'css=#name'"


@pytest.mark.parametrize(
    ("step", "code", "exit_code", "message"),
    [
        (_call("nope"), -32602, 3, "unknown tool 'nope'"),
        (_call("web_type", colour="red"), -32602, 3, "invalid arguments for web_type"),
        (_call("web_verifyTextVisible", text="Not on the page", timeoutMs=100), -32010, 1, "Not on the page"),
        ({"method": "callTool", "params": {"arguments": {}}}, -32602, None, 'callTool needs "name"'),
    ],
    ids=["unknown-tool", "bad-arguments", "failed-check", "no-name"],
)
def test_a_tool_run_by_name_that_fails_says_how(
    cli: CliRunner,
    project: Project,
    probe: Path,
    recorded: Recorded,
    step: dict[str, object],
    code: int,
    exit_code: int | None,
    message: str,
) -> None:
    _setup(project, probe)
    project.trail(
        "fails",
        f"""
        trail:
          - step: call a tool that fails
            recording:
              web:
                - web_navigate: {{url: /forms.html}}
                - callback: {{steps: [{json.dumps(step)}]}}
        """,
    )
    result = cli("run", env=recorded.env)
    assert result.returncode == 1, result.output  # the probe turns the error into its own failure
    error = recorded.one("callback_error")
    assert (error["code"], error["exit_code"]) == (code, exit_code)
    assert message in error["message"]


def test_tools_run_by_name_nest_at_most_16_deep(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    step: dict[str, object] = _call("wait", timeToWaitInSeconds=0)
    for _ in range(17):  # callback → callback → … seventeen times over, then a built-in
        step = _call("callback", steps=[step])
    project.trail(
        "deep",
        f"""
        trail:
          - step: run tools inside tools inside tools
            recording:
              web:
                - callback: {{steps: [{json.dumps(step)}]}}
        """,
    )
    result = cli("run", "--json", "results.json", env=recorded.env)
    assert result.returncode == 1, result.output
    errors = recorded.entries("callback_error")
    assert errors[0]["message"].startswith("tool calls nested deeper than 16 levels: callback → callback → ")
    assert "(a tool that runs tools by name must not run itself without end)" in errors[0]["message"]
    assert errors[0]["exit_code"] == 3


def test_playwright_commands_through_the_callback_api(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    steps = [
        {"method": "navigate", "params": {"url": "/forms.html"}},
        {"method": "fill", "params": {"selector": "#name", "value": "Ada"}},
        {"method": "waitForSelector", "params": {"selector": "#result", "state": "hidden"}},
        {"method": "evaluateJs", "params": {"script": "(id) => document.getElementById(id).value", "arg": "name"}},
    ]
    project.trail(
        "playwright",
        f"""
        trail:
          - step: fill and read back
            recording:
              web:
                - callback: {{steps: {json.dumps(steps)}}}
        """,
    )
    result = cli("run", env=recorded.env)
    assert result.returncode == 0, result.output
    assert recorded.one("callback")["results"] == [None, None, None, "Ada"]
