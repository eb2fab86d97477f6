"""``trailblaze mcp --http``: Streamable HTTP through the SDK's client, and what a local HTTP
server must refuse (DNS rebinding, missing tokens, unknown sessions)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.mcp.server.support import failed, http_server, names, ok
from tests.support.cli import CliRunner, Project, processes_with

pytestmark = pytest.mark.usefixtures("browser")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_two_clients_get_their_own_sessions_and_devices(project: Project, cli: CliRunner) -> None:
    with http_server(project.root, env={"TRAILBLAZE_TEST_MARKER": "mcp-http-sessions"}) as server:

        async def scenario() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with (
                Client(server.url, mode="legacy", read_timeout_seconds=60) as first,
                Client(server.url, mode="auto", read_timeout_seconds=60) as second,
            ):
                out["first"] = ok(await first.call_tool("device", {"action": "WEB"}))
                ok(await first.call_tool("web_navigate", {"url": "/forms.html", "reason": "first's step"}))
                out["second_info"] = ok(await second.call_tool("session", {"action": "INFO"}))
                out["first_info"] = ok(await first.call_tool("session", {"action": "INFO"}))
                ok(await second.call_tool("device", {"action": "WEB"}))
                out["verify"] = ok(
                    await first.call_tool(
                        "step",
                        {
                            "objective": "The forms page shows",
                            "hint": "VERIFY",
                            "tools": "- web_verifyTextVisible: {text: Forms}",
                        },
                    )
                )
                out["save"] = ok(await first.call_tool("trail", {"action": "SAVE", "name": "over-http"}))
                async with httpx.AsyncClient() as http:
                    out["ping"] = (await http.get(f"{server.base}/ping")).json()
            return out

        out = asyncio.run(scenario())
        assert out["first"]["platform"] == "web"
        assert out["second_info"]["steps"] == [] and out["second_info"]["device"] is None
        assert [s["text"] for s in out["first_info"]["steps"]] == ["first's step"]
        assert out["ping"]["status"] == "ok" and out["ping"]["sessions"] == 2
        assert out["verify"]["passed"] is True and out["save"]["steps"] == 2
        assert cli("run", out["save"]["file"], cwd=project.root).returncode == 0
        # both clients have gone (their sessions were deleted): so have their browsers
        _wait_for(lambda: not [p for p in processes_with("mcp-http-sessions") if "chrom" in p])


def test_refuses_foreign_hosts_origins_missing_tokens_and_unknown_sessions(project: Project) -> None:
    with http_server(project.root, "--token", "s3cret") as server:
        auth = {"Authorization": "Bearer s3cret"}
        with httpx.Client(timeout=30) as http:
            assert http.get(f"{server.base}/ping").json()["status"] == "ok"  # health checks need no token
            assert http.post(server.url, json=INITIALIZE, headers=ACCEPT).status_code == 401
            wrong = {**ACCEPT, "Authorization": "Bearer guess"}
            assert http.post(server.url, json=INITIALIZE, headers=wrong).status_code == 401
            rebound = http.post(server.url, json=INITIALIZE, headers={**ACCEPT, **auth, "Host": "attacker.example"})
            assert rebound.status_code == 421
            cross = http.post(
                server.url, json=INITIALIZE, headers={**ACCEPT, **auth, "Origin": "http://attacker.example"}
            )
            assert cross.status_code == 403
            evil_local_port = {**ACCEPT, **auth, "Origin": "http://localhost.attacker.example:3000"}
            assert http.post(server.url, json=INITIALIZE, headers=evil_local_port).status_code == 403
            local_origin = {**ACCEPT, **auth, "Origin": server.base}
            opened = http.post(server.url, json=INITIALIZE, headers=local_origin)
            assert opened.status_code == 200 and opened.headers["mcp-session-id"]
            # tools change with the device and the mode: the server says so, as over stdio
            assert '"listChanged":true' in opened.text.replace(" ", "")
            # names in any case, and a page of a local dev server on another port
            port = server.base.rsplit(":", 1)[1]
            other_local = {**ACCEPT, **auth, "Host": f"LocalHost:{port}", "Origin": "http://localhost:3000"}
            assert http.post(server.url, json=INITIALIZE, headers=other_local).status_code == 200
            unknown = {**ACCEPT, **auth, "Mcp-Session-Id": "no-such-session", "MCP-Protocol-Version": "2025-11-25"}
            listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
            assert http.post(server.url, json=listing, headers=unknown).status_code == 404

        async def with_token() -> list[str]:
            async with (
                httpx2.AsyncClient(headers=auth, timeout=60) as client_http,
                Client(streamable_http_client(server.url, http_client=client_http), read_timeout_seconds=60) as client,
            ):
                return names(await client.list_tools())

        assert asyncio.run(with_token())[0] == "device"


def test_http_options_that_would_expose_devices(cli: CliRunner, project: Project) -> None:
    exposed = cli("mcp", "--http", "--host", "0.0.0.0", cwd=project.root)
    assert exposed.returncode == 3
    assert "--host 0.0.0.0 lets other machines drive your devices: give --token" in exposed.stderr
    assert "Traceback" not in exposed.stderr
    empty = cli("mcp", "--http", "--token", "  ", cwd=project.root)
    assert empty.returncode == 3 and "--token is empty" in empty.stderr


def test_a_busy_port_is_a_clear_error(cli: CliRunner, project: Project) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = cli("mcp", "--http", "--port", str(port), cwd=project.root)
    assert result.returncode == 3
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "Traceback" not in result.stderr


def _wait_for(condition: Any, timeout: float = 20) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.2)


def test_bad_options_and_config_stop_before_serving(cli: CliRunner, project: Project) -> None:
    project.write("trailblaze.yaml", "timeout: soon\n")
    broken = cli("mcp", cwd=project.root)
    assert broken.returncode == 3 and "trailblaze.yaml:1:10: timeout:" in broken.stderr
    project.write("trailblaze.yaml", "timeout: 5\n")
    driver = cli("mcp", "--driver", "fax", cwd=project.root)
    assert driver.returncode == 3 and "unknown driver 'fax'" in driver.stderr
    target = cli("mcp", "--target", "shop", cwd=project.root)
    assert target.returncode == 3 and "unknown target 'shop'" in target.stderr
    assert "Traceback" not in broken.stderr + driver.stderr + target.stderr


def test_a_loopback_host_is_served_on_the_url_it_prints(project: Project) -> None:
    with http_server(project.root, "--host", "127.0.0.2") as server:  # it answered 421 on its own URL
        assert server.base.startswith("http://127.0.0.2:")
        with httpx.Client(timeout=30) as http:
            assert http.get(f"{server.base}/ping").json()["status"] == "ok"
            opened = http.post(server.url, json=INITIALIZE, headers=ACCEPT)
            assert opened.status_code == 200 and opened.headers["mcp-session-id"]
            foreign = http.post(server.url, json=INITIALIZE, headers={**ACCEPT, "Host": "attacker.example"})
            assert foreign.status_code == 421


def test_sessions_beyond_max_sessions_get_a_message_not_a_browser(project: Project) -> None:
    """Thirty sessions started thirty-one browsers (7.4 GB)."""
    marker = "mcp-max-sessions"
    with http_server(project.root, "--max-sessions", "1", env={"TRAILBLAZE_TEST_MARKER": marker}) as server:

        async def scenario() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with Client(server.url, mode="legacy", read_timeout_seconds=60) as second:
                async with Client(server.url, mode="legacy", read_timeout_seconds=60) as first:
                    ok(await first.call_tool("device", {"action": "WEB"}))
                    out["refused"] = failed(await second.call_tool("device", {"action": "WEB"}))
                    out["browsers"] = len(_browsers(marker))
                # the first client has gone: its device is given back, for another session
                for _ in range(100):
                    again = await second.call_tool("device", {"action": "WEB"})
                    if not again.is_error:
                        out["second"] = ok(again)
                        break
                    await asyncio.sleep(0.2)
            return out

        out = asyncio.run(scenario())
        assert "this server already drives 1 devices, its maximum (--max-sessions 1)" in out["refused"]
        assert out["browsers"] == 1
        assert out["second"]["platform"] == "web"


def _browsers(marker: str) -> list[str]:
    """The browsers (their main processes) started with ``marker`` in their environment."""
    return [p for p in processes_with(marker) if "--remote-debugging-pipe" in p and "--type=" not in p]


def _nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_a_request_nested_too_deep_is_refused_under_its_id(project: Project) -> None:
    """JSON from clients is bounded as over stdio (``TRAILBLAZE_MAX_YAML_DEPTH``), and the error
    carries the request's id when it can be read."""
    deep = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "device", "arguments": {}}}
    deep["params"]["arguments"] = {"action": "INFO", "detail": _nested(150)}
    with http_server(project.root) as server:
        with httpx.Client(timeout=30) as http:
            answers = [
                http.post(server.url, content=json.dumps(deep), headers=ACCEPT),
                http.post(server.url, content=json.dumps(deep)[:-1] + "[" * 100_000, headers=ACCEPT),
            ]

        async def scenario() -> tuple[MCPError, dict[str, Any]]:
            async with Client(server.url, mode="legacy", read_timeout_seconds=60) as client:
                try:
                    await client.call_tool("device", {"action": "INFO", "detail": _nested(150)})
                except MCPError as exc:
                    refused = exc
                return refused, ok(await client.call_tool("session", {"action": "INFO"}))

        refused, info = asyncio.run(scenario())
    for answer in answers:
        assert answer.status_code == 400 and answer.headers["content-type"].startswith("application/json")
        body = answer.json()
        assert body["id"] == 7 and body["error"]["code"] == -32700, body
        assert "JSON nested more than 100 levels deep" in body["error"]["message"]
    assert refused.code == -32700 and "TRAILBLAZE_MAX_YAML_DEPTH" in refused.message
    assert info["steps"] == []
