"""The stdio transport: stderr capture and seed 003's shutdown, on real processes."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest

from trailblaze.core.processlog import ProcessLog
from trailblaze.device import masking
from trailblaze.mcpclient import stdio
from trailblaze.mcpclient.stdio import StdioTransport

from .conftest import SERVERS, alive

pytestmark = pytest.mark.anyio
STUBBORN = str(SERVERS / "stubborn.py")


def _transport(tmp_path: Path, *args: str) -> StdioTransport:
    log = ProcessLog(tmp_path / "server.stderr.log")
    return StdioTransport(sys.executable, [STUBBORN, *args], dict(os.environ), str(tmp_path), log)


async def _open_and_close(transport: StdioTransport, settle: float = 0.5) -> float:
    """Open the transport, give the process time to start, close it; return the closing time."""
    async with transport:
        await anyio.sleep(settle)
        start = time.monotonic()
    return time.monotonic() - start


async def test_a_server_that_exits_on_eof_stops_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdio, "GRACE_S", 120.0)  # a wait for the grace period would be unmissable
    transport = _transport(tmp_path, "eof")
    took = await _open_and_close(transport)
    assert transport.returncode == 0
    assert took < 60  # it did not wait for the grace period: EOF was enough (a bound, not a speed)
    assert transport.pid is not None
    assert transport.pid not in stdio._LIVE


async def test_a_server_that_ignores_eof_gets_sigterm_after_the_grace_period(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stdio, "GRACE_S", 1.0)  # seed 003 says 5 s; the sequence is what is tested
    transport = _transport(tmp_path, "term")
    took = await _open_and_close(transport)
    assert transport.returncode == -signal.SIGTERM
    assert 0.9 < took < 30  # waited the grace period; the upper bound only catches a hang


@pytest.mark.slow
async def test_a_server_that_ignores_sigterm_is_killed_after_five_and_two_seconds(tmp_path: Path) -> None:
    transport = _transport(tmp_path, "kill")
    took = await _open_and_close(transport, settle=1.0)
    assert transport.returncode == -signal.SIGKILL
    assert stdio.GRACE_S + stdio.TERM_S - 0.2 < took < stdio.GRACE_S + stdio.TERM_S + 30  # both waits; no hang


async def test_what_a_server_started_goes_down_with_it(tmp_path: Path) -> None:
    transport = _transport(tmp_path, "orphan")
    await _open_and_close(transport, settle=1.0)
    found = re.search(r"grandchild (\d+)", (tmp_path / "server.stderr.log").read_text())
    assert found, "the grandchild did not start"
    grandchild = int(found.group(1))
    with anyio.move_on_after(5):
        while alive(grandchild):  # noqa: ASYNC110 - polling another process
            await anyio.sleep(0.05)
    assert not alive(grandchild)


async def test_stderr_goes_to_the_log_and_the_last_20_lines_to_the_tail(tmp_path: Path) -> None:
    transport = _transport(tmp_path, "chatty", "100")
    await _open_and_close(transport, settle=1.0)
    lines = (tmp_path / "server.stderr.log").read_text().splitlines()
    assert lines[0].startswith("pid ")
    assert lines[1:] == [f"line {i}" for i in range(100)]
    tail = transport.log.lines
    assert len(tail) == 20
    assert tail[-1] == "line 99"
    described = transport.log.describe()
    assert described.startswith(f"\nlast 20 stderr lines (full log: {tmp_path / 'server.stderr.log'}):\n")
    assert described.endswith("\n  | line 99")


def test_the_tail_cuts_long_lines_and_the_log_is_rotated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_MAX_LOG_BYTES", "10000")
    path = tmp_path / "server.stderr.log"
    log = ProcessLog(path)
    for i in range(100):
        log.write(f"{i:03} " + "x" * 996)  # 1000 characters each: 100 KB in all
    log.close()
    assert path.stat().st_size <= 10_000
    assert (tmp_path / "server.stderr.log.1").stat().st_size <= 10_000  # one older log is kept
    assert path.read_text().splitlines()[-1].startswith("099 ")
    assert log.lines[-1] == "099 " + "x" * 296 + "… (700 more characters not shown)"
    assert len(log.describe()) < 20 * 350


def test_a_silent_server_is_described_as_such(tmp_path: Path) -> None:
    log = ProcessLog(None)
    assert log.describe() == "\nthe server wrote nothing to stderr"
    log.write("  ")
    assert log.describe() == "\nthe server wrote nothing to stderr"


def test_secrets_a_server_prints_are_masked_in_its_log_and_tail(tmp_path: Path) -> None:
    secrets: set[str] = set()
    path = tmp_path / "server.stderr.log"
    log = ProcessLog(path, redact=lambda line: masking.redact(line, secrets))
    secrets.add("hunter2-horse")  # filled by a web_fillSecret after the server started
    log.write("called with password=hunter2-horse")
    log.close()
    assert path.read_text() == "called with password=***\n"
    assert log.lines == ["called with password=***"]
