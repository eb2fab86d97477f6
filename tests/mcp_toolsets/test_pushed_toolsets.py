"""A tool a server pushes into a toolset (``_meta["trailblaze/toolset"]``, seed 003) is offered —
to trailblaze's agent and to an MCP client — only where that toolset is enabled."""

from __future__ import annotations

import asyncio

import pytest

from tests.fake_openai import FakeOpenAI, Reply
from tests.mcp.server.support import ok, stdio
from tests.support.cli import Project

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("pushed", version="1.0.0")


@server.tool(name="checkout_pay", meta={"trailblaze/toolset": "checkout"})
async def checkout_pay() -> str:
    """Pays; pushed into the checkout toolset."""
    return "paid"


@server.tool(name="app_ping")
async def app_ping() -> str:
    """In no toolset."""
    return "pong"


if __name__ == "__main__":
    server.run()
'''


def _offered(project: Project, tool_sets: str) -> tuple[set[str], set[str]]:
    """What the client's tools/list and trailblaze's agent are offered with root ``tool_sets``."""
    with FakeOpenAI([Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})])]) as fake:
        project.write(
            "trailblaze.yaml",
            f"base_url: sample-app\ntimeout: 5\n{tool_sets}mcp_servers:\n  - script: pushed.py\n"
            f"llm:\n  base_url: {fake.url}\n  model: scripted-model\n",
        )

        async def scenario() -> set[str]:
            async with stdio(project.root, "--profile", "ALL") as client:
                ok(await client.call_tool("device", {"action": "WEB"}))
                listed = {t.name for t in (await client.list_tools()).tools}
                value = {"action": "SET", "key": "mode", "value": "TRAILBLAZE_AS_AGENT"}
                ok(await client.call_tool("config", value))
                ok(await client.call_tool("step", {"objective": "Look around"}))
                return listed

        listed = asyncio.run(scenario())
        agent: set[str] = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    return listed, agent


def test_a_pushed_tool_is_offered_only_where_its_toolset_is_enabled(project: Project) -> None:
    (project.root / "pushed.py").write_text(SERVER, encoding="utf-8")
    listed, agent = _offered(project, "tool_sets: [memory]\n")
    for offered in (listed, agent):
        assert "checkout_pay" not in offered  # pushed into checkout, which the session does not name
        assert {"app_ping", "rememberText"} <= offered
    listed, agent = _offered(project, "tool_sets: [memory, checkout]\n")
    assert "checkout_pay" in listed and "checkout_pay" in agent
    listed, agent = _offered(project, "")  # a session that names no toolset is offered everything
    assert "checkout_pay" in listed and "checkout_pay" in agent
