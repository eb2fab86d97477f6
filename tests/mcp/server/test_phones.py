"""``trailblaze mcp`` on phones: the real uiautomator2/adbutils and facebook-wda clients against the
wire-level stand-ins, from ``device(action=ANDROID|IOS)`` to a saved trail that replays."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.mcp.server.support import failed, names, ok, stdio
from tests.standins.adb_host import AdbHostStandIn
from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import WdaStandIn
from tests.support.cli import CliRunner, Project


def test_android_session_saves_a_trail_that_replays(adb: AdbHostStandIn, project: Project, cli: CliRunner) -> None:
    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            out["list"] = ok(await client.call_tool("device", {"action": "LIST"}))
            out["connect"] = ok(await client.call_tool("device", {"action": "ANDROID"}))
            out["tools"] = names(await client.list_tools())
            out["apps"] = ok(await client.call_tool("device", {"action": "INFO", "detail": "APPS"}))
            ok(await client.call_tool("launchApp", {"appId": SAMPLE_APP, "reason": "Start the app"}))
            out["screen"] = ok(await client.call_tool("ask", {"question": "what is on screen?"}))["screen"]
            ok(
                await client.call_tool(
                    "step",
                    {
                        "objective": "Fill in the name and submit",
                        "tools": "- tapOnElementWithText: {text: Forms}\n"
                        "- tapOnElementBySelector: {selector: {containsChild: {textRegex: Name}}}\n"
                        "- inputText: {text: Ada}\n"
                        "- tapOnElementWithText: {text: Submit}",
                    },
                )
            )
            out["verify"] = ok(
                await client.call_tool(
                    "step",
                    {
                        "objective": "The result shows the name",
                        "hint": "VERIFY",
                        "tools": '- assertVisibleWithText: {text: "Name: Ada\\nEmail: "}',
                    },
                )
            )
            out["missing"] = failed(
                await client.call_tool("tapOnElementWithText", {"text": "No such button", "timeoutMs": 300})
            )
            out["save"] = ok(await client.call_tool("trail", {"action": "SAVE", "name": "android/form"}))
        return out

    out = asyncio.run(scenario())
    assert any(row.get("id") == "emulator-5554" for row in out["list"]["devices"])
    assert out["connect"]["id"] == "emulator-5554" and out["connect"]["driver"] == "android-uiautomator2"
    assert {"launchApp", "inputText", "tap", "swipe", "wait", "takeSnapshot"} <= set(out["tools"])  # a phone's own
    # the default profile leaves checks and navigation to toolbox; they are still called by name
    assert "assertVisible" not in out["tools"] and "pressBack" not in out["tools"]
    # not offered to LLMs (upstream's flag: they should tap refs), still callable, as in a recording
    assert "tapOnElementWithText" not in out["tools"] and "web_click" not in out["tools"]
    assert SAMPLE_APP in out["apps"]["apps"]
    assert "android.widget.TextView" in out["screen"] and "[n1]" in out["screen"]  # refs to act on
    assert out["verify"]["passed"] is True
    assert "No such button" in out["missing"] and "on screen" in out["missing"]
    saved = project.root / "trails" / "android" / "form.trail.yaml"
    assert out["save"]["file"] == "trails/android/form.trail.yaml"
    text = saved.read_text(encoding="utf-8")
    assert "    recording:\n      android:\n" in text and "launchApp: {appId: " in text
    result = cli("run", "trails/android/form.trail.yaml", "--driver", "android", cwd=project.root)
    assert result.returncode == 0, result.output


def test_ios_session_through_webdriveragent(wda_server: WdaStandIn, project: Project, cli: CliRunner) -> None:
    async def scenario() -> tuple[dict[str, Any], list[str], dict[str, Any]]:
        async with stdio(project.root) as client:
            connect = ok(await client.call_tool("device", {"action": "CONNECT", "deviceId": wda_server.url}))
            tools = names(await client.list_tools())
            ok(await client.call_tool("launchApp", {"appId": SAMPLE_APP, "launchMode": "FORCE_RESTART"}))
            ok(await client.call_tool("ask", {"question": "refs?"}))
            ok(await client.call_tool("tapOnElementWithText", {"text": "Forms", "reason": "Open the forms"}))
            save = ok(await client.call_tool("trail", {"action": "SAVE", "name": "ios-forms"}))
            return connect, tools, save

    connect, tools, save = asyncio.run(scenario())
    assert connect["driver"] == "ios-wda" and connect["id"] == wda_server.url
    assert "launchApp" in tools
    assert "      ios:\n" in (project.root / save["file"]).read_text(encoding="utf-8")
    result = cli("run", save["file"], "--driver", "ios", "--device", wda_server.url, cwd=project.root)
    assert result.returncode == 0, result.output


def test_no_phone_is_a_tool_error_not_a_dead_server(adb: AdbHostStandIn, project: Project, browser: str) -> None:
    async def scenario() -> tuple[str, str, dict[str, Any], str]:
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            ok(await client.call_tool("web_navigate", {"url": "/forms.html"}))
            missing = failed(await client.call_tool("device", {"action": "CONNECT", "deviceId": "no-such-phone"}))
            unreachable = failed(await client.call_tool("device", {"action": "IOS", "deviceId": "http://127.0.0.1:9"}))
            info = ok(await client.call_tool("device", {"action": "INFO"}))
            url = ok(await client.call_tool("web_currentUrl", {}))["output"]
            return missing, unreachable, info, str(url)

    missing, unreachable, info, url = asyncio.run(scenario())
    assert "no device 'no-such-phone' is reachable" in missing and "emulator-5554" in missing
    assert "cannot connect ios-wda http://127.0.0.1:9" in unreachable
    # a connection that failed left the browser connected, on the page it was on
    assert info["connected"] is True and info["driver"] == "playwright-native"
    assert url.endswith("/forms.html")
