"""Run ``trailblaze mcp``: serve stdio or HTTP until the client goes away or a signal comes.

Shutdown closes every client's device, browser and MCP toolset servers:

* stdio: stdin reaching EOF (the client closed it) ends the session; so do SIGINT and SIGTERM;
* HTTP: SIGINT or SIGTERM ends every session (calls in flight are cancelled, open streams
  close), stops the server and closes the sessions' devices; a session no request has used
  for ``--idle-timeout`` seconds (30 minutes) ends the same way, alone;
* after a signal the toolset servers' shutdown waits are cut short (a server hung in a call is
  killed within a second, not after seed 003's 5 s + 2 s);
* a second SIGINT/SIGTERM exits at once, killing what was started (as pytest's second Ctrl-C).

Exit codes: 0 when the client ended the session, 130 after a signal, 2 when the server could
not serve or the client broke the protocol (a stdio message over the size limit; see
:mod:`.stdio`), 3 for a port in use.

Over stdio, the opening of a session (``initialize``, ``tools/list``) is answered before the
``mcp`` SDK is imported (:mod:`.prelude`), which then serves the rest of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trailblaze.core import processes
from trailblaze.core.errors import ExitCode

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from trailblaze.mcpserver.prelude import SdkWire
    from trailblaze.mcpserver.server import McpApp
    from trailblaze.mcpserver.state import ClientState, Defaults
    from trailblaze.mcpserver.stdio import StdinLines
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
    from trailblaze.core.errors import UsageError
    from trailblaze.core.localguard import is_loopback

    if transport.http and not is_loopback(transport.host) and not transport.token:
        raise UsageError(
            f"--host {transport.host} lets other machines drive your devices: give --token (or "
            "TRAILBLAZE_MCP_TOKEN) too"
        )
    if transport.token is not None and not transport.token.strip():
        raise UsageError("--token is empty")


def run(project: Project, defaults: Defaults, transport: Transport) -> int:
    processes.end_at_once_after_command()  # the client waits for the exit, not for the teardown
    return asyncio.run(_main(project, defaults, transport))


@dataclass(slots=True)
class Opened:
    """What the command opened, closed at the end: the server (the ``mcp`` SDK's, made when it
    is needed), or the session the stdio prelude began before there was one."""

    project: Project
    defaults: Defaults
    app: McpApp | None = None
    state: ClientState | None = None

    def new_app(self) -> McpApp:
        """The server; its first client connection goes on with the prelude's session."""
        from trailblaze.mcpserver.server import McpApp, quiet_sdk_warnings

        quiet_sdk_warnings()
        self.app = McpApp(self.project, self.defaults)
        if self.state is not None:
            self.app.adopt(self.state)
        return self.app

    def new_state(self) -> ClientState:
        """A client's session, before the server exists (the stdio prelude's)."""
        from trailblaze.mcpserver.state import ClientState

        self.state = ClientState(self.project, self.defaults)
        return self.state

    async def close(self) -> None:
        if self.app is not None:
            await self.app.close()
        elif self.state is not None:
            await self.state.close()


async def _main(project: Project, defaults: Defaults, transport: Transport) -> int:
    from trailblaze.mcpserver.http import Stopper

    opened = Opened(project, defaults)
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    signals = 0
    stopper = Stopper()

    def on_signal() -> None:
        nonlocal signals
        signals += 1
        if signals > 1:  # as pytest: the second Ctrl-C ends it now, killing what it started
            processes.die_now("trailblaze mcp: interrupted again: exiting without waiting", int(ExitCode.INTERRUPTED))
        processes.hurry()  # toolset servers hung in a call get 0.5 s, not seed 003's 5 s + 2 s
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
            await _http(opened.new_app(), transport, stopper)
        else:
            await _stdio(opened)
    except asyncio.CancelledError:
        if not signals:
            raise
    finally:
        await opened.close()
        for sig in installed:
            loop.remove_signal_handler(sig)
        processes.calm()
    return int(ExitCode.INTERRUPTED if signals else ExitCode.OK)


async def _stdio(opened: Opened) -> None:
    """Serve a session on this process's stdin/stdout: the prelude, then the SDK."""
    from trailblaze.mcpserver.prelude import Prelude, SdkWire
    from trailblaze.mcpserver.stdio import MAX_MESSAGE_BYTES, MessageTooLarge, stdin_lines, stdout_wire

    with stdin_lines() as stdin, stdout_wire() as wire:
        if stdin is not None and wire is not None:
            stdin.reject = wire.reject
            wire.on_gone = stdin.close  # a client that closed stdout has left: as stdin's end
            prelude = Prelude(stdin, wire, opened.new_state, _load_server_meanwhile)
            await prelude.run()
            if not prelude.ended:  # else the client left after the opening: the SDK has nothing to serve
                await _serve_sdk(opened.new_app(), prelude.replay(), SdkWire(wire, replayed=prelude.replayed), stdin)
        else:
            stdout = SdkWire(wire, replayed=False) if wire is not None else None
            await _serve_sdk(opened.new_app(), stdin, stdout, stdin)
    if stdin is not None and stdin.too_large:
        raise MessageTooLarge(
            f"the MCP client sent a message longer than {MAX_MESSAGE_BYTES // (1024 * 1024)} MiB (the limit for one "
            "JSON-RPC line on stdio); the session was closed"
        )
    # the client has gone: it waits for the exit, so what still runs gets the short waits a signal gives
    processes.hurry()


def _load_server_meanwhile() -> None:
    """Import the server's modules (the ``mcp`` SDK: most of a second) in a thread of their own,
    while the client that has just listed the tools decides what to do. Its next message finds
    them loaded; a client that lists the tools and leaves is not kept waiting for them (the
    thread is a daemon, and the process ends at once: :func:`processes.end_at_once`)."""
    import importlib
    import threading

    def load() -> None:
        with contextlib.suppress(Exception):  # the main thread's own import reports what is wrong
            importlib.import_module("trailblaze.mcpserver.server")

    threading.Thread(target=load, name="trailblaze-mcp-load", daemon=True).start()


async def _serve_sdk(
    app: McpApp, source: AsyncIterator[str] | None, stdout: SdkWire | None, lines: StdinLines | None
) -> None:
    """The session-based loop (the SDK's ``Server.run`` lets a client's first request choose the
    sessionless 2026-07-28 protocol instead; see :mod:`.server`). ``source`` is what the SDK reads
    (None: stdin, read by the SDK), ``stdout`` where it writes (None: the SDK claims stdout)."""
    import mcp_types as types
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    server = app.server
    async with (
        stdio_server(stdin=source, stdout=stdout) as (read, write),  # type: ignore[arg-type]
        server.lifespan(server) as lifespan_state,
    ):
        if lines is not None and lines.reject is None:

            async def reject(request_id: Any, code: int, message: str) -> None:
                error = types.ErrorData(code=code, message=message)
                await write.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))

            lines.reject = reject
        await serve_loop(server, read, write, lifespan_state=lifespan_state, init_options=app.initialization_options())


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
