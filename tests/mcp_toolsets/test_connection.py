"""Connections to real server processes, and every fault they can have."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from trailblaze.core.errors import InfrastructureError, Location
from trailblaze.mcpclient import stdio as stdio_transport
from trailblaze.mcpclient.connection import Connection
from trailblaze.mcpclient.declarations import ServerDecl

from .conftest import SERVERS, alive

pytestmark = pytest.mark.anyio


def stdio(probe: Path, *args: str, timeout_s: float = 10, startup_timeout_s: float = 20) -> ServerDecl:
    return ServerDecl(
        "probe",
        Location("trailblaze.yaml", 3, 5),
        "project",
        "stdio",
        timeout_s,
        startup_timeout_s,
        command=sys.executable,
        args=(str(probe), *args),
        cwd=str(probe.parent),
    )


@pytest.fixture
async def connections(tmp_path: Path) -> AsyncIterator[list[Connection]]:
    opened: list[Connection] = []
    try:
        yield opened
    finally:
        for connection in opened:
            await connection.close()


async def _start(connections: list[Connection], decl: ServerDecl, tmp_path: Path) -> Connection:
    connection = Connection(decl, dict(os.environ), tmp_path / "logs" / f"{decl.label}.stderr.log")
    connections.append(connection)
    await connection.start()
    return connection


async def test_connects_lists_tools_and_calls(probe: Path, tmp_path: Path, connections: list[Connection]) -> None:
    connection = await _start(connections, stdio(probe), tmp_path)
    names = {t.name for t in connection.tools}
    assert {"report", "delegate", "meta_all"} <= names
    assert connection.server_name == "probe"
    result = await connection.call("report", {"note": "x"}, {"trailblazeInvocationId": "inv-1"})
    assert not result.is_error
    await connection.close()
    assert connection.transport is not None
    assert connection.transport.returncode is not None  # the process is gone
    assert not alive(connection.transport.pid or 0)


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("", "'' (empty)"),
        ("a\nb", "'a\\nb'"),
        ("../x", "'../x'"),
        ("a b", "'a b'"),
        ("x" * 10_000, f"{'x' * 60!r}… (10000 characters)"),
    ],
)
async def test_a_tool_name_mcp_does_not_allow_is_refused_naming_server_and_tool(
    tmp_path: Path, connections: list[Connection], name: str, shown: str
) -> None:
    """An LLM API refuses a request that offers such a name: every agent call would fail."""
    decl = stdio(SERVERS / "named.py", json.dumps(["fine", name]))
    with pytest.raises(InfrastructureError) as info:
        await _start(connections, decl, tmp_path)
    assert str(info.value) == (
        f"MCP server probe (project, trailblaze.yaml:3:5) lists a tool named {shown}, which is not a valid MCP tool "
        "name (1 to 128 characters of A-Z, a-z, 0-9, '_', '.' and '-'): rename it in the server"
    )
    assert len(str(info.value)) < 400


async def test_a_tool_listed_twice_is_refused(tmp_path: Path, connections: list[Connection]) -> None:
    decl = stdio(SERVERS / "named.py", json.dumps(["echo", "echo"]))
    with pytest.raises(InfrastructureError, match="lists the tool 'echo' twice: tool names must be unique"):
        await _start(connections, decl, tmp_path)


async def test_names_mcp_allows_are_kept_as_the_server_wrote_them(
    tmp_path: Path, connections: list[Connection]
) -> None:
    names = ["bank.signIn", "a-b_c", "x" * 128]
    connection = await _start(connections, stdio(SERVERS / "named.py", json.dumps(names)), tmp_path)
    assert [t.name for t in connection.tools] == names
    assert (await connection.call("bank.signIn", {}, {})).content[0].text == "called bank.signIn"  # type: ignore[union-attr]


async def test_command_not_found(tmp_path: Path, connections: list[Connection]) -> None:
    decl = ServerDecl("ghost", Location("trailblaze.yaml", 2, 5), "project", "stdio", 5, 5, command="/no/such/server")
    with pytest.raises(InfrastructureError) as info:
        await _start(connections, decl, tmp_path)
    assert str(info.value) == (
        "cannot start MCP server ghost (project, trailblaze.yaml:2:5): command not found: /no/such/server"
    )


async def test_crash_at_start_reports_the_exit_code_and_the_stderr_tail(
    probe: Path, tmp_path: Path, connections: list[Connection]
) -> None:
    with pytest.raises(InfrastructureError) as info:
        await _start(connections, stdio(probe, "--mode", "crash-at-start"), tmp_path)
    message = str(info.value)
    assert (
        "MCP server probe (project, trailblaze.yaml:3:5) exited with code 4 before completing the MCP handshake"
        in message
    )
    assert "  | probe: cannot start, the configuration is missing" in message
    log = tmp_path / "logs" / "probe.stderr.log"
    assert f"(full log: {log})" in message
    assert "configuration is missing" in log.read_text()


async def test_garbage_on_stdout_is_named(probe: Path, tmp_path: Path, connections: list[Connection]) -> None:
    start = time.monotonic()
    with pytest.raises(InfrastructureError) as info:
        await _start(connections, stdio(probe, "--mode", "garbage", startup_timeout_s=120), tmp_path)
    message = str(info.value)
    assert "wrote something that is not JSON-RPC to stdout: 'probe: a banner on stdout breaks the protocol'" in message
    assert time.monotonic() - start < 60  # said at once, not after the handshake timeout (a bound on a hang)


async def test_a_server_that_hangs_at_start_times_out_and_is_killed(
    probe: Path, tmp_path: Path, connections: list[Connection], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stdio_transport, "GRACE_S", 120.0)  # the polite wait for a stop, made unmissable
    start = time.monotonic()
    with pytest.raises(InfrastructureError) as info:
        await _start(connections, stdio(probe, "--mode", "hang-at-start", startup_timeout_s=2), tmp_path)
    message = str(info.value)
    assert "did not start and complete the MCP handshake within 2s (startup_timeout_s)" in message
    assert "probe: stuck before reading stdin" in message
    transport = connections[0].transport
    assert transport is not None
    assert transport.pid is not None
    assert not alive(transport.pid)
    assert time.monotonic() - start < 60  # no polite wait (GRACE_S) for a server already known to be broken


async def test_a_crash_during_a_call_names_the_tool_and_shows_the_tail(
    probe: Path, tmp_path: Path, connections: list[Connection]
) -> None:
    connection = await _start(connections, stdio(probe), tmp_path)
    with pytest.raises(InfrastructureError) as info:
        await connection.call("crash", {}, {})
    message = str(info.value)
    assert "MCP server probe (project, trailblaze.yaml:3:5) exited with code 3 during a call to crash" in message
    assert "probe: crashing on purpose in the middle of a call" in message
    with pytest.raises(InfrastructureError, match="exited with code 3 during a call to report"):
        await connection.call("report", {}, {})  # the session's server stays gone


async def test_a_hung_call_times_out_naming_server_and_tool(
    probe: Path, tmp_path: Path, connections: list[Connection]
) -> None:
    connection = await _start(connections, stdio(probe, timeout_s=1), tmp_path)
    start = time.monotonic()
    with pytest.raises(InfrastructureError) as info:
        await connection.call("hang", {}, {})
    assert "MCP server probe (project, trailblaze.yaml:3:5): tool hang did not answer within 1s (timeout_s" in str(
        info.value
    )
    assert time.monotonic() - start < 30  # a bound on a hang: the call never answers, only its timeout ends it
    assert not (await connection.call("report", {}, {})).is_error  # the server is still usable


async def test_an_unreachable_http_server_fails_fast_with_its_url(
    tmp_path: Path, connections: list[Connection]
) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    decl = ServerDecl("remote", Location("trailblaze.yaml", 4, 5), "project", "http", 5, 120, url=url)
    start = time.monotonic()
    with pytest.raises(InfrastructureError) as info:
        await _start(connections, decl, tmp_path)
    assert str(info.value).startswith(f"cannot reach MCP server remote (project, trailblaze.yaml:4:5) at {url}: ")
    assert time.monotonic() - start < 60  # at once, not after the startup timeout (120 s): a bound on a hang
