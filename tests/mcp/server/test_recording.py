"""What an MCP session records and how it becomes a trail file."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.server.support import failed, ok, stdio
from tests.support.cli import CliRunner, Project
from trailblaze.core.errors import UsageError
from trailblaze.mcpserver.recording import RecordedStep, render, trail_path
from trailblaze.tools.model import ToolCall
from trailblaze.trail.loader import load_trail


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("login", "login.trail.yaml"),
        ("Log in / out", "Log-in/out.trail.yaml"),
        ("checkout: happy path", "checkout-happy-path.trail.yaml"),
        ("../../etc/passwd", "etc/passwd.trail.yaml"),
        ("/abs/path", "abs/path.trail.yaml"),
        ("Café Crème", "Café-Crème.trail.yaml"),  # letters of any script stay
        ("日本語のテスト", "日本語のテスト.trail.yaml"),
        ("語" * 120, "語" * 66 + ".trail.yaml"),  # a file name is at most 255 bytes
    ],
)
def test_trail_names_become_files_inside_the_trails_folder(tmp_path: Path, name: str, expected: str) -> None:
    assert trail_path(tmp_path, name) == tmp_path / expected


@pytest.mark.parametrize("name", ["", "  ", "..", "///", "-"])
def test_names_that_make_no_file_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(UsageError, match="makes no file name"):
        trail_path(tmp_path, name)


@pytest.mark.parametrize(
    "text",
    ['Say "hi": #1', "multi\nline", "  leading and trailing  ", "yes", "null", "123", "ünïcödé ✓", "{braces}"],
)
def test_step_texts_and_titles_read_back_as_written(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.trail.yaml"
    steps = [RecordedStep("step", text, "web", [ToolCall("web_navigate", {"url": "/a"})])]
    written = render(text, steps, path)
    trail = load_trail(path, text=written, environ={})
    assert trail.title == text and trail.steps[0].text == text
    recording = (trail.steps[0].recordings or {})["web"]
    assert [(c.name, dict(c.args)) for c in recording] == [("web_navigate", {"url": "/a"})]


def test_nothing_recorded_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="nothing is recorded yet"):
        render("empty", [], tmp_path / "t.trail.yaml")


def test_recordings_start_end_and_refuse_to_overwrite(project: Project) -> None:
    project.trail("existing", "trail:\n  - step: mine\n")

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            out["unnamed"] = failed(await client.call_tool("trail", {"action": "SAVE"}))
            out["start"] = ok(await client.call_tool("trail", {"action": "START", "name": "first"}))
            ok(await client.call_tool("web_navigate", {"url": "/forms.html", "reason": "Open forms"}))
            out["taken"] = failed(await client.call_tool("trail", {"action": "SAVE", "name": "existing"}))
            out["saved"] = ok(await client.call_tool("trail", {"action": "SAVE"}))  # the START name
            ok(await client.call_tool("web_navigate", {"url": "/lists.html", "reason": "Open lists"}))
            out["again"] = ok(await client.call_tool("trail", {"action": "SAVE"}))  # overwrites its own file
            out["end"] = ok(await client.call_tool("trail", {"action": "END"}))
            out["after_end"] = ok(await client.call_tool("web_navigate", {"url": "/about.html"}))
            out["second"] = ok(await client.call_tool("session", {"action": "START", "title": "second"}))
            ok(await client.call_tool("web_navigate", {"url": "/about.html"}))
            out["list"] = ok(await client.call_tool("session", {"action": "LIST"}))
            first_id = out["list"]["recordings"][0]["id"]
            out["first_info"] = ok(await client.call_tool("session", {"action": "INFO", "id": first_id}))
            out["unknown"] = failed(await client.call_tool("session", {"action": "INFO", "id": "rec-nope"}))
        return out

    out = asyncio.run(scenario())
    assert "give the trail a name" in out["unnamed"]
    assert out["start"]["title"] == "first" and out["start"]["recording"] is True
    assert "trails/existing.trail.yaml already exists and was not written by this session" in out["taken"]
    assert project.root.joinpath("trails/existing.trail.yaml").read_text() == "trail:\n  - step: mine\n"
    assert out["saved"]["file"] == out["again"]["file"] == "trails/first.trail.yaml"
    assert (out["saved"]["steps"], out["again"]["steps"]) == (1, 2)
    assert out["end"]["recording"] is False and out["after_end"]["recorded"] is None
    assert [r["title"] for r in out["list"]["recordings"]] == ["first", "second"]
    assert [r["steps"] for r in out["list"]["recordings"]] == [2, 1]
    assert [s["text"] for s in out["first_info"]["steps"]] == ["Open forms", "Open lists"]
    assert "no recording 'rec-nope'" in out["unknown"]


def test_run_trail_paths_follow_the_saved_file(tmp_path: Path) -> None:
    trails = tmp_path / "trails"
    steps = [RecordedStep("step", "log in first", "web", [ToolCall("runTrail", {"path": "shared/login.trail.yaml"})])]
    path = trails / "flows" / "checkout.trail.yaml"
    written = render("checkout", steps, path, ran_in=trails)
    assert "runTrail: {path: ../shared/login.trail.yaml}" in written


def test_recorded_arguments_with_commas_and_quotes_save(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    text = 'Welcome, ada: "#1" {ok}'
    steps = [RecordedStep("verify", "greeting", "web", [ToolCall("web_verifyTextVisible", {"text": text})])]
    trail = load_trail(path, text=render("greeting", steps, path), environ={})
    assert dict((trail.steps[0].recordings or {})["web"][0].args) == {"text": text}


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


@pytest.mark.usefixtures("browser")
def test_a_check_that_needs_an_agent_every_time_is_saved_as_not_recordable(project: Project, cli: CliRunner) -> None:
    project.write("judge_tools.py", JUDGE_TOOLS)
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\nplugins: [judge_tools]\n")

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            ok(await client.call_tool("trail", {"action": "START", "name": "judged"}))
            out["open"] = ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))  # no reason
            out["judged"] = ok(await client.call_tool("demo_judgeLayout", {"reason": "The layout looks right"}))
            out["step"] = ok(
                await client.call_tool(
                    "step",
                    {
                        "objective": "Open the lists and judge them",
                        "tools": "- web_navigate: {url: /lists.html}\n- demo_judgeLayout",
                    },
                )
            )
            ok(await client.call_tool("trail", {"action": "SAVE"}))
        return out

    out = asyncio.run(scenario())
    assert out["open"]["recorded"]["text"] == "Open /forms.html"  # not the call's JSON
    for recorded in (out["judged"]["recorded"], out["step"]["recorded"]):
        assert recorded["recordable"] is False and recorded["tools"] == []
        assert "demo_judgeLayout cannot be recorded" in recorded["note"]
    saved = project.root / "trails" / "judged.trail.yaml"
    trail = load_trail(saved, environ={})
    recordings = [
        {key: [(c.name, dict(c.args)) for c in calls] for key, calls in s.recordings.items()} if s.recordings else None
        for s in trail.steps
    ]
    assert [(s.text, s.recordable) for s in trail.steps] == [
        ("Open /forms.html", True),
        ("The layout looks right", False),
        ("Open the lists and judge them", False),
    ]
    assert recordings == [{"web": [("web_navigate", {"url": "/forms.html"})]}, None, None]
    assert cli("validate", "trails/judged.trail.yaml", cwd=project.root).returncode == 0
    replay = cli("run", "trails/judged.trail.yaml", cwd=project.root)
    assert replay.returncode == 3, replay.output  # never a green replay that skipped the check
    assert "step 2 (The layout looks right): the step is `recordable: false`" in replay.output
