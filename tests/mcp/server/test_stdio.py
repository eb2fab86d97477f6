"""``trailblaze mcp`` over stdio, driven by the SDK's real client against the sample app in Chromium:
connect, act, record, verify, save — and the saved file replays with ``trailblaze run``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import hypothesis
import pytest
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.mcp.server.support import Seen, data, failed, names, ok, server_command, stdio
from tests.support.cli import CliRunner, Project, cli_env

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

SESSION_TOOLS = ["device", "step", "ask", "trail", "session", "config", "toolbox", "trailEdit"]


def test_drive_save_replay(project: Project, cli: CliRunner) -> None:
    """The issue's worked example: the agent drives, saves, and the file replays without an LLM."""
    seen = Seen()

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root, message_handler=seen.handler) as client:
            out["before"] = names(await client.list_tools())
            out["connect"] = ok(await client.call_tool("device", {"action": "web"}))
            tools = await client.list_tools()
            out["after"] = names(tools)
            out["schemas"] = {t.name: t.input_schema for t in tools.tools}
            out["navigate"] = ok(
                await client.call_tool("web_navigate", {"url": "/forms.html", "reason": "Open the forms page"})
            )
            screen = ok(await client.call_tool("ask", {"question": "which fields are there?"}))["screen"]
            name_ref = _ref(screen, 'textbox "Name"')
            submit_ref = _ref(screen, 'button "Submit"')
            out["step"] = ok(
                await client.call_tool(
                    "step",
                    {
                        "objective": "Fill in the name and submit",
                        "tools": f"- web_type: {{ref: {name_ref}, text: Ada Lovelace}}\n"
                        f"- web_click: {{ref: {submit_ref}}}",
                    },
                )
            )
            out["verify"] = ok(
                await client.call_tool(
                    "step",
                    {
                        "objective": "The result shows the name",
                        "hint": "VERIFY",
                        "tools": "- web_verifyTextVisible: {text: 'Name: Ada Lovelace'}",
                    },
                )
            )
            out["verify_fails"] = data(
                await client.call_tool(
                    "step",
                    {
                        "objective": "It shows Bob",
                        "hint": "verify",
                        "tools": [{"web_verifyTextVisible": {"text": "Name: Bob", "timeoutMs": 300}}],
                    },
                )
            )
            out["verify_acts"] = failed(
                await client.call_tool(
                    "step", {"objective": "clicks", "hint": "VERIFY", "tools": f"- web_click: {{ref: {submit_ref}}}"}
                )
            )
            out["bad_ref"] = failed(await client.call_tool("web_click", {"ref": "e9999"}))
            out["missing"] = failed(
                await client.call_tool("web_verifyTextVisible", {"text": "Not on the page", "timeoutMs": 300})
            )
            out["unknown"] = failed(await client.call_tool("web_clik", {"ref": "e1"}))
            out["save"] = ok(await client.call_tool("trail", {"action": "SAVE", "name": "contact form"}))
            out["info"] = ok(await client.call_tool("session", {"action": "INFO"}))
            out["list"] = ok(await client.call_tool("trail", {"action": "LIST", "filter": "contact"}))
        return out

    out = asyncio.run(scenario())
    # before any device is connected: the default (web) driver's tools, connecting on first use
    assert out["before"][: len(SESSION_TOOLS)] == SESSION_TOOLS and "web_click" in out["before"]
    assert out["after"][: len(SESSION_TOOLS)] == SESSION_TOOLS
    assert {"web_click", "web_type", "web_navigate"} <= set(out["after"]) and "tap" not in out["after"]
    assert "web_verifyTextVisible" not in out["after"]  # VERIFICATION is a toolbox call away; callable by name
    assert "objectiveStatus" not in out["after"]
    assert seen.count("notifications/tools/list_changed") == 1
    assert out["schemas"]["device"]["properties"]["action"]["enum"] == [
        "LIST",
        "CONNECT",
        "ANDROID",
        "IOS",
        "WEB",
        "INFO",
    ]
    assert "reason" in out["schemas"]["web_click"]["properties"]
    assert out["connect"]["platform"] == "web" and out["connect"]["recording"]["recording"] is True

    assert out["navigate"]["recorded"] == {
        "step": 1,
        "kind": "step",
        "text": "Open the forms page",
        "tools": [{"web_navigate": {"url": "/forms.html"}}],
    }
    recorded = out["step"]["recorded"]["tools"]
    assert [next(iter(c)) for c in recorded] == ["web_type", "web_click"]
    assert recorded[0]["web_type"]["nodeSelector"] == {"web": {"dataTestId": "name-input"}}  # a ref became stable
    assert out["verify"]["passed"] is True and out["verify"]["recorded"]["kind"] == "verify"
    assert out["verify_fails"]["passed"] is False and out["verify_fails"]["recorded"] is None
    assert "not allowed here" in out["verify_acts"]
    assert "e9999" in out["bad_ref"]
    # the message says what was looked for and what the page shows; the screen part follows it, with refs
    assert "Not on the page" in out["missing"] and "on screen:" in out["missing"]
    assert out["missing"].split("\n\n")[-1].startswith("The screen")
    assert "did you mean web_click" in out["unknown"]

    assert out["save"]["file"] == "trails/contact-form.trail.yaml" and out["save"]["steps"] == 3
    assert [s["text"] for s in out["info"]["steps"]] == [
        "Open the forms page",
        "Fill in the name and submit",
        "The result shows the name",
    ]
    assert [t["file"] for t in out["list"]["trails"]] == ["trails/contact-form.trail.yaml"]

    saved = project.root / "trails" / "contact-form.trail.yaml"
    text = saved.read_text(encoding="utf-8")
    assert text.startswith('config:\n  title: "contact form"\ntrail:\n  - step: "Open the forms page"\n')
    assert '  - verify: "The result shows the name"' in text
    assert "Bob" not in text and "e9999" not in text and "reason" not in text
    result = cli("run", "trails/contact-form.trail.yaml", "--json", "results.json", cwd=project.root)
    assert result.returncode == 0, result.output
    assert [s["status"] for s in result.json()["trails"][0]["steps"]] == ["passed", "passed", "passed"]


def test_failed_call_records_the_calls_that_ran(project: Project, cli: CliRunner) -> None:
    """A step whose second call fails keeps the first (it happened on the device), so the saved
    trail replays as the session went; the failing call is never recorded."""

    async def scenario() -> tuple[str, dict[str, Any], dict[str, Any]]:
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            first_fails = failed(await client.call_tool("step", {"objective": "Teleport", "tools": "- teleport: {}"}))
            assert "nothing was recorded" in first_fails  # and no empty step either (INFO below)
            message = failed(
                await client.call_tool(
                    "step",
                    {
                        "objective": "Open the forms page and press Go",
                        "tools": "- web_navigate: {url: /forms.html}\n"
                        "- web_click: {nodeSelector: {web: {cssSelector: '#no-such-button'}}, timeoutMs: 300}",
                    },
                )
            )
            info = ok(await client.call_tool("session", {"action": "INFO"}))
            saved = ok(await client.call_tool("session", {"action": "STOP", "save": True, "title": "partial"}))
            return message, info, saved

    message, info, saved = asyncio.run(scenario())
    assert "#no-such-button" in message and "recorded as step 1" in message
    assert info["steps"][0]["tools"] == [{"web_navigate": {"url": "/forms.html"}}]
    assert saved["saved"]["file"] == "trails/partial.trail.yaml" and saved["recording"] is False
    assert cli("run", "trails/partial.trail.yaml", cwd=project.root).returncode == 0


def test_trail_run_reports_progress_and_keeps_the_device(project: Project) -> None:
    project.trail(
        "login",
        """
        config: {title: Log in}
        trail:
          - step: Open the forms page
            recording:
              web:
                - web_navigate: {url: /forms.html}
          - step: Type the name
            recording:
              web:
                - web_type: {text: Ada, nodeSelector: {web: {dataTestId: name-input}}}
          - verify: The name is in the box
            recording:
              web:
                - web_verifyValue: {expected: Ada, type: VALUE, nodeSelector: {web: {dataTestId: name-input}}}
        """,
    )
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], list[str], str]:
        async with stdio(project.root) as client:
            result = ok(
                await client.call_tool("trail", {"action": "RUN", "name": "login"}, progress_callback=on_progress)
            )
            after = ok(
                await client.call_tool(
                    "web_verifyValue",
                    {"expected": "Ada", "type": "VALUE", "nodeSelector": {"web": {"dataTestId": "name-input"}}},
                )
            )
            tools = names(await client.list_tools())
            missing = failed(await client.call_tool("trail", {"action": "RUN", "name": "nope"}))
            return result, after, tools, missing

    result, after, tools, missing = asyncio.run(scenario())
    assert result["passed"] is True and [s["status"] for s in result["steps"]] == ["passed"] * 3
    assert [p[:2] for p in progress] == [(1, 3), (2, 3), (3, 3)]
    assert progress[0][2] == "step 1 passed: Open the forms page"
    assert after["ok"] is True  # the device kept what the trail did
    assert "web_click" in tools  # RUN connected the web driver the trail needs
    assert "no trail named 'nope'" in missing


def test_cancelled_run_leaves_the_device_usable(project: Project) -> None:
    project.trail(
        "slow",
        """
        trail:
          - step: Open the page that loads late
            recording:
              web:
                - web_navigate: {url: /delayed.html}
          - step: Wait for something that never comes
            recording:
              web:
                - web_verifyTextVisible: {text: never shown, timeoutMs: 120000}
        """,
    )

    async def scenario() -> tuple[bool, dict[str, Any], float]:
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            started = anyio.current_time()
            with anyio.move_on_after(3) as scope:
                await client.call_tool("trail", {"action": "RUN", "name": "slow"})
            after = ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            return scope.cancelled_caught, after, anyio.current_time() - started

    cancelled, after, elapsed = asyncio.run(scenario())
    assert cancelled
    assert after["ok"] is True
    assert elapsed < 60  # the 120 s wait stopped when the call was cancelled (a bound, not a speed)


def test_config_toolbox_and_modes_change_the_tools(project: Project) -> None:
    seen = Seen()

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root, message_handler=seen.handler) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            out["default"] = names(await client.list_tools())
            out["profile_all"] = ok(
                await client.call_tool("config", {"action": "SET", "key": "toolProfile", "value": "all"})
            )
            out["all"] = names(await client.list_tools())
            out["minimal"] = ok(await client.call_tool("toolbox", {"action": "PROFILE", "profile": "MINIMAL"}))
            out["minimal_tools"] = names(await client.list_tools())
            ok(await client.call_tool("toolbox", {"action": "ENABLE", "categories": ["VERIFICATION"]}))
            out["verification_tools"] = names(await client.list_tools())
            out["listing"] = ok(await client.call_tool("toolbox", {"search": "verify"}))
            out["get"] = ok(await client.call_tool("config", {"action": "GET"}))
            out["set"] = ok(
                await client.call_tool("config", {"action": "SET", "key": "mode", "value": "trailblaze_as_agent"})
            )
            out["agent_tools"] = names(await client.list_tools())
            out["primitive_refused"] = failed(await client.call_tool("web_navigate", {"url": "/"}))
            out["bad_value"] = failed(await client.call_tool("config", {"action": "SET", "key": "mode", "value": "x"}))
            out["bad_key"] = failed(await client.call_tool("config", {"action": "GET", "key": "colour"}))
            out["bad_target"] = failed(
                await client.call_tool("config", {"action": "SET", "key": "target", "value": "nowhere"})
            )
            out["list"] = ok(await client.call_tool("config", {"action": "LIST"}))
        return out

    out = asyncio.run(scenario())
    # DEFAULT: CORE_INTERACTION and OBSERVATION (upstream's default categories)
    assert {"web_click", "web_snapshot", "web_currentUrl"} <= set(out["default"])
    assert "web_verifyTextVisible" not in out["default"] and "rememberText" not in out["default"]
    assert out["profile_all"]["value"] == "ALL"
    assert {"web_verifyTextVisible", "rememberText", "runTrail"} <= set(out["all"])
    assert "web_requestDetails" not in out["all"]  # a no-op kept for upstream's recordings: never offered
    assert "web_click" in out["minimal_tools"] and "web_verifyTextVisible" not in out["minimal_tools"]
    assert "runTrail" not in out["minimal_tools"] and "web_currentUrl" not in out["minimal_tools"]
    assert out["minimal"]["enabled"] == ["APP", "CORE_INTERACTION"]
    assert "web_verifyTextVisible" in out["verification_tools"]
    verification = next(c for c in out["listing"]["categories"] if c["category"] == "VERIFICATION")
    assert {t["name"] for t in verification["tools"]} >= {"web_verifyTextVisible", "web_verifyValue"}
    assert out["get"]["values"]["mode"] == "MCP_CLIENT_AS_AGENT"
    assert out["set"] == {"key": "mode", "value": "TRAILBLAZE_AS_AGENT", "changed": True, "note": None}
    assert out["agent_tools"] == [*SESSION_TOOLS, "runPrompt", "getAgentMetrics", "clearAgentMetrics"]
    assert "MCP_CLIENT_AS_AGENT" in out["primitive_refused"]
    assert "is not one of MCP_CLIENT_AS_AGENT, TRAILBLAZE_AS_AGENT" in out["bad_value"]
    assert "unknown config key 'colour'" in out["bad_key"]
    assert "unknown target 'nowhere'" in out["bad_target"]
    assert {k["key"] for k in out["list"]["keys"]} == {
        "mode",
        "target",
        "llmCallStrategy",
        "toolProfile",
        "screenshotFormat",
        "viewHierarchyVerbosity",
        "autoIncludeScreenshot",
    }
    # connect, toolProfile, profile, enable, mode: each changed the list and said so
    assert seen.count("notifications/tools/list_changed") == 5


def test_ask_returns_the_screen_and_a_screenshot(project: Project) -> None:
    async def scenario() -> tuple[Any, dict[str, Any], dict[str, Any]]:
        async with stdio(project.root, "--mode", "MCP_CLIENT_AS_AGENT") as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            result = await client.call_tool(
                "ask", {"question": "what is there?", "screenshot": True, "viewHierarchy": "FULL"}
            )
            artifacts = ok(await client.call_tool("session", {"action": "ARTIFACTS"}))
            bad = data(await client.call_tool("ask", {"question": "?", "viewHierarchy": "HUGE"}))
            return result, artifacts, bad

    result, artifacts, bad = asyncio.run(scenario())
    assert not result.is_error
    kinds = [c.type for c in result.content]
    assert kinds == ["text", "image"]  # the screen once: at FULL, every element as JSON instead of the lines
    assert result.content[1].mime_type == "image/png"
    payload = data(result)
    assert payload["answer"] is None and payload["screen"].startswith("The screen now, every element")
    assert '"children"' in payload["screen"] and 'textbox "Name"' not in payload["screen"]
    assert payload["screenshot"] in artifacts["artifacts"]
    assert (Path(payload["screenshot"]).name).endswith(".png")
    assert "viewHierarchy: input should be 'MINIMAL', 'STANDARD' or 'FULL'" in bad["error"]


def test_a_hostile_selector_is_refused_and_the_server_goes_on(project: Project) -> None:
    # 3 KB nested 50 deep: quoted level after level into one Playwright selector it took 22 GB
    hostile: dict[str, Any] = {"web": {"ariaNameRegex": '"' * 2900}}
    for _ in range(49):
        hostile = {"web": {"cssSelector": "div"}, "containsChild": hostile}

    async def scenario() -> tuple[str, str, dict[str, Any]]:
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            refused = failed(await client.call_tool("web_click", {"nodeSelector": hostile}))
            in_a_step = failed(
                await client.call_tool(
                    "step", {"objective": "click", "tools": [{"web_click": {"nodeSelector": hostile}}]}
                )
            )
            clear = {"web": {"ariaRole": "button", "ariaNameRegex": "Clear All"}}
            clicked = ok(await client.call_tool("web_click", {"nodeSelector": clear}))
        return refused, in_a_step, clicked

    refused, in_a_step, clicked = asyncio.run(scenario())
    for text in (refused, in_a_step):
        assert "nests more than 8 levels deep" in text and "TRAILBLAZE_MAX_SELECTOR_DEPTH" in text
    assert clicked["ok"] is True


def _ref(screen: str, text: str) -> str:
    for line in screen.splitlines():
        if text in line and "[e" in line:
            return line.rsplit("[", 1)[1].rstrip("]")
    raise AssertionError(f"{text!r} is not on the screen:\n{screen}")


PLUGIN = '''
import trailblaze


@trailblaze.tool(name="app_openForms", delegating=True, platforms=["web"])
async def open_forms(ctx: trailblaze.ToolContext, name: str = "") -> list[trailblaze.Delegate]:
    """Open the forms page and type a name (the app's own shortcut)."""
    calls = [trailblaze.Delegate("web_navigate", {"url": "/forms.html"})]
    if name:
        field = {"web": {"dataTestId": "name-input"}}
        calls.append(trailblaze.Delegate("web_type", {"text": name, "nodeSelector": field}))
    return calls


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(open_forms)
'''


def test_a_delegating_plugin_tool_records_what_it_delegated(project: Project, cli: CliRunner) -> None:
    project.write("app_tools.py", PLUGIN)
    project.write(
        "trailblaze.yaml",
        "base_url: sample-app\ntimeout: 5\nplugins: [app_tools]\ntargets:\n"
        "  other:\n    base_url: http://127.0.0.1:9/\n",
    )

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            tools = {t.name: t for t in (await client.list_tools()).tools}
            out["meta"] = tools["app_openForms"].meta
            out["call"] = ok(await client.call_tool("app_openForms", {"name": "Ada", "reason": "Open forms as Ada"}))
            out["save"] = ok(await client.call_tool("trail", {"action": "SAVE", "name": "delegated"}))
            out["target"] = ok(await client.call_tool("config", {"action": "SET", "key": "target", "value": "other"}))
            out["info"] = ok(await client.call_tool("device", {"action": "INFO"}))
            out["unreachable"] = failed(
                await client.call_tool("web_navigate", {"url": "/forms.html", "timeoutMs": 2000})
            )
        return out

    out = asyncio.run(scenario())
    assert out["meta"]["trailblaze/categories"] == ["APP"] and out["meta"]["trailblaze/isDelegating"] is True
    assert out["call"]["recorded"]["tools"] == [
        {"web_navigate": {"url": "/forms.html"}},
        {"web_type": {"text": "Ada", "nodeSelector": {"web": {"dataTestId": "name-input"}}}},
    ]
    assert out["call"]["recorded"]["text"] == "Open forms as Ada"
    assert out["target"]["changed"] is True and "connected again" in out["target"]["note"]
    assert out["info"]["target"] == "other"
    assert "127.0.0.1:9" in out["unreachable"]  # the target's base_url now applies
    assert "app_openForms" not in (project.root / "trails" / "delegated.trail.yaml").read_text(encoding="utf-8")
    assert cli("run", "trails/delegated.trail.yaml", cwd=project.root).returncode == 0


def test_secrets_given_as_variables_are_recorded_as_variables(project: Project) -> None:
    async def scenario() -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
        async with stdio(project.root, env={"SHOP_PASSWORD": "hunter2-secret"}) as client:
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            filled = ok(
                await client.call_tool(
                    "web_fillSecret",
                    {"value": "${SHOP_PASSWORD}", "nodeSelector": {"web": {"cssSelector": "#password"}}},
                )
            )
            screens = [
                ok(await client.call_tool("ask", {"question": "?"})),
                ok(await client.call_tool("ask", {"question": "?", "viewHierarchy": "FULL"})),
                ok(
                    await client.call_tool("step", {"objective": "look", "tools": "- web_snapshot: {screenName: form}"})
                ),
            ]
            ok(await client.call_tool("trail", {"action": "SAVE", "name": "secret"}))
            return filled, (project.root / "trails" / "secret.trail.yaml").read_text(encoding="utf-8"), screens

    filled, saved, screens = asyncio.run(scenario())
    assert "hunter2-secret" not in json.dumps(screens)
    assert 'textbox "Password" value=***' in screens[0]["screen"]  # masked where the page shows it
    assert filled["recorded"]["tools"][0]["web_fillSecret"]["value"] == "${SHOP_PASSWORD}"
    assert "hunter2-secret" not in json.dumps(filled) and "hunter2-secret" not in saved
    assert "${SHOP_PASSWORD}" in saved


# -- the transport: one JSON-RPC message per line --------------------------------------------------------------


def _raw_server(project: Project) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        server_command(["mcp"]),
        cwd=project.root,
        env=cli_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _serve_raw(project: Project, data: bytes, last_id: Any) -> tuple[int, list[dict[str, Any]], str]:
    """Send ``data`` to a real ``trailblaze mcp`` on stdin, read until the reply to ``last_id``,
    then close stdin (the end of the session) and collect the rest."""
    proc = _raw_server(project)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    replies: list[dict[str, Any]] = []
    try:
        proc.stdin.write(data)
        proc.stdin.flush()
        while not replies or replies[-1].get("id") != last_id:
            line = proc.stdout.readline()
            assert line, f"trailblaze mcp closed stdout: {proc.stderr.read().decode(errors='replace')}"
            replies.append(json.loads(line))
        proc.stdin.close()
        replies += [json.loads(line) for line in proc.stdout.read().splitlines() if line.strip()]
        stderr = proc.stderr.read().decode(errors="replace")
        return proc.wait(60), replies, stderr
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            pipe.close()


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


def test_malformed_messages_get_json_rpc_errors_and_the_session_goes_on(project: Project) -> None:
    data = b"".join(
        [
            b"this is not json\n",
            b"[" * 100_000 + b"\n",  # it would recurse in json.loads until Python's limit
            b'{"jsonrpc": "2.0", "id": 7}\n',  # no method
            b"[1, 2]\n",
            b"\n",  # blank lines are skipped
            b'{"jsonrpc": "2.0", "id": true, "method": "ping"}\n',
            b'{"jsonrpc": "1.0", "id": "old", "method": "ping"}\n',
            b'{"jsonrpc": "2.0", "id": 8, "method": 42}\n',
            b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": 5}\n',
            # too deep to parse, or broken, but the id is there to read: the client is not left waiting
            b'{"jsonrpc": "2.0", "method": "ping", "params": {"a": ' + b"[" * 150 + b"]" * 150 + b'}, "id": 11}\n',
            b'{"jsonrpc": "2.0", "id": "twelve", "method": "ping", "params": {"a": ' + b"{" * 100_000 + b"\n",
            b'{"jsonrpc": "2.0", "id": 13, "method": "ping", oops}\n',
            b'[{"id": 14}, ' + b"[" * 150 + b"\n",  # no object: no id
            _line(INITIALIZE),
            _line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            _line({"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {}}),
        ]
    )
    code, replies, stderr = _serve_raw(project, data, last_id=10)
    assert code == 0 and "Traceback" not in stderr, stderr
    errors = [(r["id"], r["error"]["code"]) for r in replies if "error" in r]
    assert errors == [
        (None, -32700),
        (None, -32700),
        (7, -32600),
        (None, -32600),
        (None, -32600),
        ("old", -32600),
        (8, -32600),
        (9, -32600),
        (11, -32700),
        ("twelve", -32700),
        (13, -32700),
        (None, -32700),
    ]
    messages = [r["error"]["message"] for r in replies if "error" in r]
    assert messages[0].startswith("Parse error: not JSON")
    assert "JSON nested more than 100 levels deep" in messages[1]
    assert 'a request has a "method" and an "id"' in messages[2]
    assert '"id" is a string or an integer' in messages[4]
    assert '"jsonrpc": "2.0"' in messages[5]
    assert "JSON nested more than 100 levels deep" in messages[8] and "TRAILBLAZE_MAX_YAML_DEPTH" in messages[8]
    results = {r["id"]: r["result"] for r in replies if "result" in r}
    assert results["init"]["serverInfo"]["name"] == "trailblaze"
    assert "device" in [t["name"] for t in results[10]["tools"]]


def test_a_request_nested_too_deep_is_answered_under_its_id(project: Project) -> None:
    """The SDK's client matches an error to its request by id: with ``id: null`` it would wait
    for its read timeout (-32001) instead."""

    async def scenario() -> MCPError:
        async with stdio(project.root, read_timeout_seconds=60) as client:
            try:
                await client.call_tool("device", {"action": "INFO", "detail": _nested(150)})
            except MCPError as exc:
                refused = exc
            ok(await client.call_tool("session", {"action": "INFO"}))  # the session goes on
            return refused

    refused = asyncio.run(scenario())
    assert refused.code == -32700 and "JSON nested more than 100 levels deep" in refused.message


def _nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_a_message_over_the_limit_is_an_error_and_exit_2(project: Project) -> None:
    from trailblaze.mcpserver.stdio import MAX_MESSAGE_BYTES

    start = _line(INITIALIZE) + b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "'
    proc = _raw_server(project)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        with contextlib.suppress(BrokenPipeError):  # the server stops reading once the line passes the limit
            proc.stdin.write(start + b"x" * (MAX_MESSAGE_BYTES + 1024))
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    replies = [json.loads(line) for line in out.decode().splitlines()]
    assert proc.returncode == 2, err
    assert replies[0]["id"] == "init"
    assert replies[-1]["id"] is None and replies[-1]["error"]["code"] == -32600
    assert "message too large" in replies[-1]["error"]["message"]
    stderr = err.decode()
    assert "longer than 64 MiB" in stderr and "Traceback" not in stderr, stderr


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_MESSAGE_KEYS = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0"]) | _JSON,
        "id": st.integers() | st.text(max_size=5) | _JSON,
        "method": st.sampled_from(["ping", "tools/list"]) | _JSON,
        "params": st.dictionaries(st.text(max_size=5), _JSON, max_size=2) | _JSON,
        "result": _JSON,
        "error": st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=5)}) | _JSON,
    },
)


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.one_of(st.text(max_size=40), _MESSAGE_KEYS.map(json.dumps), _JSON.map(json.dumps)))
def test_every_line_is_either_a_message_or_has_an_error_reply(line: str) -> None:
    """What the SDK's own parser takes passes; anything else gets a reply the client can match."""
    import mcp_types as types
    from pydantic import ValidationError

    from trailblaze.mcpserver.stdio import malformed

    problem = malformed(line)
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        sdk_takes = True
    except ValidationError:
        sdk_takes = False
    if problem is None:
        assert sdk_takes
        return
    request_id, code, message = problem
    assert code in (-32700, -32600) and message
    assert request_id is None or (isinstance(request_id, int | str) and not isinstance(request_id, bool))
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    assert json.loads(error.model_dump_json(by_alias=True))["error"]["code"] == code


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_connect_list_disconnect_prints_nothing(project: Project, tmp_path: Path, mode: str) -> None:
    """What a client does to see what a server offers, five times: every session ends as the
    client leaves, without a word on stderr (no "internal error", no crash log). ``auto`` is the
    SDK client's default (a ``server/discover`` probe first), ``legacy`` the handshake alone."""
    from mcp.client.stdio import stdio_client

    command = server_command(["mcp"])
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(project.root), env=cli_env())

    async def cycle(errlog: Any) -> list[str]:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=60) as client:
            return names(await client.list_tools())

    for number in range(5):
        log = tmp_path / f"stderr-{number}.txt"
        with log.open("w+", encoding="utf-8") as errlog:
            assert "device" in asyncio.run(cycle(errlog))
        assert log.read_text(encoding="utf-8") == "", f"cycle {number + 1}"
    assert not (project.root / ".trailblaze" / "logs").exists()
