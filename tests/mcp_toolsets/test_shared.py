"""The run's one HTTP server of a ``multi_device: http`` entry (trailblaze.mcpclient.shared),
on its own: what it prints is logged masked, a start that fails is reported once, and stopping
takes its whole process group. Real processes, no browser."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest

from trailblaze.core.errors import InfrastructureError, Location
from trailblaze.device import masking
from trailblaze.mcpclient import shared
from trailblaze.mcpclient.declarations import ServerDecl

from .conftest import alive

pytestmark = pytest.mark.anyio

#: listens on the port it is given after printing a secret, and starts a child in its group
LISTENER = textwrap.dedent(
    """
    import socket, subprocess, sys, time
    port = int(sys.argv[sys.argv.index("--port") + 1])
    print("connecting with password=hunter2-horse-battery", flush=True)
    print("on stderr too: hunter2-horse-battery", file=sys.stderr, flush=True)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    print(f"child {child.pid}", flush=True)
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen()
    time.sleep(60)
    """
)


def _decl(tmp_path: Path, code: str, startup_timeout_s: float = 10) -> ServerDecl:
    script = tmp_path / "server.py"
    script.write_text(code, encoding="utf-8")
    return ServerDecl(
        "tools",
        Location("trailblaze.yaml", 3, 5),
        "project",
        "stdio",
        5,
        startup_timeout_s,
        command=sys.executable,
        args=(str(script),),
        cwd=str(tmp_path),
        multi_device="http",
    )


async def _child(log: Path) -> int:
    """The pid of the child the listener started, once its line is in the log."""
    deadline = time.monotonic() + 10
    while "child" not in log.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, log.read_text(encoding="utf-8")
        await anyio.sleep(0.05)
    return int(log.read_text(encoding="utf-8").split("child ")[1].split()[0])


async def test_its_output_is_logged_masked_and_stopping_takes_its_process_group(tmp_path: Path) -> None:
    masking.keep(set(), "hunter2-horse-battery")  # a secret a session filled
    decl = _decl(tmp_path, LISTENER)
    log = tmp_path / "logs" / "tools.http.log"
    server = await shared.acquire("run-a", decl, dict(os.environ), log)
    try:
        assert server.url == f"http://127.0.0.1:{server.port}/mcp"
        assert await shared.acquire("run-a", decl, dict(os.environ), log) is server  # the run's second session
        child = await _child(log)
        pid = server.pid
        assert pid is not None
    finally:
        await shared.release("run-a", decl, server)
    assert alive(pid)  # one session is still using it
    await shared.release("run-a", decl, server)
    text = log.read_text(encoding="utf-8")
    assert "hunter2" not in text
    assert "connecting with password=***" in text and "on stderr too: ***" in text
    assert not alive(pid) and not alive(child)


async def test_a_server_that_exits_before_it_listens_is_reported_once_for_the_run(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    code = f"open({str(marker)!r}, 'a').write('x')\nprint('missing configuration')\nraise SystemExit(4)\n"
    decl = _decl(tmp_path, code)
    log = tmp_path / "tools.http.log"
    with pytest.raises(InfrastructureError) as first:
        await shared.acquire("run-b", decl, dict(os.environ), log)
    message = str(first.value)
    assert "MCP server tools (project, trailblaze.yaml:3:5) (multi_device: http" in message
    assert "exited with code 4 before it listened on 127.0.0.1:" in message
    assert f"full log: {log}" in message and "| missing configuration" in message
    with pytest.raises(InfrastructureError) as second:
        await shared.acquire("run-b", decl, dict(os.environ), log)
    assert str(second.value) == message
    assert marker.read_text() == "x"  # started once, not once per session


async def test_a_server_that_never_listens_is_stopped_after_startup_timeout_s(tmp_path: Path) -> None:
    decl = _decl(tmp_path, "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n", startup_timeout_s=1)
    log = tmp_path / "tools.http.log"
    with pytest.raises(
        InfrastructureError, match=r"did not listen on 127\.0\.0\.1:\d+ within 1s \(startup_timeout_s\)"
    ):
        await shared.acquire("run-c", decl, dict(os.environ), log)
    pid = int(log.read_text(encoding="utf-8").split()[0])
    assert not alive(pid)


async def test_kill_all_takes_every_shared_server_and_its_group_at_once(tmp_path: Path) -> None:
    """A second Ctrl-C (or the interpreter's exit): what is still running is killed at once."""
    decl = _decl(tmp_path, LISTENER)
    log = tmp_path / "tools.http.log"
    server = await shared.acquire("run-d", decl, dict(os.environ), log)
    try:
        child = await _child(log)
        shared.kill_all()
        deadline = time.monotonic() + 5
        while (alive(child) or server.returncode is None) and time.monotonic() < deadline:  # noqa: ASYNC110
            await anyio.sleep(0.05)
        assert server.returncode == -signal.SIGKILL
        assert not alive(child)
    finally:
        await shared.release("run-d", decl, server)
