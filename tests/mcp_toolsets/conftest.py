"""Fixtures for the MCP tests: the probe server, third-party peers, what servers recorded, and the
callback server (started on a free port, closed with the SDK's connections after the test)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trailblaze.mcpclient.rpc import CallbackServer

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
PEERS = HERE / "peers"


@pytest.fixture
def anyio_backend() -> str:
    """The async tests (``pytest.mark.anyio``) run on asyncio, as trailblaze does."""
    return "asyncio"


@pytest.fixture
async def server() -> AsyncIterator[CallbackServer]:
    """A running callback server; the SDK's connections to it are closed with it."""
    from trailblaze.mcpclient.rpc import CallbackServer
    from trailblaze.mcpclient.sdk import close_connections

    srv = CallbackServer()
    await srv.start()
    try:
        yield srv
    finally:
        await close_connections()
        await srv.close()


@pytest.fixture
def probe() -> Path:
    """The Trailblaze-aware test server (tests/mcp_toolsets/servers/probe.py)."""
    return SERVERS / "probe.py"


@pytest.fixture
def peers() -> Path:
    """``node_modules/.bin`` of the npm test peers; fails (not skips) when they are missing, since
    CI must notice. ``make peers`` (or ``npm ci --prefix tests/mcp_toolsets/peers``) installs them."""
    bin_dir = PEERS / "node_modules" / ".bin"
    if not (bin_dir / "mcp-server-everything").exists():
        pytest.fail("npm test peers are not installed: run `make peers` (npm ci --prefix tests/mcp_toolsets/peers)")
    return bin_dir


class Recorded:
    """The JSON lines probe servers appended to ``$PROBE_OUT``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def env(self) -> dict[str, str]:
        return {"PROBE_OUT": str(self.path)}

    def entries(self, kind: str | None = None) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        rows = [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [r for r in rows if kind is None or r["kind"] == kind]

    def one(self, kind: str) -> dict[str, Any]:
        rows = self.entries(kind)
        assert len(rows) == 1, f"expected one {kind!r} record, got {len(rows)}: {rows}"
        return rows[0]


@pytest.fixture
def recorded(tmp_path: Path) -> Recorded:
    return Recorded(tmp_path / "probe-out.jsonl")


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


PYTHON = sys.executable
