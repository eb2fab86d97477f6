"""MCP resources of ``trailblaze mcp``: listed, read and announced as changed, through the SDK's
client over stdio and over Streamable HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from conftest import Project
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.mcp.server.support import Seen, http_server, ok, stdio

pytestmark = pytest.mark.usefixtures("browser")

FIXED = [
    "trailblaze://about",
    "trailblaze://config",
    "trailblaze://registry",
    "trailblaze://tools/categories",
    "trailblaze://devices/connected",
    "trailblaze://trails",
]
TRAIL = "config: {title: Checkout}\ntrail:\n  - step: Pay\n"


async def _read(client: Client, uri: str) -> str:
    contents = (await client.read_resource(uri)).contents[0]
    return str(getattr(contents, "text", ""))


async def _refused(client: Client, uri: str) -> MCPError:
    try:
        await client.read_resource(uri)
    except MCPError as exc:
        return exc
    raise AssertionError(f"{uri} was read")


def test_resources_describe_the_session_the_tools_and_the_trails(project: Project) -> None:
    project.write("trails/web/checkout.trail.yaml", TRAIL)
    project.write("trails/a b é.trail.yaml", "config: {title: Spaced}\ntrail:\n  - step: Look\n")
    seen = Seen()

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root, message_handler=seen.handler) as client:
            out["capabilities"] = client.server_capabilities
            out["list"] = (await client.list_resources()).resources
            out["config"] = json.loads(await _read(client, "trailblaze://config"))
            out["device_before"] = json.loads(await _read(client, "trailblaze://devices/connected"))
            ok(await client.call_tool("device", {"action": "WEB"}))
            out["device"] = json.loads(await _read(client, "trailblaze://devices/connected"))
            out["registry"] = json.loads(await _read(client, "trailblaze://registry"))
            ok(await client.call_tool("toolbox", {"action": "PROFILE", "profile": "MINIMAL"}))
            out["registry_minimal"] = json.loads(await _read(client, "trailblaze://registry"))
            out["categories"] = await _read(client, "trailblaze://tools/categories")
            out["about"] = await _read(client, "trailblaze://about")
            out["trails"] = json.loads(await _read(client, "trailblaze://trails"))
            out["checkout"] = await _read(client, "trailblaze://trails/web/checkout.trail.yaml")
            out["spaced"] = await _read(client, next(t["uri"] for t in out["trails"] if t["title"] == "Spaced"))
            out["outside"] = await _refused(client, "trailblaze://trails/../trailblaze.yaml")
            out["not_a_trail"] = await _refused(client, "trailblaze://trails/nope.trail.yaml")
            out["unknown"] = await _refused(client, "trailblaze://nothing")
            before = seen.count("notifications/resources/list_changed")
            ok(await client.call_tool("web_navigate", {"url": "/forms.html", "reason": "Open the forms page"}))
            ok(await client.call_tool("trail", {"action": "SAVE", "name": "forms"}))
            out["new_trail_announced"] = seen.count("notifications/resources/list_changed") - before
            ok(await client.call_tool("trail", {"action": "SAVE", "name": "forms"}))  # the same file again
            out["saved_again_announced"] = seen.count("notifications/resources/list_changed") - before
            out["list_after"] = [r.uri for r in (await client.list_resources()).resources]
        return out

    out = asyncio.run(scenario())
    resources = out["capabilities"].resources
    assert resources is not None and resources.list_changed is True
    listed = {str(r.uri): r for r in out["list"]}
    assert list(listed)[: len(FIXED)] == FIXED
    checkout = listed["trailblaze://trails/web/checkout.trail.yaml"]
    assert checkout.title == "Checkout" and checkout.name == "web/checkout" and checkout.mime_type == "application/yaml"
    assert "trailblaze://trails/a%20b%20%C3%A9.trail.yaml" in listed

    config = out["config"]
    assert {s["key"] for s in config["settings"]} >= {"mode", "target", "llmCallStrategy"}
    assert config["currentValues"]["mode"] == "MCP_CLIENT_AS_AGENT"
    assert config["enabledCategories"] == ["APP", "CORE_INTERACTION", "OBSERVATION"]  # the DEFAULT profile
    assert out["device_before"]["connected"] is False
    assert out["device"]["connected"] is True and out["device"]["platform"] == "web"

    registry = out["registry"]
    click = registry["tools"]["web_click"]
    assert click["source"] == "web_playwright" and click["isRecordable"] is True and click["offered"] is True
    assert "CORE_INTERACTION" in click["categories"] and "inputSchema" not in click
    assert registry["tools"]["web_verifyTextVisible"]["categories"] == ["VERIFICATION"]
    assert registry["serverInfo"]["name"] == "trailblaze" and registry["connected"] is True
    assert registry["driver"] == "playwright-native"
    assert all(set(info) == {"defaultEnabled", "tools"} for info in registry["groups"].values())
    # the registry follows the toolbox: DEFAULT offers the snapshot, MINIMAL no longer does
    assert registry["tools"]["web_verifyTextVisible"]["offered"] is False
    assert registry["tools"]["web_snapshot"]["offered"] is True
    assert out["registry_minimal"]["tools"]["web_snapshot"]["offered"] is False

    assert "## VERIFICATION" in out["categories"] and "web_verifyTextVisible" in out["categories"]
    assert "- MINIMAL: CORE_INTERACTION" in out["categories"]
    assert "trailblaze://registry" in out["about"] and "device(action=WEB)" in out["about"]
    assert {"name": "web/checkout", "file": "trails/web/checkout.trail.yaml", "title": "Checkout"}.items() <= next(
        t for t in out["trails"] if t["name"] == "web/checkout"
    ).items()
    assert out["checkout"] == TRAIL and "step: Look" in out["spaced"]
    assert out["outside"].code == -32002 and "no trail '../trailblaze.yaml'" in out["outside"].message
    assert out["not_a_trail"].code == -32002
    assert out["unknown"].code == -32002 and "resources/list lists them" in out["unknown"].message
    assert out["new_trail_announced"] == 1 and out["saved_again_announced"] == 1
    assert "trailblaze://trails/forms.trail.yaml" in out["list_after"]


def test_the_list_comes_in_pages(project: Project) -> None:
    for number in range(105):
        project.write(f"trails/t{number:03d}.trail.yaml", TRAIL)

    async def scenario() -> tuple[list[Any], list[Any], str | None, MCPError]:
        async with stdio(project.root) as client:
            first = await client.list_resources()
            second = await client.list_resources(cursor=first.next_cursor)
            try:
                await client.list_resources(cursor="page-two")
            except MCPError as exc:
                bad = exc
            return first.resources, second.resources, second.next_cursor, bad

    first, second, last_cursor, bad = asyncio.run(scenario())
    assert len(first) == 100 and len(second) == 11 and last_cursor is None  # 6 fixed and 105 trails
    assert str(second[-1].uri) == "trailblaze://trails/t104.trail.yaml"
    assert bad.code == -32602 and "invalid cursor 'page-two'" in bad.message


def test_resources_over_http(project: Project) -> None:
    project.write("trails/checkout.trail.yaml", TRAIL)
    with http_server(project.root) as server:

        async def scenario() -> tuple[list[str], str, dict[str, Any]]:
            async with Client(server.url, mode="legacy", read_timeout_seconds=60) as client:
                listed = [str(r.uri) for r in (await client.list_resources()).resources]
                trail = await _read(client, "trailblaze://trails/checkout.trail.yaml")
                config = json.loads(await _read(client, "trailblaze://config"))
                return listed, trail, config

        listed, trail, config = asyncio.run(scenario())
    assert listed == [*FIXED, "trailblaze://trails/checkout.trail.yaml"]
    assert trail == TRAIL and config["session"].startswith("mcp-")
