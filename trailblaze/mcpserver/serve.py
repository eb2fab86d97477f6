"""Run ``trailblaze mcp``: serve stdio or HTTP until the client goes away or a signal comes.

Shutdown closes every client's device, browser and MCP toolset servers:

* stdio: stdin reaching EOF (the client closed it) ends the session; so do SIGINT and SIGTERM;
* HTTP: SIGINT or SIGTERM ends every session (calls in flight are cancelled, open streams
  close), stops the server and closes the sessions' devices; a session no request has used
  for ``--idle-timeout`` seconds (30 minutes) ends the same way, alone;
* a second SIGINT/SIGTERM while closing exits at once.

Exit codes: 0 when the client ended the session, 130 after a signal, 2 when the server could
not serve (a port in use is a usage error, 3).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trailblaze.errors import ExitCode

if TYPE_CHECKING:
    from trailblaze.mcpserver.server import McpApp
    from trailblaze.mcpserver.state import Defaults
    from trailblaze.runner.project import Project


@dataclass(slots=True)
class Transport:
    http: bool = False
    host: str = "127.0.0.1"
    port: int = 8931
    token: str | None = None
    allowed_hosts: list[str] = field(default_factory=list)
    idle_timeout: float = 30 * 60


def check_transport(transport: Transport) -> None:
    """Refuse what would let other machines drive the devices: a non-local address without a
    token, or an empty token (before anything is loaded)."""
    from trailblaze.errors import UsageError
    from trailblaze.localguard import is_loopback

    if transport.http and not is_loopback(transport.host) and not transport.token:
        raise UsageError(
            f"--host {transport.host} lets other machines drive your devices: give --token (or "
            "TRAILBLAZE_MCP_TOKEN) too"
        )
    if transport.token is not None and not transport.token.strip():
        raise UsageError("--token is empty")


def run(project: Project, defaults: Defaults, transport: Transport) -> int:
    return asyncio.run(_main(project, defaults, transport))


async def _main(project: Project, defaults: Defaults, transport: Transport) -> int:
    from trailblaze.mcpserver.server import McpApp, quiet_sdk_warnings

    quiet_sdk_warnings()
    app = McpApp(project, defaults)
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    signals = 0
    closing = False

    from trailblaze.mcpserver.http import Stopper

    stopper = Stopper()

    def on_signal() -> None:
        nonlocal signals
        signals += 1
        if closing and signals > 1:
            _say("interrupted again: exiting without waiting")
            os._exit(int(ExitCode.INTERRUPTED))
        if transport.http:
            stopper.stop()
        else:
            main.cancel()

    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        if transport.http:
            await _http(app, transport, stopper)
        else:
            await _stdio(app)
    except asyncio.CancelledError:
        if not signals:
            raise
    finally:
        closing = True
        await app.close()
        for sig in installed:
            loop.remove_signal_handler(sig)
    return int(ExitCode.INTERRUPTED if signals else ExitCode.OK)


async def _stdio(app: McpApp) -> None:
    """The session-based loop (the SDK's ``Server.run`` lets a client's first request choose the
    sessionless 2026-07-28 protocol instead; see :mod:`.server`)."""
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    server = app.server
    with _stdin_lines() as stdin:
        async with stdio_server(stdin=stdin) as (read, write), server.lifespan(server) as lifespan_state:  # type: ignore[arg-type]
            await serve_loop(
                server, read, write, lifespan_state=lifespan_state, init_options=app.initialization_options()
            )


class _PipeLines:
    """stdin as an async iterator of lines, read without a thread.

    The SDK reads stdin in a worker thread that a signal cannot interrupt: Ctrl-C would wait for
    the client's next message. This reads the pipe through the event loop instead. Meanwhile fd 0
    points at the null device, so nothing trailblaze starts (a browser, a toolset server) can
    read the client's messages.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.reader: asyncio.StreamReader | None = None

    def __aiter__(self) -> _PipeLines:
        return self

    async def __anext__(self) -> str:
        if self.reader is None:
            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader(limit=MAX_MESSAGE_BYTES, loop=loop)
            pipe = os.fdopen(self.fd, "rb", buffering=0, closefd=False)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
            self.reader = reader
        try:
            line = await self.reader.readline()
        except (asyncio.LimitOverrunError, ValueError):
            raise StopAsyncIteration from None
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


#: the longest JSON-RPC message (one line) the stdio transport reads
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


@contextlib.contextmanager
def _stdin_lines() -> Iterator[_PipeLines | None]:
    """A thread-free reader of stdin when it is a pipe, socket or terminal (else None: the SDK's,
    which reads a file or the null device to its end). Other character devices (``/dev/null``)
    cannot be polled: epoll refuses them."""
    import stat

    try:
        mode = os.fstat(0).st_mode
    except OSError:
        yield None
        return
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(0))):
        yield None
        return
    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield _PipeLines(private)
    finally:
        os.dup2(private, 0)
        os.close(private)


async def _http(app: McpApp, transport: Transport, stopper: object) -> None:
    from trailblaze.mcpserver import http

    assert isinstance(stopper, http.Stopper)
    await http.serve(
        app,
        host=transport.host,
        port=transport.port,
        token=transport.token,
        allowed=transport.allowed_hosts,
        announce=lambda url: _say(f"serving MCP over Streamable HTTP at {url} (GET /ping for health checks)"),
        stopper=stopper,
        idle_timeout=transport.idle_timeout,
    )


def _say(text: str) -> None:
    print(f"trailblaze mcp: {text}", file=sys.stderr, flush=True)
