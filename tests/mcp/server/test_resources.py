"""MCP resources of ``trailblaze mcp``: listed, read and announced as changed, through the SDK's
client over stdio and over Streamable HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.mcp.server.support import Seen, failed, http_server, ok, stdio
from tests.support.cli import Project

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


def test_a_link_out_of_the_trails_folder_leaves_the_list_whole_and_shows_no_absolute_path(project: Project) -> None:
    project.write("trails/checkout.trail.yaml", TRAIL)
    outside = project.write("elsewhere/linked.trail.yaml", TRAIL)
    (project.root / "trails" / "linked.trail.yaml").symlink_to(outside)
    (project.root / "trails" / "loop").symlink_to(project.root / "trails")  # a link back into its own folder

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            out["list"] = [str(r.uri) for r in (await client.list_resources()).resources]
            out["trails"] = json.loads(await _read(client, "trailblaze://trails"))
            out["linked"] = await _refused(client, "trailblaze://trails/linked.trail.yaml")
            out["tool_list"] = ok(await client.call_tool("trail", {"action": "LIST"}))
            out["nul_file"] = failed(await client.call_tool("trail", {"action": "RUN", "file": "trails/a\x00b"}))
        return out

    out = asyncio.run(scenario())
    assert out["list"] == [*FIXED, "trailblaze://trails/checkout.trail.yaml"]
    assert [t["name"] for t in out["trails"]] == ["checkout"]
    assert out["linked"].code == -32002 and "no trail 'linked.trail.yaml'" in out["linked"].message
    # trail(action=LIST) lists what `trailblaze run trails/` runs, named as below the trails folder
    assert {t["name"] for t in out["tool_list"]["trails"]} == {"checkout", "linked"}
    assert "a file's name holds no NUL character" in out["nul_file"] and "internal error" not in out["nul_file"]
    everything = json.dumps(out, default=str) + out["linked"].message
    assert str(project.root) not in everything and str(project.root.resolve()) not in everything


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_resource_request_gets_a_json_rpc_error_with_its_id(project: Project, transport: str) -> None:
    """What the SDK's client gets is matched to its request by id (an answer with another id
    would leave it waiting for its read timeout), and carries a JSON-RPC code, never 0."""
    project.write("trails/checkout.trail.yaml", TRAIL)

    async def scenario(client: Client) -> dict[str, MCPError]:
        refused: dict[str, MCPError] = {}
        for name, request in (
            ("nul", lambda: client.read_resource("trailblaze://trails/check%00out.trail.yaml")),
            ("superscript cursor", lambda: client.list_resources(cursor="²")),
            ("long cursor", lambda: client.list_resources(cursor="9" * 5000)),
        ):
            try:
                await request()
            except MCPError as exc:
                refused[name] = exc
        refused["after"] = await _refused(client, "trailblaze://nothing")  # the session goes on
        return refused

    async def over_stdio() -> dict[str, MCPError]:
        async with stdio(project.root, read_timeout_seconds=60) as client:
            return await scenario(client)

    async def over_http(url: str) -> dict[str, MCPError]:
        async with Client(url, mode="legacy", read_timeout_seconds=60) as client:
            return await scenario(client)

    if transport == "stdio":
        refused = asyncio.run(over_stdio())
    else:
        with http_server(project.root) as server:
            refused = asyncio.run(over_http(server.url))
    assert set(refused) == {"nul", "superscript cursor", "long cursor", "after"}
    assert refused["nul"].code == -32602 and "NUL" in refused["nul"].message
    assert (
        refused["superscript cursor"].code == -32602 and "invalid cursor '²'" in refused["superscript cursor"].message
    )
    assert refused["long cursor"].code == -32602 and "invalid cursor" in refused["long cursor"].message
    assert refused["after"].code == -32002
