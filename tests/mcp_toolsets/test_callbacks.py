"""Callbacks from MCP tools to the device, end to end: real server, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CliRunner, Project

from .conftest import Recorded

pytestmark = pytest.mark.usefixtures("browser")


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
