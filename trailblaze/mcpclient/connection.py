"""One live MCP server for one session: connect, list, call, close — and say clearly what broke.

Each connection lives in a task of its own that holds the SDK's ``async with Client(...)`` open
until the session ends: the SDK's task groups and cancel scopes must be entered and left by
the same task, and sessions connect to all their servers concurrently. Callers talk to it
through :meth:`Connection.call`.

Faults become :class:`~trailblaze.core.errors.InfrastructureError` (exit 2) naming the server, where
it was declared, and — for spawned servers — the last lines it wrote to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from trailblaze.core import jsonsource, limits
from trailblaze.core.errors import InfrastructureError
from trailblaze.core.processlog import ProcessLog
from trailblaze.mcpclient.declarations import ServerDecl
from trailblaze.mcpclient.prefork import eligible
from trailblaze.mcpclient.stdio import StdioTransport
from trailblaze.tools.agentschema import MCP_NAME

if TYPE_CHECKING:
    from trailblaze.mcpclient.shared import SharedServer

REGISTRY_URI = "trailblaze://registry"
_LIST_PAGES = 100
#: how long a server that closed its pipes during the handshake gets to be reaped, for its exit code
EXIT_CODE_WAIT_S = 2.0


class Connection:
    """A connected server: its tools, its registry resource, and a way to call it."""

    def __init__(
        self,
        decl: ServerDecl,
        env: Mapping[str, str] | None = None,
        log_path: Path | None = None,
        redact: Callable[[str], str] | None = None,
        *,
        shared: SharedServer | None = None,
    ) -> None:
        self.decl = decl
        #: the run's server this connection reaches over HTTP (``multi_device: http``), if any
        self.shared = shared
        self.env = dict(env or {})
        self.log = ProcessLog(log_path, redact=redact) if decl.kind == "stdio" else None
        self.transport: StdioTransport | None = None
        self.client: Client | None = None
        self.tools: list[mcp_types.Tool] = []
        self.registry: dict[str, Any] | None = None
        self.server_name: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._closed = False
        #: what the connection was doing when it failed, for the message
        self._phase = "initialize"
        self._connected = False

    @property
    def label(self) -> str:
        return self.decl.label

    def tail(self) -> str:
        if self.shared is not None:
            return self.shared.tail()
        return self.log.describe() if self.log is not None else ""

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Spawn (or reach) the server, handshake, list its tools and read its registry, within
        ``startup_timeout_s``; raise :class:`InfrastructureError` when it cannot."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = asyncio.create_task(self._own(), name=f"mcp:{self.label}")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), self.decl.startup_timeout_s)
        except TimeoutError:
            self._ready.cancel()  # the owner task's own error, coming later, is not this one's to report
            if self.transport is not None:
                self.transport.abort = True
            await self.close()
            raise InfrastructureError(self._startup_timeout_message()) from None
        except BaseException:
            self._ready.cancel()
            await self.close()
            raise

    async def close(self) -> None:
        """Shut the server down (seed 003's sequence for spawned ones); idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        task = self._task
        if task is not None and not self._connected:
            task.cancel()  # still connecting: stop the handshake (the transport still shuts down in order)
        if task is not None:
            while not task.done():  # finish the shutdown even if our caller is cancelled
                try:
                    await asyncio.shield(task)
                except asyncio.CancelledError:
                    if not task.done():
                        continue
                except Exception:
                    pass
        if self.log is not None:
            self.log.close()

    async def _own(self) -> None:
        assert self._ready is not None
        try:
            async with Client(
                self._transport(),
                mode="legacy",
                cache=None,
                client_info=mcp_types.Implementation(name="trailblaze", version=_version()),
            ) as client:
                self.client = client
                info = client.server_info
                self.server_name = info.name if info is not None else None
                self._phase = "tools/list"
                self.tools = await self._list_tools(client)
                self._phase = "resources/read trailblaze://registry"
                self.registry = await self._read_registry(client)
                self._phase = "tools/call"
                self._connected = True
                if not self._ready.done():
                    self._ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # the owner task is where connection faults surface
            if self._ready is not None and not self._ready.done():
                if not isinstance(exc, asyncio.CancelledError):
                    await self._exit_code_known()
                self._ready.set_exception(self._startup_error(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.client = None

    def _transport(self) -> Any:
        decl = self.decl
        if decl.kind == "http":
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers=dict(decl.headers), timeout=httpx2.Timeout(decl.timeout_s, connect=5))
            return _HttpTransport(streamable_http_client(str(decl.url), http_client=http), http)
        assert decl.command is not None
        assert self.log is not None
        self.transport = StdioTransport(
            decl.command,
            decl.args,
            self.env,
            decl.cwd,
            self.log,
            fork=eligible(decl),
        )
        return self.transport

    async def _list_tools(self, client: Client) -> list[mcp_types.Tool]:
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        for _ in range(_LIST_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self._check_names(tools)
        return tools

    def _check_names(self, tools: list[mcp_types.Tool]) -> None:
        """Refuse a tool name the MCP specification does not allow (1–128 characters of
        ``A-Z a-z 0-9 _ . -``: an LLM API would refuse every request offering it) and a name the
        server lists twice (which of the two a call reaches would be a guess)."""
        seen: set[str] = set()
        for tool in tools:
            name = tool.name
            if not MCP_NAME.match(name):
                raise InfrastructureError(
                    f"MCP server {self.decl.where} lists a tool named {_shown_name(name)}, which is not a valid MCP "
                    "tool name (1 to 128 characters of A-Z, a-z, 0-9, '_', '.' and '-'): rename it in the server"
                )
            if name in seen:
                raise InfrastructureError(
                    f"MCP server {self.decl.where} lists the tool {name!r} twice: tool names must be unique"
                )
            seen.add(name)

    async def _read_registry(self, client: Client) -> dict[str, Any] | None:
        """The server's ``trailblaze://registry`` resource (seed 000), when it has one."""
        if client.server_capabilities.resources is None:
            return None
        try:
            result = await client.read_resource(REGISTRY_URI)
        except MCPError:
            return None  # no such resource: a server that does not know Trailblaze
        for content in result.contents:
            text = getattr(content, "text", None)
            if text is None:
                continue
            try:
                data = jsonsource.parse(text)
            except ValueError as exc:
                raise InfrastructureError(f"MCP server {self.decl.where}: {REGISTRY_URI} is not JSON: {exc}") from None
            if not isinstance(data, dict):
                raise InfrastructureError(f"MCP server {self.decl.where}: {REGISTRY_URI} must be a JSON object")
            return data
        return None

    # -- calls -------------------------------------------------------------------------------------

    async def call(
        self, name: str, arguments: dict[str, Any], meta: dict[str, Any], timeout: float | None = None
    ) -> mcp_types.CallToolResult:
        """``tools/call``; faults (timeout, crash, protocol) raise :class:`InfrastructureError`."""
        client = self.client
        limit = timeout or self.decl.timeout_s
        if client is None:
            raise InfrastructureError(self._gone_message(f"cannot call {name}"))
        chatter = self._notifications()
        try:
            result = await client.call_tool(name, arguments, read_timeout_seconds=limit, meta=meta)  # type: ignore[arg-type]
        except MCPError as exc:
            if exc.code == mcp_types.REQUEST_TIMEOUT:
                raise InfrastructureError(self._timeout_message(name, limit, self._notifications() - chatter)) from None
            if self._dead() or exc.code == mcp_types.CONNECTION_CLOSED:
                await self._settle()
                raise InfrastructureError(self._gone_message(f"during a call to {name}")) from None
            raise InfrastructureError(
                f"MCP server {self.decl.where} answered tools/call {name} with error {exc.code}: {exc.message}"
            ) from None
        except TimeoutError:
            raise InfrastructureError(self._timeout_message(name, limit, self._notifications() - chatter)) from None
        except ValidationError as exc:  # the SDK checks the result's shape: say what was wrong, briefly
            raise InfrastructureError(
                f"MCP server {self.decl.where} answered tools/call {name} with a malformed result: {_invalid(exc)}"
            ) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError):
            await self._settle()
            raise InfrastructureError(self._gone_message(f"during a call to {name}")) from None
        if not isinstance(result, mcp_types.CallToolResult):
            raise InfrastructureError(
                f"MCP server {self.decl.where}: unexpected tools/call result {type(result).__name__}"
            )
        return result

    # -- messages ------------------------------------------------------------------------------------

    def _timeout_message(self, name: str, limit: float, notifications: int = 0) -> str:
        meanwhile = f"; it sent {notifications} log or progress notifications meanwhile" if notifications else ""
        return (
            f"MCP server {self.decl.where}: tool {name} did not answer within {limit:g}s "
            f"({self.decl.timeout_from}){meanwhile}{self.tail()}"
        )

    def _notifications(self) -> int:
        return self.transport.notifications if self.transport is not None else 0

    async def _settle(self, timeout: float = 2.0) -> None:
        """A closed pipe comes before the exit status: wait a moment for it, to report it."""
        shared = self.shared
        if shared is not None:  # a closed connection comes before the exit status, over HTTP too
            with anyio.move_on_after(timeout):
                while shared.returncode is None:  # noqa: ASYNC110 - no exit event
                    await anyio.sleep(0.01)
            return
        transport = self.transport
        if transport is None or transport.process is None:
            return
        with anyio.move_on_after(timeout):
            while transport.returncode is None and transport.fault is None:  # noqa: ASYNC110 - no exit event
                await anyio.sleep(0.01)

    def _dead(self) -> bool:
        if self.shared is not None and self.shared.gone:
            return True
        transport = self.transport
        return transport is not None and (transport.fault is not None or transport.returncode is not None)

    @property
    def dead(self) -> bool:
        """The server is gone (exited, faulted, or the client was closed)."""
        return self.client is None or self._dead()

    def _gone_message(self, when: str) -> str:
        transport = self.transport
        if transport is not None and transport.fault is not None:
            return f"MCP server {self.decl.where} {transport.fault} {when}{self.tail()}"
        if transport is not None and transport.returncode is not None:
            return f"MCP server {self.decl.where} exited with code {transport.returncode} {when}{self.tail()}"
        shared = self.shared
        if shared is not None and shared.returncode is not None:
            code = shared.returncode
            return f"MCP server {self.decl.where} (shared over HTTP) exited with code {code} {when}{self.tail()}"
        if self.decl.kind == "http":
            return f"MCP server {self.decl.where} at {self.decl.url} closed the connection {when}{self.tail()}"
        return f"MCP server {self.decl.where} closed the connection {when}{self.tail()}"

    def _startup_timeout_message(self) -> str:
        what = "connect and complete" if self.decl.kind == "http" else "start and complete"
        return (
            f"MCP server {self.decl.where} did not {what} the MCP handshake within "
            f"{self.decl.startup_timeout_s:g}s (startup_timeout_s){self.tail()}"
        )

    async def _exit_code_known(self) -> None:
        """A server that exits during the handshake closes its pipes first: give it a moment
        (bounded) to be reaped, so the error can say it exited and with which code."""
        transport = self.transport
        if not isinstance(transport, StdioTransport) or transport.process is None:
            return
        with contextlib.suppress(Exception):
            with anyio.move_on_after(EXIT_CODE_WAIT_S):
                while transport.returncode is None:  # noqa: ASYNC110 - a reaped child sets no event
                    await anyio.sleep(0.02)

    def _startup_error(self, exc: BaseException) -> BaseException:
        root = _root_cause(exc)
        decl = self.decl
        if isinstance(root, InfrastructureError):
            return root
        if isinstance(root, FileNotFoundError) and decl.kind == "stdio":
            return InfrastructureError(f"cannot start MCP server {decl.where}: command not found: {decl.command}")
        if isinstance(root, PermissionError) and decl.kind == "stdio":
            return InfrastructureError(f"cannot start MCP server {decl.where}: not executable: {decl.command}")
        # the SDK's own "Connection closed" is -32000 too: a server's -32000 error has its own words
        if isinstance(root, MCPError) and not (
            root.code == mcp_types.CONNECTION_CLOSED and root.message == "Connection closed"
        ):
            message = limits.shorten(root.message)
            return InfrastructureError(
                f"MCP server {decl.where} refused {self._phase}: {message} (error {root.code}){self.tail()}"
            )
        if isinstance(root, ValidationError):
            return InfrastructureError(
                f"MCP server {decl.where} answered {self._phase} with something that is not valid MCP: "
                f"{_invalid(root)}{self.tail()}"
            )
        if decl.kind == "http":
            return InfrastructureError(f"cannot reach MCP server {decl.where} at {decl.url}: {_describe(root)}")
        transport = self.transport
        if transport is not None and transport.fault is not None:
            return InfrastructureError(f"MCP server {decl.where} {transport.fault}{self.tail()}")
        if transport is not None and transport.returncode is not None:
            return InfrastructureError(
                f"MCP server {decl.where} exited with code {transport.returncode} before completing the "
                f"MCP handshake{self.tail()}"
            )
        return InfrastructureError(f"MCP server {decl.where} failed the MCP handshake: {_describe(root)}{self.tail()}")


class _HttpTransport:
    """The SDK's Streamable HTTP transport, closing the HTTP client it was given."""

    def __init__(self, inner: Any, http: Any) -> None:
        self._inner = inner
        self._http = http

    async def __aenter__(self) -> Any:
        return await self._inner.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        try:
            return await self._inner.__aexit__(*exc)
        finally:
            with contextlib.suppress(Exception):
                await self._http.aclose()


def _root_cause(exc: BaseException) -> BaseException:
    """The SDK wraps errors twice in exception groups; find the first real one."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)] or list(exc.exceptions)
        exc = inner[0]
    return exc


def _invalid(exc: ValidationError, shown: int = 3) -> str:
    """A pydantic error in one line: where and what, for the first few problems (not the dump)."""
    errors = exc.errors(include_url=False)
    parts = [f"{'.'.join(str(p) for p in e['loc']) or 'the message'}: {e['msg']}" for e in errors[:shown]]
    more = f" (and {len(errors) - shown} more)" if len(errors) > shown else ""
    return "; ".join(parts) + more


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, MCPError):
        return f"{exc.message} (error {exc.code})"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _version() -> str:
    from trailblaze import __version__

    return __version__


def _shown_name(name: str) -> str:
    """A tool name as a message shows it: quoted with its escapes, cut when long."""
    if not name:
        return "'' (empty)"
    if len(name) > 80:
        return f"{name[:60]!r}… ({len(name)} characters)"
    return repr(name)
