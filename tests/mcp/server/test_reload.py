"""``toolbox(action=RELOAD)`` through the SDK's client over stdio: an agent edits the project's
YAML tools and its MCP toolset server, reloads, and calls the new tools — on the same page, with
the recording it had."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.server.support import Seen, failed, names, ok, stdio
from tests.support.cli import Project

pytestmark = pytest.mark.usefixtures("browser")

SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("reload-tools")


@server.tool()
def hello(name: str) -> str:
    return f"{GREETING} {name}"
{MORE}

server.run()
"""
BYE = """

@server.tool()
def bye(name: str) -> str:
    return f"bye {name}"
"""


def _tool_file(tool_id: str, url: str) -> str:
    return f"id: {tool_id}\ndescription: Open {url}.\ntools:\n  - web_navigate:\n      url: {url}\n"


def _server(greeting: str, more: str = "") -> str:
    return SERVER.replace("{GREETING}", greeting).replace("{MORE}", more)


def test_reload_reads_tool_files_and_restarts_servers_keeping_the_device(project: Project) -> None:
    marker = "mcp-reload"
    project.write("tools/server.py", _server("hello"))
    project.write("yaml-tools/open_forms.tool.yaml", _tool_file("open_forms", "/forms.html"))
    project.write(
        "trailblaze.yaml",
        "base_url: sample-app\ntimeout: 5\ntools: [yaml-tools]\nmcp_servers:\n  - script: tools/server.py\n",
    )
    seen = Seen()
    out: dict[str, Any] = {}

    async def scenario() -> None:
        env = {"TRAILBLAZE_TEST_MARKER": marker}
        async with stdio(project.root, env=env, message_handler=seen.handler) as client:
            out["device"] = ok(await client.call_tool("device", {"action": "WEB"}))
            ok(await client.call_tool("open_forms", {"reason": "Open the forms page"}))
            out["hello"] = ok(await client.call_tool("hello", {"name": "Ada", "reason": "Greet Ada"}))
            servers_before = _servers(marker)

            # the agent writes a new tool file, drops one, and changes its server
            project.write("yaml-tools/open_lists.tool.yaml", _tool_file("open_lists", "/lists.html"))
            (project.root / "yaml-tools" / "open_forms.tool.yaml").unlink()
            project.write("tools/server.py", _server("hi", BYE))
            changed = seen.count("notifications/tools/list_changed")
            out["reload"] = ok(await client.call_tool("toolbox", {"action": "RELOAD"}))
            out["announced"] = seen.count("notifications/tools/list_changed") - changed
            out["tools"] = names(await client.list_tools())
            registry = (await client.read_resource("trailblaze://registry")).contents[0]
            out["registry_size"] = len(json.loads(getattr(registry, "text", ""))["tools"])
            out["servers_after"] = _servers(marker)
            out["servers_before"] = servers_before
            out["url"] = ok(await client.call_tool("web_currentUrl", {}))  # the same page: the device stayed
            out["hi"] = ok(await client.call_tool("hello", {"name": "Ada", "reason": "Greet Ada again"}))
            out["bye"] = ok(await client.call_tool("bye", {"name": "Ada", "reason": "Say goodbye"}))
            ok(await client.call_tool("open_lists", {"reason": "Open the lists page"}))
            out["gone"] = failed(await client.call_tool("open_forms", {}))

            project.write("yaml-tools/broken.tool.yaml", "id: broken\ntools: not a list\n")
            out["broken"] = failed(await client.call_tool("toolbox", {"action": "RELOAD"}))
            out["still"] = names(await client.list_tools())
            out["info"] = ok(await client.call_tool("session", {"action": "INFO"}))

    asyncio.run(scenario())
    reload = out["reload"]
    assert reload["added"] == ["bye", "open_lists"] and reload["removed"] == ["open_forms"]
    assert reload["total"] == out["registry_size"] and reload["serversRestarted"] is True
    assert out["announced"] == 1
    assert {"bye", "open_lists"} <= set(out["tools"]) and "open_forms" not in out["tools"]
    assert "hello Ada" in str(out["hello"]["output"]) and "hi Ada" in str(out["hi"]["output"])
    assert "bye Ada" in str(out["bye"]["output"])
    assert str(out["url"]["output"]).endswith("/forms.html")
    assert "unknown tool 'open_forms'" in out["gone"]
    # the old server was shut down: as many server processes run as before
    assert len(out["servers_after"]) == len(out["servers_before"]) >= 1
    assert out["servers_after"] != out["servers_before"]  # a new server process, the old one gone
    assert "the tools were not reloaded (they are as they were)" in out["broken"]
    assert "broken.tool.yaml" in out["broken"]
    assert out["still"] == out["tools"]
    # the recording went on across the reload
    mine = ["Open the forms page", "Greet Ada", "Greet Ada again", "Say goodbye", "Open the lists page"]
    assert [s["text"] for s in out["info"]["steps"] if s["text"] in mine] == mine
    assert out["info"]["device"]["session"] == out["device"]["session"]


def test_reload_without_a_device_reads_the_tool_files(project: Project) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\ntools: [yaml-tools]\n")
    project.write("yaml-tools/open_forms.tool.yaml", _tool_file("open_forms", "/forms.html"))

    async def scenario() -> tuple[dict[str, Any], list[str]]:
        async with stdio(project.root) as client:
            assert "open_lists" not in names(await client.list_tools())
            project.write("yaml-tools/open_lists.tool.yaml", _tool_file("open_lists", "/lists.html"))
            reload = ok(await client.call_tool("toolbox", {"action": "RELOAD"}))
            return reload, names(await client.list_tools())

    reload, tools = asyncio.run(scenario())
    assert reload["added"] == ["open_lists"] and reload["removed"] == [] and reload["serversRestarted"] is False
    assert "no device is connected" in reload["message"] and "open_lists" in tools


WAITING_TOOL = """
import { writeFileSync } from "node:fs";
import { trailblaze } from "@trailblaze/scripting";

/** Says it started, then takes a few seconds. */
export const shop_wait = trailblaze.tool(async () => {
  writeFileSync(process.env.SHOP_STARTED ?? "started", "");
  await new Promise((resolve) => setTimeout(resolve, 3000));
  return "waited";
});
"""


def _waiting_trailmap(project: Project) -> None:
    project.write("trails/config/trailblaze.yaml", "targets: [shop]\n")
    project.write(
        "trails/config/trailmaps/shop/trailmap.yaml",
        "id: shop\ntarget:\n  display_name: Shop\n  tools: [shop_wait]\n  platforms:\n    web: {}\n",
    )
    project.write("trails/config/trailmaps/shop/tools/shop_wait.ts", WAITING_TOOL)


def test_reload_while_a_scripted_tool_runs_answers_both(project: Project) -> None:
    """RELOAD from the same client while a trailmap's TypeScript tool is in a call: the call gets
    its answer (RELOAD waits for it, or the answer names the restart), and so does RELOAD."""
    _waiting_trailmap(project)
    started = project.root / "started"
    out: dict[str, Any] = {}

    async def scenario() -> None:
        env = {"SHOP_STARTED": str(started)}
        async with stdio(project.root, "--target", "shop", env=env, read_timeout_seconds=120) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            with anyio.fail_after(180):
                call = asyncio.ensure_future(client.call_tool("shop_wait", {"reason": "Wait for the shop"}))
                while not started.exists():
                    assert not call.done(), call.result()
                    await asyncio.sleep(0.05)
                reload = asyncio.ensure_future(client.call_tool("toolbox", {"action": "RELOAD"}))
                out["call"], out["reload"] = await asyncio.gather(call, reload)
            started.unlink()
            out["again"] = ok(await client.call_tool("shop_wait", {}))

    asyncio.run(scenario())
    answer = out["call"]
    if answer.is_error:
        assert "RELOAD" in failed(answer) or "restart" in failed(answer)
    else:
        assert ok(answer)["output"] == "waited"
    assert ok(out["reload"])["serversRestarted"] is True
    assert out["again"]["output"] == "waited"


def _servers(marker: str) -> set[int]:
    """Process ids of the live toolset server processes (a server forked from the prefork helper
    shows the helper's command line)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"TRAILBLAZE_TEST_MARKER={marker}".encode() not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if state != "Z" and (b"server.py" in command or b"_zygote.py" in command):
            found.add(int(entry.name))
    return found
