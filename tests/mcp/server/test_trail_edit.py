"""``trailEdit`` through the SDK's client over stdio: an agent records a session with a mistake in
it, fixes the steps, saves, and the file replays."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.mcp.server.support import failed, ok, stdio
from tests.support.cli import CliRunner, Project

pytestmark = pytest.mark.usefixtures("browser")

NAME = {"web": {"dataTestId": "name-input"}}
SUBMIT = {"web": {"cssSelector": "#submit"}}


def test_fix_a_recording_then_save_and_replay(project: Project, cli: CliRunner) -> None:
    out: dict[str, Any] = {}

    async def scenario() -> None:
        async with stdio(project.root) as client:

            async def edit(**arguments: Any) -> dict[str, Any]:
                return ok(await client.call_tool("trailEdit", arguments))

            async def refused(**arguments: Any) -> str:
                return failed(await client.call_tool("trailEdit", arguments))

            ok(await client.call_tool("device", {"action": "WEB", "testName": "contact"}))
            ok(await client.call_tool("web_navigate", {"url": "/forms.html", "reason": "Open the forms page"}))
            ok(await client.call_tool("web_click", {"nodeSelector": SUBMIT, "reason": "Submit too early"}))
            ok(await client.call_tool("web_type", {"nodeSelector": NAME, "text": "Ada", "reason": "Type the name"}))
            ok(await client.call_tool("web_click", {"nodeSelector": SUBMIT, "reason": "Submit"}))
            ok(await client.call_tool("web_verifyTextVisible", {"text": "Name: Ada", "reason": "The name shows"}))
            out["get"] = await edit(operation="GET")  # upstream's name for action
            out["delete"] = await edit(action="DELETE", index=1)
            out["out_of_range"] = await refused(action="DELETE", index=9)
            out["past_the_end"] = await refused(action="DELETE", index=3, count=5)
            out["no_index"] = await refused(action="MOVE", position=0)
            out["verify_an_action"] = await refused(action="REPLACE", index=1, stepType="VERIFY")
            out["no_prompt"] = await refused(action="INSERT")
            out["both_names"] = await refused(action="GET", operation="MOVE")
            out["other_trail"] = await refused(action="GET", name="checkout")
            out["replace"] = await edit(action="REPLACE", index=1, prompt="Type Ada as the name")
            out["moved"] = await edit(action="MOVE", index=0, position=2)
            out["moved_back"] = await edit(action="MOVE", index=2, position=0)
            out["insert"] = await edit(action="INSERT", prompt="The page thanks Ada", stepType="verify")
            out["save"] = ok(await client.call_tool("trail", {"action": "SAVE"}))
            out["replay_needs_agent"] = cli("run", "trails/contact.trail.yaml", cwd=project.root)
            out["delete_inserted"] = await edit(action="DELETE", index=4)
            out["saved_again"] = ok(await client.call_tool("trail", {"action": "SAVE"}))
            out["clear"] = await edit(action="CLEAR_RECORDING", index=3)
            out["after_clear"] = await edit(action="GET")

    asyncio.run(scenario())
    get = out["get"]
    assert [(s["index"], s["prompt"], s["hasRecording"]) for s in get["steps"]] == [
        (0, "Open the forms page", True),
        (1, "Submit too early", True),
        (2, "Type the name", True),
        (3, "Submit", True),
        (4, "The name shows", True),
    ]
    assert get["steps"][4]["type"] == "verify"
    assert get["steps"][0]["tools"] == [{"web_navigate": {"url": "/forms.html"}}]
    assert out["delete"]["changes"] == ["deleted step 1: 'Submit too early'"] and out["delete"]["totalSteps"] == 4
    assert "index 9 is out of range: the recording has 4 steps, indexes 0 to 3" in out["out_of_range"]
    assert "count 5 from index 3 goes past the last step" in out["past_the_end"]
    assert "MOVE needs index" in out["no_index"]
    assert "step 1 records web_type, which a verify step may not hold" in out["verify_an_action"]
    assert "prompt is required" in out["no_prompt"]
    assert "give action or operation" in out["both_names"]
    assert "edits this session's recording, 'contact', not 'checkout'" in out["other_trail"]
    assert "(its recording is kept)" in out["replace"]["changes"][0]
    assert [s["prompt"] for s in out["moved"]["steps"]][:3] == ["Type Ada as the name", "Submit", "Open the forms page"]
    assert [s["prompt"] for s in out["moved_back"]["steps"]][:3] == [
        "Open the forms page",
        "Type Ada as the name",
        "Submit",
    ]
    inserted = out["insert"]["steps"][4]
    assert inserted == {"index": 4, "type": "verify", "prompt": "The page thanks Ada", "hasRecording": False}
    assert out["insert"]["unrecordedSteps"] == 1

    # the saved file holds the edited steps; the inserted one has no recording, so a replay needs an agent
    first = out["save"]
    assert first["steps"] == 5 and first["file"] == "trails/contact.trail.yaml"
    replay = out["replay_needs_agent"]
    assert replay.returncode == 3 and "step 5 (The page thanks Ada): no recording for web" in replay.output
    assert "contact.trail.yaml still holds the steps as saved" in out["delete_inserted"]["note"]
    text = (project.root / "trails" / "contact.trail.yaml").read_text(encoding="utf-8")
    assert "Submit too early" not in text and "The page thanks Ada" not in text
    assert text.index('"Open the forms page"') < text.index('"Type Ada as the name"') < text.index('- step: "Submit"')
    assert cli("run", "trails/contact.trail.yaml", cwd=project.root).returncode == 0

    assert out["clear"]["changes"] == ["cleared the recording of step 3: 'The name shows'"]
    assert [s["hasRecording"] for s in out["after_clear"]["steps"]] == [True, True, True, False]


def test_an_empty_recording_says_so(project: Project) -> None:
    async def scenario() -> tuple[dict[str, Any], str, dict[str, Any]]:
        async with stdio(project.root) as client:
            listing = ok(await client.call_tool("trailEdit", {"action": "GET"}))
            refused = failed(await client.call_tool("trailEdit", {"action": "DELETE", "index": 0}))
            inserted = ok(await client.call_tool("trailEdit", {"action": "INSERT", "prompt": "Log in", "position": 0}))
            return listing, refused, inserted

    listing, refused, inserted = asyncio.run(scenario())
    assert listing["steps"] == [] and listing["totalSteps"] == 0
    assert "the recording has no steps yet" in refused
    assert inserted["steps"] == [{"index": 0, "type": "step", "prompt": "Log in", "hasRecording": False}]


def test_a_prompt_is_bounded_as_a_steps_text(project: Project) -> None:
    """INSERT and REPLACE take a step's text, bounded as ``step``'s objective and a call's reason
    are (TRAILBLAZE_MAX_STEP_TEXT_CHARS): a 10 MB prompt is refused, not recorded."""
    longest = "x" * 2000

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            out["longest"] = ok(await client.call_tool("trailEdit", {"action": "INSERT", "prompt": longest}))
            for action, extra in (("INSERT", {}), ("REPLACE", {"index": 0})):
                for size in (2001, 10 * 1024 * 1024):
                    arguments = {"action": action, "prompt": "y" * size, **extra}
                    out[f"{action} {size}"] = failed(await client.call_tool("trailEdit", arguments))
            out["after"] = ok(await client.call_tool("trailEdit", {"action": "GET"}))
        return out

    out = asyncio.run(scenario())
    assert out["longest"]["totalSteps"] == 1
    for key in ("INSERT 2001", "REPLACE 2001"):
        assert "prompt has 2001 characters, more than a step's text may have (2000" in out[key], out[key]
        assert "TRAILBLAZE_MAX_STEP_TEXT_CHARS" in out[key]
    assert "prompt has 10485760 characters" in out["INSERT 10485760"]
    assert "prompt has 10485760 characters" in out["REPLACE 10485760"]
    assert [s["prompt"] for s in out["after"]["steps"]] == [longest]
