"""Shutdown: stdin EOF, SIGINT and SIGTERM close the browser and every process trailblaze started.

The servers here are fresh interpreters (``fresh=True``), not forks of the test helper: these
tests look at the server's own process."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.server.support import http_server
from tests.support.cli import CliProcess, Project, processes_with

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

TOOLSET = """
import sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("lifecycle-tools")


@server.tool()
def hello(name: str) -> str:
    return f"hello {name}"


server.run()
"""


def _send(proc: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[str], request_id: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, f"trailblaze mcp closed stdout (exit {proc.poll()})"
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)


def _connected(cli_process: CliProcess, project: Project, marker: str) -> subprocess.Popen[str]:
    """``trailblaze mcp`` over stdio with a browser and an MCP toolset server running."""
    project.write("tools/hello.py", TOOLSET)
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\nmcp_servers:\n  - script: tools/hello.py\n")
    proc = cli_process("mcp", cwd=project.root, env={"TRAILBLAZE_TEST_MARKER": marker})
    _send(proc, {**_initialize(), "id": 1})
    assert _answer(proc, 1)["result"]["serverInfo"]["name"] == "trailblaze"
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _send(proc, _call(2, "device", {"action": "WEB"}))
    assert _answer(proc, 2)["result"]["isError"] is False
    _send(proc, _call(3, "hello", {"name": "mcp"}))
    assert "hello mcp" in _answer(proc, 3)["result"]["content"][0]["text"]
    assert sum("_zygote.py" in p for p in processes_with(marker)) == 2  # the prefork helper and the server
    return proc


@pytest.mark.parametrize("how", ["eof", "SIGINT", "SIGTERM"])
def test_stdio_shutdown_leaves_no_process(cli_process: CliProcess, project: Project, how: str) -> None:
    marker = f"mcp-stdio-{how}"
    proc = _connected(cli_process, project, marker)
    if how == "eof":
        assert proc.stdin is not None
        proc.stdin.close()
    else:
        proc.send_signal(getattr(signal, how))
    code = proc.wait(60)  # the bound on a hang
    assert code == (0 if how == "eof" else 130)
    stderr = proc.stderr.read() if proc.stderr else ""
    assert "Traceback" not in stderr
    _gone(marker)


def test_http_sigterm_closes_open_sessions(project: Project) -> None:
    import asyncio

    from mcp import Client

    from tests.mcp.server.support import ok

    marker = "mcp-http-sigterm"
    with http_server(project.root, env={"TRAILBLAZE_TEST_MARKER": marker}, fresh=True) as server:

        async def connect_and_stop() -> None:
            async with Client(server.url, mode="legacy", read_timeout_seconds=60) as client:
                ok(await client.call_tool("device", {"action": "WEB"}))
                assert any("chrom" in p for p in processes_with(marker))
                server.proc.send_signal(signal.SIGTERM)
                server.proc.wait(60)

        with contextlib.suppress(BaseException):  # the client's connection drops with the server: that's the point
            asyncio.run(connect_and_stop())
        assert server.proc.returncode == 130
        assert server.proc.stderr is not None
        stderr = server.proc.stderr.read()
        assert "Traceback" not in stderr and "ERROR" not in stderr, stderr  # the open stream was closed, not cut
    _gone(marker)


def test_http_sessions_end_after_the_idle_timeout(project: Project) -> None:
    import asyncio

    import httpx
    from mcp import Client

    from tests.mcp.server.support import ok

    marker = "mcp-http-idle"
    with http_server(project.root, "--idle-timeout", "3", env={"TRAILBLAZE_TEST_MARKER": marker}, fresh=True) as server:

        async def connect_and_leave() -> None:
            client = Client(server.url, mode="legacy", read_timeout_seconds=60)
            await client.__aenter__()
            ok(await client.call_tool("device", {"action": "WEB"}))
            # a one-shot client that never says goodbye (no DELETE): its session is abandoned

        with contextlib.suppress(BaseException):
            asyncio.run(connect_and_leave())
        assert httpx.get(f"{server.base}/ping").json()["sessions"] == 1
        deadline = time.monotonic() + 30
        while httpx.get(f"{server.base}/ping").json()["sessions"]:
            assert time.monotonic() < deadline, "the idle session was not ended"
            time.sleep(0.5)
        _gone_browsers(marker)


def test_stdio_with_stdin_on_the_null_device_ends_at_once(project: Project) -> None:
    import sys

    from tests.support.cli import cli_env

    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", "mcp"],
        cwd=project.root,
        env=cli_env(),
        stdin=subprocess.DEVNULL,  # the null device cannot be polled: it is read to its end instead
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_while_a_toolset_server_hangs_in_a_call_stops_it_at_once(
    cli_process: CliProcess, project: Project, presses: int
) -> None:
    """It took 8-9 s: seed 003's close stdin, 5 s, SIGTERM (ignored), 2 s came first. Now the
    server gets SIGTERM with its closed stdin and SIGKILL half a second later; a second Ctrl-C
    ends trailblaze at once, as pytest's does."""
    marker = f"mcp-hung-{presses}"
    hung = Path(__file__).parents[2] / "mcp_toolsets" / "servers" / "hung.py"
    project.write("trailblaze.yaml", f"driver: null-test\nmcp_servers:\n  - {{script: {hung}, name: hung}}\n")
    probe = project.root / "probe.jsonl"
    env = {"TRAILBLAZE_TEST_MARKER": marker, "PROBE_OUT": str(probe)}
    # the polite waits made two minutes each: only a hurried stop ends within the bound below
    plugins = ("-p", "tests.support.null_driver", "-p", "tests.support.long_grace")
    proc = cli_process("mcp", *plugins, cwd=project.root, env=env)
    _send(proc, {**_initialize(), "id": 1})
    _answer(proc, 1)
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _send(proc, _call(2, "device", {"action": "CONNECT"}))
    assert _answer(proc, 2)["result"]["isError"] is False
    _send(proc, _call(3, "block", {}))
    deadline = time.monotonic() + 60
    while '"block"' not in (probe.read_text() if probe.exists() else ""):
        assert time.monotonic() < deadline, "the server never blocked"
        time.sleep(0.05)
    started = time.monotonic()
    for press in range(presses):
        if press:
            time.sleep(0.2)  # two signals at once are one: the kernel does not queue them
        proc.send_signal(signal.SIGINT)
    assert proc.wait(90) == 130
    # not a measure of speed: the polite shutdown would wait 2 × 120 s (long_grace) for this server
    assert time.monotonic() - started < 60
    stderr = proc.stderr.read() if proc.stderr else ""
    assert "Traceback" not in stderr
    if presses == 2:
        assert "interrupted again: exiting without waiting" in stderr
    _gone(marker)


def test_stdin_closing_during_a_call_ends_the_server_at_once_with_the_browser_closed(
    cli_process: CliProcess, project: Project
) -> None:
    """The client leaves while a call runs (a 20 s wait): the call is cancelled, the browser
    closed, and the server exits 0, silently. The contract is 0.5 s from stdin's end to the exit
    (``benchmarks/mcp_context.py`` measures it; clients saw 5.6 s); the bound here is generous,
    for a loaded machine, and far below the call's own 20 s."""
    marker = "mcp-eof-in-a-call"
    proc = cli_process("mcp", cwd=project.root, env={"TRAILBLAZE_TEST_MARKER": marker})
    _send(proc, {**_initialize(), "id": 1})
    _answer(proc, 1)
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _send(proc, _call(2, "device", {"action": "WEB"}))
    assert _answer(proc, 2)["result"]["isError"] is False
    _send(proc, _call(3, "web_wait", {"seconds": 20}))
    assert proc.stdin is not None
    started = time.monotonic()
    proc.stdin.close()
    assert proc.wait(60) == 0
    assert time.monotonic() - started < 5
    assert proc.stderr is not None and proc.stderr.read() == ""
    _gone(marker)
    assert not (project.root / ".trailblaze" / "logs").exists()  # no crash log


@pytest.mark.parametrize("during", ["the opening", "the session"])
def test_a_client_that_closes_its_end_of_stdout_has_left(
    cli_process: CliProcess, project: Project, during: str
) -> None:
    """Closing the pipe the server writes to is how some clients disconnect: the session ends as
    at stdin's end (exit 0), with nothing on stderr and no crash log, whether the server still
    answers the opening itself or the SDK serves the session."""
    proc = cli_process("mcp", cwd=project.root)
    _send(proc, {**_initialize(), "id": 1})
    _answer(proc, 1)
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    if during == "the session":
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "ping"})
        _answer(proc, 2)
    assert proc.stdout is not None
    proc.stdout.close()
    _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})  # its answer finds nobody reading
    assert proc.wait(60) == 0
    assert proc.stderr is not None and proc.stderr.read() == ""
    assert not (project.root / ".trailblaze" / "logs").exists()


def _gone_browsers(marker: str) -> None:
    deadline = time.monotonic() + 15
    while [p for p in processes_with(marker) if "chrom" in p]:
        assert time.monotonic() < deadline, f"left running: {processes_with(marker)}"
        time.sleep(0.2)


def _gone(marker: str) -> None:
    deadline = time.monotonic() + 15
    while processes_with(marker):
        assert time.monotonic() < deadline, f"left running: {processes_with(marker)}"
        time.sleep(0.2)


def _initialize() -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }


def _call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
