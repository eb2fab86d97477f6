"""Fixtures for the ``trailblaze mcp`` tests."""

from __future__ import annotations

from pathlib import Path

import pytest

PEERS = Path(__file__).resolve().parents[2] / "mcp_toolsets" / "peers"


@pytest.fixture
def inspector() -> Path:
    """The MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``, pinned in the test peers'
    lock file); fails (not skips) when missing, since CI must notice: run ``make peers``."""
    path = PEERS / "node_modules" / ".bin" / "mcp-inspector"
    if not path.exists():
        pytest.fail("npm test peers are not installed: run `make peers` (npm ci --prefix tests/mcp_toolsets/peers)")
    return path
