"""What ``trailblaze mcp`` lists, as an agent pays for it on every turn: the default profile's
tools/list after ``device(WEB)`` within our token budget, every parameter described, object and
array parameters typed at the top, profiles switchable, the target's toolsets obeyed, and tool
names every LLM API accepts — through the SDK's real client over stdio."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import mcp_types as types
import pytest

from tests.mcp.server.support import Seen, names, ok, stdio
from tests.mcp_toolsets.conftest import SERVERS
from tests.support.cli import Project

pytestmark = pytest.mark.usefixtures("browser")

#: our budget for the default profile's tools/list after device(WEB), in tokens (compact JSON of
#: name, description and inputSchema, four characters a token): @playwright/mcp's is ~4,400
TOKEN_BUDGET = 6_000
TYPES = ("string", "integer", "number", "boolean", "object", "array")


def tokens(tools: list[types.Tool]) -> float:
    entries = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools]
    return sum(len(json.dumps(e, separators=(",", ":"), ensure_ascii=False)) for e in entries) / 4


def names_of(tools: list[types.Tool]) -> list[str]:
    return [t.name for t in tools]


def problems(tools: list[types.Tool]) -> list[str]:
    """Parameters without a description, and object/array parameters without their top-level type."""
    found = []
    for tool in tools:
        for name, prop in (tool.input_schema.get("properties") or {}).items():
            where = f"{tool.name}.{name}"
            if not str(prop.get("description") or "").strip():
                found.append(f"{where}: no description")
            kinds = {prop.get("type"), *(b.get("type") for b in prop.get("anyOf", []))}
            if kinds & {"object", "array"} and prop.get("type") not in ("object", "array"):
                found.append(f"{where}: no top-level type")
            if "null" in json.dumps(prop) or "title" in prop:
                found.append(f"{where}: a null branch or a title")
    return found


def test_the_default_profile_after_device_web_is_within_budget_and_described(project: Project) -> None:
    async def scenario() -> dict[str, Any]:
        async with stdio(project.root) as client:
            before = (await client.list_tools()).tools
            ok(await client.call_tool("device", {"action": "WEB"}))
            default = (await client.list_tools()).tools
            ok(await client.call_tool("toolbox", {"action": "PROFILE", "profile": "ALL"}))
            every = (await client.list_tools()).tools
            return {"before": before, "default": default, "all": every}

    out = asyncio.run(scenario())
    default = out["default"]
    assert tokens(default) <= TOKEN_BUDGET, f"{tokens(default):.0f} tokens"
    assert {"device", "step", "ask", "trail", "toolbox", "web_click", "web_type", "web_navigate"} <= set(
        names_of(default)
    )
    for state in ("before", "default", "all"):
        assert problems(out[state]) == [], state
    assert len(out["all"]) > len(default)
    selector = next(t for t in default if t.name == "web_click").input_schema["properties"]["nodeSelector"]
    assert selector["type"] == "object" and "androidAccessibility" not in selector["description"]


def test_one_name_per_action_on_the_web_and_the_others_still_run(project: Project) -> None:
    """``tap`` beside ``web_click``, ``wait`` beside ``web_wait``, two snapshot tools: with a
    browser, tools/list offers the web's own; the every-driver ones still run by name (trails
    hold them), and toolbox says which tool is offered instead. A snapshot returns what it saw."""

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root, "--profile", "all") as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            out["tools"] = names(await client.list_tools())
            screen = ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))["screen"]
            clear = next(line for line in screen.splitlines() if line.startswith('button "Clear All"'))
            out["tap"] = ok(await client.call_tool("tap", {"ref": clear.rsplit("[", 1)[1].rstrip("]")}))
            out["wait"] = ok(await client.call_tool("wait", {"timeToWaitInSeconds": 0}))
            out["snapshot"] = ok(await client.call_tool("web_snapshot", {"screenName": "form"}))
            out["listing"] = ok(await client.call_tool("toolbox", {"action": "LIST", "search": "Wait a fixed"}))
        return out

    out = asyncio.run(scenario())
    tools = set(out["tools"])
    pairs = {"tap": "web_click", "wait": "web_wait", "takeSnapshot": "web_snapshot"}
    pairs |= {"assertVisible": "web_verifyElementVisible"}
    assert set(pairs.values()) <= tools and not set(pairs) & tools
    assert out["tap"]["recorded"]["tools"] == [
        {"web_click": {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Clear All"}}}}
    ]
    assert out["wait"]["recorded"]["tools"] == [{"wait": {"timeToWaitInSeconds": 0}}]
    # nothing changed since the tap, and the snapshot still shows the screen it saved
    assert (
        out["snapshot"]["screen"].startswith("The screen now:\n") and 'button "Clear All"' in out["snapshot"]["screen"]
    )
    core = next(c for c in out["listing"]["categories"] if c["category"] == "CORE_INTERACTION")
    assert {t["name"]: (t["offered"], t.get("instead")) for t in core["tools"]} == {
        "wait": (False, "web_wait"),
        "web_wait": (True, None),
    }


def test_profiles_are_switchable_and_said_so(project: Project) -> None:
    """--profile sets the start; toolbox and config(toolProfile) change it; list_changed follows."""
    seen = Seen()

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root, "--profile", "testing", message_handler=seen.handler) as client:
            out["testing"] = names(await client.list_tools())
            out["listing"] = ok(await client.call_tool("toolbox", {"action": "LIST"}))
            out["default"] = ok(await client.call_tool("toolbox", {"action": "PROFILE", "profile": "DEFAULT"}))
            out["default_tools"] = names(await client.list_tools())
            out["get"] = ok(await client.call_tool("config", {"action": "GET", "key": "toolProfile"}))
            out["bad"] = await client.call_tool("config", {"action": "SET", "key": "toolProfile", "value": "HUGE"})
        return out

    out = asyncio.run(scenario())
    assert {"web_verifyTextVisible", "rememberText", "web_snapshot"} <= set(out["testing"])
    assert out["listing"]["profile"] == "TESTING" and out["listing"]["profiles"]["DEFAULT"] == [
        "CORE_INTERACTION",
        "OBSERVATION",
    ]
    verification = next(c for c in out["listing"]["categories"] if c["category"] == "VERIFICATION")
    offered = {t["name"] for t in verification["tools"] if t["offered"]}
    # every check an LLM is given on the web: not assertNotVisibleBySelector (for recordings, as
    # upstream flags it), nor the every-driver checks the web has its own tools for
    unoffered = {"assertNotVisibleBySelector", "assertVisible", "assertNotVisibleWithText"}
    assert offered == {t["name"] for t in verification["tools"]} - unoffered
    assert "web_verifyTextVisible" not in out["default_tools"] and "web_click" in out["default_tools"]
    assert out["default"]["enabled"] == ["APP", "CORE_INTERACTION", "OBSERVATION"]
    assert out["get"]["value"] == "DEFAULT" and "ALL" in out["get"]["options"]
    assert (
        out["bad"].is_error and "is not one of MINIMAL, DEFAULT, STANDARD, TESTING, ALL" in out["bad"].content[0].text
    )
    assert seen.count("notifications/tools/list_changed") == 1


TARGETED = """
base_url: sample-app
target: shop
targets:
  shop:
    platforms:
      web:
        tool_sets: [web_core]
        excluded_tools: [web_hover]
"""


def test_the_targets_tool_sets_and_excluded_tools_filter_the_list(project: Project) -> None:
    """As for the built-in agents: web_core is named, so the tools only other toolsets list (the
    web checks) are not offered, even with every category on; web_hover is excluded."""
    project.write("trailblaze.yaml", TARGETED)

    async def scenario() -> dict[str, list[str]]:
        async with stdio(project.root, "--profile", "ALL") as client:
            before = names(await client.list_tools())
            ok(await client.call_tool("device", {"action": "WEB"}))
            after = names(await client.list_tools())
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            called = ok(await client.call_tool("web_verifyTextVisible", {"text": "Submit", "timeoutMs": 2000}))
            return {"before": before, "after": after, "called": [called["tool"]]}

    out = asyncio.run(scenario())
    for state in ("before", "after"):
        assert "web_click" in out[state] and "web_hover" not in out[state], state
        assert "web_verifyTextVisible" not in out[state] and "web_verifyValue" not in out[state], state
        assert "rememberText" not in out[state] and "tap" not in out[state], state  # memory, core_interaction
        assert "runTrail" in out[state], state  # listed by no toolset: not gated
    assert out["called"] == ["web_verifyTextVisible"]  # not offered, still a tool a trail may call


BANK = """
base_url: sample-app
mcp_servers:
  - {{name: bank, command: {python}, args: [{server}, '["bank.signIn", "bank_signIn"]']}}
"""


def test_a_tool_name_llm_apis_refuse_is_offered_under_a_name_they_accept(project: Project) -> None:
    """bank.signIn is a valid MCP name that OpenAI's and Anthropic's APIs refuse: offered as
    bank_signIn_<hash> (bank_signIn is taken), called by that name, recorded by its own."""
    project.write("trailblaze.yaml", BANK.format(python=sys.executable, server=SERVERS / "named.py"))

    async def scenario() -> dict[str, Any]:
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            tools = (await client.list_tools()).tools
            dotted = next(t for t in tools if (t.meta or {}).get("trailblaze/tool") == "bank.signIn")
            called = ok(await client.call_tool(dotted.name, {"reason": "Sign in"}))
            step = ok(await client.call_tool("step", {"objective": "Again", "tools": f"- {dotted.name}: {{}}"}))
            return {"names": names_of(tools), "offered": dotted.name, "called": called, "step": step}

    out = asyncio.run(scenario())
    assert "bank.signIn" not in out["names"] and "bank_signIn" in out["names"]
    assert out["offered"].startswith("bank_signIn_") and len(out["offered"]) == len("bank_signIn_") + 6
    assert out["called"]["tool"] == "bank.signIn" and out["called"]["output"] == "called bank.signIn"
    assert out["called"]["recorded"]["tools"] == [{"bank.signIn": {}}]
    assert out["step"]["recorded"]["tools"] == [{"bank.signIn": {}}]  # step's tools take the offered name too
