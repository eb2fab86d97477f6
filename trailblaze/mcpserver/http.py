"""``trailblaze mcp --http``: Streamable HTTP at ``/mcp`` and ``GET /ping``, on uvicorn.

What a local MCP server over HTTP must do (the MCP spec's security warning):

* bind 127.0.0.1 unless told otherwise, and refuse a request whose ``Host`` is not a local name
  (421) or whose ``Origin`` is not a local origin (403), so a web page cannot reach it through
  DNS rebinding. Other names are allowed with ``--allow-host``; binding a non-local address
  needs a token.
* with ``--token`` (or ``TRAILBLAZE_MCP_TOKEN``), refuse ``/mcp`` requests without
  ``Authorization: Bearer <token>`` (401). ``/ping`` answers without one: it tells nothing.

A body that is not JSON, or nests deeper than ``TRAILBLAZE_MAX_YAML_DEPTH``, is answered here
(400, ``-32700``) under the request's id, as over stdio.

Sessions are the SDK's: each client's ``initialize`` gets its own ``Mcp-Session-Id`` and its own
device; an unknown or ended session id gets 404, as the spec says.
"""

from __future__ import annotations

import hmac
import json
import socket
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from trailblaze.core import localguard
from trailblaze.core.errors import UsageError
from trailblaze.core.localguard import LOCAL_NAMES
from trailblaze.core.localguard import bracketed as _bracketed

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from trailblaze.mcpserver.server import McpApp

#: where the SDK serves Streamable HTTP
MCP_PATH = "/mcp"


class Guard:
    """Host/Origin checks and the bearer token, in front of every route."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], token: str | None) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}
        self.token = token

    def _host_ok(self, host: str | None) -> bool:
        return localguard.host_ok(host, self.hosts)

    def _origin_ok(self, origin: str | None) -> bool:
        return localguard.origin_ok(origin, self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if not self._host_ok(headers.get("host")):
            await _plain(send, 421, "Invalid Host header")
            return
        if not self._origin_ok(headers.get("origin")):
            await _plain(send, 403, "Invalid Origin header")
            return
        if self.token is not None and scope.get("path") != "/ping":
            given = headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip(), self.token):
                await _plain(
                    send, 401, "Missing or wrong bearer token", {"www-authenticate": 'Bearer realm="trailblaze"'}
                )
                return
        if scope.get("method") == "POST" and scope.get("path") == MCP_PATH:
            body, receive = await _read_body(receive)
            refused = _unreadable(body)
            if refused is not None:
                await _json(send, 400, refused)
                return
        await self.app(scope, receive, send)


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The request's whole body, and a ``receive`` that gives it to the app again."""
    chunks: list[bytes] = []
    pending: list[Message] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: the app hears of it
            pending.append(message)
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            pending.append({"type": "http.request", "body": b"".join(chunks), "more_body": False})
            break

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return b"".join(chunks), replay


def _unreadable(body: bytes) -> dict[str, Any] | None:
    """The JSON-RPC error a body that is not JSON, or nests deeper than the bound, is answered
    with — under the request's id when it can be read — else None (the SDK reads it). The SDK's
    own answer to such a body has ``"id": null``, and its parser goes 200 levels deep, not 100."""
    from trailblaze.core import jsonsource
    from trailblaze.mcpserver.jsonrpc import PARSE_ERROR, readable_id

    try:
        jsonsource.parse(body)
    except ValueError as exc:
        error = {"code": PARSE_ERROR, "message": f"Parse error: not JSON ({exc})"}
        return {"jsonrpc": "2.0", "id": readable_id(body.decode("utf-8", errors="replace")), "error": error}
    return None


async def _json(send: Send, status: int, value: Any) -> None:
    body = json.dumps(value, ensure_ascii=False).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _plain(send: Send, status: int, text: str, extra: dict[str, str] | None = None) -> None:
    body = text.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    headers.extend((k.encode(), v.encode()) for k, v in (extra or {}).items())
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    mcp: McpApp, *, host: str, port: int, token: str | None, allowed: Iterable[str], idle_timeout: float | None = None
) -> Any:
    """The ASGI app: the SDK's Streamable HTTP transport at ``/mcp``, ``/ping``, the guard.
    A session without requests for ``idle_timeout`` seconds ends (its device closes)."""
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    names = {*LOCAL_NAMES, *(_bracketed(h) for h in allowed)}
    if host not in ("0.0.0.0", "::"):  # the address it listens on, as printed (127.0.0.2 too)
        names.add(_bracketed(host.lower()))
    hosts = {*names, *(f"{n}:{port}" for n in names)}

    async def ping(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "server": "trailblaze", "sessions": len(mcp.states)})

    # the guard checks Host and Origin for every route (names in any case, local pages on any
    # port); the SDK's own check is case-sensitive and knows no other port, so it is left off
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    options: dict[str, Any] = {} if idle_timeout is None else {"session_idle_timeout": idle_timeout}
    starlette = mcp.server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=host,
        transport_security=security,
        custom_starlette_routes=[Route("/ping", ping, methods=["GET"])],
        **options,
    )
    return Guard(starlette, hosts, token)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0: a free port), or a clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


class Stopper:
    """How the command tells the HTTP server to stop: every session ends (its streams close, so
    uvicorn has no open response to wait for), then the server; the second time, at once."""

    def __init__(self) -> None:
        self.server: Any = None
        self.sessions: Any = None  # the SDK's StreamableHTTPSessionManager
        self.requested = 0
        self._ending: set[Any] = set()

    def stop(self) -> None:
        self.requested += 1
        if self.server is None:
            return
        if self.requested > 1:  # asked twice: no waiting, and no reports of the tasks this cuts short
            import logging

            logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
            self.server.should_exit = self.server.force_exit = True
            return
        import asyncio

        task = asyncio.get_running_loop().create_task(self._end_sessions())
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    async def _end_sessions(self) -> None:
        import asyncio

        try:
            # the SDK keeps its sessions' transports here (no public accessor)
            transports = list(getattr(self.sessions, "_server_instances", {}).values())
            await asyncio.wait_for(
                asyncio.gather(*(t.terminate() for t in transports), return_exceptions=True), timeout=3
            )
        except Exception:  # ending them is a courtesy: uvicorn's graceful timeout still bounds the stop
            pass
        finally:
            self.server.should_exit = True


async def serve(
    mcp: McpApp,
    *,
    host: str,
    port: int,
    token: str | None,
    allowed: Iterable[str],
    announce: Callable[[str], None],
    stopper: Stopper,
    idle_timeout: float | None = None,
) -> None:
    import contextlib

    import uvicorn

    class _Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Any:  # trailblaze handles SIGINT/SIGTERM (Stopper)
            yield

    sock = bind(host, port)
    bound_port = sock.getsockname()[1]
    app = build_app(mcp, host=host, port=bound_port, token=token, allowed=allowed, idle_timeout=idle_timeout)
    stopper.sessions = mcp.server.session_manager
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=3, access_log=False)
    server = _Server(config)
    stopper.server = server
    if stopper.requested:
        server.should_exit = True
    shown = f"[{host}]" if ":" in host else host
    announce(f"http://{shown}:{bound_port}/mcp")
    try:
        await server.serve(sockets=[sock])
    finally:
        sock.close()
