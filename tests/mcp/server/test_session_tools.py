"""The session tools through the SDK's client over stdio: what a client gets when it names
something ambiguous or passes a value a tool does not know, and what a device tool's reply tells
an agent — the screen after it, what was recorded (a query is not), arguments sent as JSON text,
and nothing unbounded echoed back (on the sample app in Chromium); and what they read from a
client, bounded as trails are."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.mcp.server.support import data, failed, ok, stdio
from tests.support.cli import Project
from trailblaze.mcpserver.calls import ToolError
from trailblaze.mcpserver.device_calls import parse_tool_calls
from trailblaze.tools.model import ToolCall

pytestmark = pytest.mark.slow


def _enum_values(schema: dict[str, Any]) -> set[str]:
    """Every ``enum`` value anywhere in a property's schema (however its optionality is written)."""
    found: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(node.get("enum", ()))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def test_hint_is_an_enum_and_an_unknown_one_lists_the_valid_ones(project: Project) -> None:
    async def scenario() -> tuple[dict[str, Any], str, str]:
        async with stdio(project.root) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            unknown = failed(
                await client.call_tool("step", {"objective": "Check it", "hint": "CHECK", "tools": "- wait: {}"})
            )
            wrong_type = failed(await client.call_tool("step", {"objective": "Check it", "hint": 3, "tools": "- x"}))
            return tools["step"].input_schema["properties"]["hint"], unknown, wrong_type

    hint, unknown, wrong_type = asyncio.run(scenario())
    assert _enum_values(hint) == {"VERIFY", "NAVIGATION"}
    assert "unknown hint 'CHECK': use one of VERIFY, NAVIGATION, or leave it out" in unknown
    assert "unknown hint 3" in wrong_type


def test_run_by_a_title_two_trails_share_names_both(project: Project) -> None:
    body = "config: {title: Checkout}\ntrail:\n  - step: Pay\n"
    project.write("trails/web/checkout.trail.yaml", body)
    project.write("trails/android/checkout.trail.yaml", body)
    project.write("trails/other.trail.yaml", "config: {title: Other}\ntrail:\n  - step: Look\n")

    async def scenario() -> str:
        async with stdio(project.root) as client:
            return failed(await client.call_tool("trail", {"action": "RUN", "name": "Checkout"}))

    message = asyncio.run(scenario())
    assert "2 trails are titled 'Checkout'" in message
    assert "trails/android/checkout.trail.yaml" in message and "trails/web/checkout.trail.yaml" in message
    assert 'trail(action=RUN, file="trails/' in message
    assert "other" not in message


LONG_PAGE = "<!doctype html><title>Long</title><main>{}</main>".format(
    "".join(f"<button>Button {n}</button>" for n in range(300))
)


def screen(result: Any) -> str:
    return str(data(result).get("screen") or "")


@pytest.mark.usefixtures("browser")
def test_a_primitives_reply_shows_the_screen_after_it(project: Project) -> None:
    project.write("trails/long.html", LONG_PAGE)

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            out["navigate"] = await client.call_tool("web_navigate", {"url": "/forms.html", "reason": "Open the form"})
            out["same"] = await client.call_tool("web_wait", {"seconds": 0})
            out["typed"] = await client.call_tool(
                "web_type", {"text": "Ada", "nodeSelector": {"web": {"dataTestId": "name-input"}}}
            )
            out["check"] = await client.call_tool("web_verifyTextVisible", {"text": "Submit"})
            out["url"] = await client.call_tool("web_currentUrl", {})
            out["long"] = await client.call_tool("web_navigate", {"url": "long.html"})
            out["info"] = ok(await client.call_tool("session", {"action": "INFO"}))
        return out

    out = asyncio.run(scenario())
    shown = screen(out["navigate"])
    assert shown.startswith("The screen now:\n") and 'textbox "Name"' in shown and 'button "Submit"' in shown
    assert screen(out["same"]) == "The screen did not change."
    # a field edit: the one line that changed, not the whole form again; the reply is text only
    typed = screen(out["typed"]).splitlines()
    assert typed[0] == "The screen changed (ask() shows all of it):"
    assert len(typed) == 2 and typed[1].startswith('~ textbox "Name" value=Ada') and typed[1].endswith("]")
    assert [c.type for c in out["typed"].content] == ["text"] and out["typed"].structured_content is None
    assert ok(out["check"])["recorded"]["kind"] == "verify" and "screen" not in data(out["check"])  # a check
    # a query answers and is not recorded; it does not change the screen, so none is sent
    url = ok(out["url"])
    assert url["output"].endswith("/forms.html") and url["recorded"] is None and "query" in url["note"]
    assert "screen" not in url
    # a screen cut at the summary's length says how to see the rest
    long = screen(out["long"])
    assert "more elements not shown: ask(viewHierarchy=STANDARD)" in long
    assert [s["tools"][0] for s in out["info"]["steps"]][:1] == [{"web_navigate": {"url": "/forms.html"}}]
    assert all("web_currentUrl" not in json.dumps(s) for s in out["info"]["steps"])


@pytest.mark.usefixtures("browser")
def test_a_clicks_whole_reply_is_its_text_and_little_more(project: Project) -> None:
    """The screen travels once, as text: what the client receives for a click (the result as the
    server writes it) is at most 1.3 times the characters of the text its LLM reads."""

    async def scenario() -> Any:
        async with stdio(project.root) as client:
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            return await client.call_tool("web_click", {"nodeSelector": {"web": {"cssSelector": "#clear"}}})

    clicked = asyncio.run(scenario())
    text = sum(len(c.text) for c in clicked.content if c.type == "text")
    sent = clicked.model_dump(by_alias=True, mode="json", exclude_none=True)
    sent.pop("resultType", None)  # the client's default for a result that left it out
    whole = len(json.dumps(sent, separators=(",", ":"), ensure_ascii=False))
    assert whole <= 1.3 * text, (whole, text, clicked)


@pytest.mark.usefixtures("browser")
def test_object_and_array_arguments_sent_as_json_text_are_accepted(project: Project) -> None:
    """What clients that read only the top-level type send, and models now and then."""

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            out["select"] = ok(
                await client.call_tool(
                    "web_selectOption", {"values": '["pro"]', "nodeSelector": '{"web": {"cssSelector": "#plan"}}'}
                )
            )
            out["visible"] = ok(
                await client.call_tool(
                    "web_verifyElementVisible", {"nodeSelector": '{"web": {"dataTestId": "name-input"}}'}
                )
            )
            out["toolbox"] = ok(await client.call_tool("toolbox", {"action": "ENABLE", "categories": '["MEMORY"]'}))
            out["text_stays_text"] = ok(
                await client.call_tool(
                    "web_type", {"text": '{"a": 1}', "nodeSelector": {"web": {"dataTestId": "name-input"}}}
                )
            )
            out["bad"] = failed(await client.call_tool("web_click", {"nodeSelector": '{"web": '}))
        return out

    out = asyncio.run(scenario())
    assert out["select"]["recorded"]["tools"] == [
        {"web_selectOption": {"values": ["pro"], "nodeSelector": {"web": {"cssSelector": "#plan"}}}}
    ]
    assert out["visible"]["recorded"]["kind"] == "verify"
    assert "MEMORY" in out["toolbox"]["enabled"]
    assert out["text_stays_text"]["recorded"]["tools"][0]["web_type"]["text"] == '{"a": 1}'
    assert "nodeSelector" in out["bad"]


@pytest.mark.usefixtures("browser")
def test_echoed_arguments_are_cut_and_step_texts_bounded(project: Project) -> None:
    question = "what is here? " * 80_000  # ~1 MB
    typed = "x" * 200_000

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            out["ask"] = await client.call_tool("ask", {"question": question})
            out["type"] = await client.call_tool(
                "web_type", {"text": typed, "nodeSelector": {"web": {"dataTestId": "name-input"}}}
            )
            out["objective"] = failed(
                await client.call_tool("step", {"objective": "Do " * 1000, "tools": "- web_wait: {seconds: 0}"})
            )
            out["reason"] = failed(await client.call_tool("web_wait", {"seconds": 0, "reason": "r" * 2001}))
            out["steps"] = ok(await client.call_tool("session", {"action": "INFO"}))["steps"]
            out["saved"] = ok(await client.call_tool("trail", {"action": "SAVE", "name": "long text"}))
        return out

    out = asyncio.run(scenario())
    for name in ("ask", "type"):
        size = sum(len(getattr(c, "text", "")) for c in out[name].content)
        assert size < 30_000, (name, size)
    assert data(out["ask"])["question"].endswith("more characters not shown)")
    recorded_text = data(out["type"])["recorded"]["tools"][0]["web_type"]["text"]
    assert recorded_text.startswith("xxx") and recorded_text.endswith("more characters not shown)")
    assert out["steps"][-1]["tools"][0]["web_type"]["text"].endswith("more characters not shown)")
    assert typed in (project.root / out["saved"]["file"]).read_text(encoding="utf-8")  # the trail holds it all
    assert "objective has 3000 characters, more than a step's text may have (2000, " in out["objective"]
    assert "TRAILBLAZE_MAX_STEP_TEXT_CHARS" in out["objective"]
    assert "reason has 2001 characters" in out["reason"]
    assert len(out["steps"]) == 2  # neither was recorded


@pytest.mark.usefixtures("browser")
def test_the_step_text_limit_follows_its_environment_variable(project: Project) -> None:
    async def scenario() -> dict[str, Any]:
        async with stdio(project.root, env={"TRAILBLAZE_MAX_STEP_TEXT_CHARS": "5000"}) as client:
            return ok(await client.call_tool("web_wait", {"seconds": 0, "reason": "r" * 3000}))

    recorded = asyncio.run(scenario())["recorded"]
    assert recorded["text"].startswith("r" * 300) and recorded["text"].endswith("(2700 more characters not shown)")


ALIAS_BOMB = "".join(
    f"- &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" if i else "- &a0 [x, x, x, x, x, x, x, x, x]\n" for i in range(9)
)


def test_step_tools_are_read_as_a_recording_is() -> None:
    assert parse_tool_calls("- web_click: {ref: e1}\n- web_check: {on: on}") == [
        ToolCall("web_click", {"ref": "e1"}),
        ToolCall("web_check", {"on": "on"}),  # YAML 1.2 as upstream reads it: `on` stays a string
    ]


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (ALIAS_BOMB, "tools is not valid YAML (line 6, column 38): YAML aliases (*name) expand to more than"),
        ("[" * 100_000, "tools is not valid YAML (line 1, column 101): YAML nested more than 100 levels deep"),
        ("- a: [1\n", "tools is not valid YAML (line "),
    ],
)
def test_hostile_step_tools_are_one_message(raw: str, said: str) -> None:
    with pytest.raises(ToolError) as refused:
        parse_tool_calls(raw)
    assert str(refused.value).startswith(said)
