"""Talking to a real ``trailblaze mcp`` through the SDK's own client (stdio or Streamable HTTP)."""

from __future__ import annotations

import atexit
import json
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
import yaml
from mcp import Client, StdioServerParameters

from tests.support.cli import cli_env
from tests.support.cli_zygote import Relay

_relay: Relay | None = None


def relay() -> Relay:
    """This worker's relay for servers the tests spawn (tests/support/cli_zygote.py), started
    on first use."""
    global _relay
    if _relay is None:
        _relay = Relay(cli_env())
        atexit.register(_relay.close)
    return _relay


def server_command(args: list[str], fresh: bool = False, via: Relay | None = None) -> list[str]:
    """The command line for ``python -m trailblaze ARGS``: the launcher, which has this worker's
    relay (or ``via``) fork it (tests/support/launcher.py), or with ``fresh=True`` a fresh
    interpreter, for a test that looks at the server's own process."""
    if fresh:
        return [sys.executable, "-m", "trailblaze", *args]
    return (via or relay()).command(args)


@dataclass
class Seen:
    """What the server sent besides results: notifications (list_changed, progress)."""

    notifications: list[Any] = field(default_factory=list)

    async def handler(self, message: Any) -> None:
        if not isinstance(message, Exception):
            self.notifications.append(message)

    def methods(self) -> list[str]:
        return [getattr(n, "method", "") for n in self.notifications]

    def count(self, method: str) -> int:
        return self.methods().count(method)


@asynccontextmanager
async def stdio(
    root: Path, *args: str, env: dict[str, str] | None = None, fresh: bool = False, **client: Any
) -> AsyncIterator[Client]:
    """``trailblaze mcp ARGS`` over stdio in ``root``, through the SDK's ``Client`` (forked from
    this worker's helper unless ``fresh``; see :func:`server_command`)."""
    environment = cli_env(**(env or {}))
    command = server_command(["mcp", *args], fresh)
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(root), env=environment)
    client.setdefault("mode", "legacy")
    client.setdefault("read_timeout_seconds", 90)
    async with Client(params, **client) as session:
        yield session


#: how the screen part of a reply begins (trailblaze/mcpserver/replies.py)
SCREEN_PARTS = ("The screen now", "The screen changed", "The screen did not change")


def data(result: types.CallToolResult) -> dict[str, Any]:
    """What a tool result says, read back from its one text block (trailblaze/mcpserver/replies.py):
    the account's YAML lines as a dict, with a failure's message under ``error`` and the screen
    part under ``screen``. A reply carries no structured content: the screen travels once."""
    assert result.structured_content is None, "the reply repeats itself as structured content"
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    return read_reply(texts, result.is_error)


def wire_data(result: dict[str, Any]) -> dict[str, Any]:
    """:func:`data` of a ``tools/call`` result as JSON (what a client printed, or read off the pipe)."""
    assert "structuredContent" not in result, "the reply repeats itself as structured content"
    texts = [c["text"] for c in result["content"] if c.get("type") == "text"]
    return read_reply(texts, bool(result.get("isError")))


def read_reply(texts: list[str], is_error: bool) -> dict[str, Any]:
    assert len(texts) == 1, f"one text block, not {len(texts)}: {texts}"
    parts = texts[0].split("\n\n")
    at = next((i for i, part in enumerate(parts) if part.startswith(SCREEN_PARTS)), len(parts))
    head, screen = parts[:at], "\n\n".join(parts[at:])
    out: dict[str, Any] = {}
    if is_error:
        out["error"], head = head[0], head[1:]
    if head:
        account = yaml.safe_load("\n".join(head))
        assert isinstance(account, dict), texts[0]
        out.update(account)
    if screen:
        out["screen"] = screen
    return out


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, _texts(result)
    return data(result)


def failed(result: types.CallToolResult) -> str:
    assert result.is_error, _texts(result)
    return _texts(result)


def _texts(result: types.CallToolResult) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def names(tools: types.ListToolsResult) -> list[str]:
    return [t.name for t in tools.tools]


@dataclass
class HttpServer:
    proc: subprocess.Popen[str]
    url: str

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")


@contextmanager
def http_server(
    root: Path, *args: str, env: dict[str, str] | None = None, fresh: bool = False, via: Relay | None = None
) -> Iterator[HttpServer]:
    """``trailblaze mcp --http --port 0 ARGS`` in ``root``; yields once it listens (forked from
    this worker's helper unless ``fresh``; see :func:`server_command`)."""
    environment = cli_env(**(env or {}))
    proc = subprocess.Popen(
        server_command(["mcp", "--http", "--port", "0", *args], fresh, via),
        cwd=root,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        line = ""
        while "serving MCP" not in line:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, f"trailblaze mcp --http exited: {proc.poll()}"
            assert time.monotonic() < deadline, "trailblaze mcp --http did not start"
        found = re.search(r"(http://\S+/mcp)", line)
        assert found is not None, line
        yield HttpServer(proc, found.group(1))
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def trail_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def dump(value: Any) -> str:
    return json.dumps(value, indent=1)
