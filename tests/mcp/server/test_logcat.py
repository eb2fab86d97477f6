"""``logcat`` through the SDK's client over stdio, on the real uiautomator2/adbutils clients talking
to the adb stand-in: the log goes over the wire as ``logcat -d`` would bring it."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from tests.mcp.server.support import failed, names, ok, stdio
from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import Project


def test_query_and_assert_on_the_log_since_the_device_connected(
    adb: AdbHostStandIn, phone: FakeAndroid, project: Project
) -> None:
    phone.add_log("UserJourney", "UJ_SIGNAL friction from an earlier run", at=time.time() - 3600)
    out: dict[str, Any] = {}

    async def scenario() -> None:
        async with stdio(project.root) as client:

            async def logcat(**arguments: Any) -> dict[str, Any]:
                return ok(await client.call_tool("logcat", arguments))

            out["no_device"] = failed(await client.call_tool("logcat", {"action": "QUERY", "pattern": "x"}))
            out["before"] = names(await client.list_tools())
            ok(await client.call_tool("device", {"action": "ANDROID"}))
            out["after"] = names(await client.list_tools())
            ok(await client.call_tool("launchApp", {"appId": SAMPLE_APP}))
            phone.add_log("UserJourney", "UJ_SIGNAL friction at checkout", "D")
            phone.add_log("OkHttp", "<-- 500 https://api.example.com/pay (12ms)", "W")
            phone.add_log("Analytics", "UJ_SIGNAL logged under another tag")
            out["tagged"] = await logcat(action="QUERY", pattern="UJ_SIGNAL", tag="UserJourney")
            out["untagged"] = await logcat(action="query", pattern="UJ_SIGNAL")
            out["started"] = await logcat(action="QUERY", pattern=r"START u0 \{cmp=xyz\.block\.trailblaze")
            out["limited"] = await logcat(action="QUERY", pattern=".", limit=2)
            out["held"] = await logcat(action="ASSERT", pattern="<-- 5\\d\\d", message="A request failed")
            out["not_held"] = await logcat(action="ASSERT", pattern="http-status.*500", message="Frustration signal")
            out["bad_regex"] = failed(await client.call_tool("logcat", {"action": "QUERY", "pattern": "(unclosed"}))
            out["no_pattern"] = failed(await client.call_tool("logcat", {"action": "ASSERT"}))
            out["bad_limit"] = failed(await client.call_tool("logcat", {"action": "QUERY", "pattern": ".", "limit": 0}))
            out["info"] = ok(await client.call_tool("session", {"action": "INFO"}))

    asyncio.run(scenario())
    assert "connect one first with device(action=ANDROID)" in out["no_device"]
    assert "logcat" not in out["before"] and "logcat" in out["after"]
    tagged = out["tagged"]
    assert tagged["totalMatches"] == 1
    assert tagged["matches"][0].endswith(" D UserJourney: UJ_SIGNAL friction at checkout")
    # the earlier run's line is before the device connected: never read
    assert [m.split(": ", 1)[1] for m in out["untagged"]["matches"]] == [
        "UJ_SIGNAL friction at checkout",
        "UJ_SIGNAL logged under another tag",
    ]
    assert out["started"]["totalMatches"] == 1
    limited = out["limited"]
    assert len(limited["matches"]) == 2 and limited["totalMatches"] == 4 and "(the first 2)" in limited["message"]
    held = out["held"]
    assert held["passed"] is True and "OkHttp  : <-- 500 https://api.example.com/pay" in held["matchedLine"]
    assert held["message"] == "PASSED: A request failed"
    not_held = out["not_held"]
    assert not_held["passed"] is False and not_held["matchedLine"] is None
    assert not_held["message"] == "FAILED: Frustration signal (no line of the log matches)"
    assert "pattern: invalid regex '(unclosed'" in out["bad_regex"]
    assert "pattern: required" in out["no_pattern"] and "limit:" in out["bad_limit"]
    # not recorded: the launch is the only step
    assert [next(iter(t)) for s in out["info"]["steps"] for t in s["tools"]] == ["launchApp"]
    # what went over the wire: a dump from the moment the device connected
    dumps = [what for kind, what in phone.calls if kind == "shell" and what.startswith("logcat")]
    assert dumps and all(d.startswith("logcat -d -v epoch -v printable -t ") for d in dumps)
    since = re.search(r" -t (\d+\.\d{3})\b", dumps[0])
    assert since is not None and time.time() - 600 < float(since.group(1)) < time.time()


def test_a_device_without_logcat_is_an_error_not_a_match(
    adb: AdbHostStandIn, phone: FakeAndroid, project: Project
) -> None:
    """The shell's own "logcat: not found" is what the device said, not a log line: QUERY and
    ASSERT are errors that say so, and a pattern that would match the shell's message matches nothing."""
    phone.missing_commands.add("logcat")
    out: dict[str, Any] = {}

    async def scenario() -> None:
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "ANDROID"}))
            out["query"] = await client.call_tool("logcat", {"action": "QUERY", "pattern": "not found"})
            out["assert"] = await client.call_tool("logcat", {"action": "ASSERT", "pattern": "logcat"})

    asyncio.run(scenario())
    for result in out.values():
        message = failed(result)
        assert "logcat failed on the device (exit code 127)" in message and "logcat: not found" in message
