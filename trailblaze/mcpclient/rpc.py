"""The callback server: out-of-process tools drive the device while Trailblaze waits for them.

While a tool call to an MCP server is in flight, the server's code may call back with the
same commands Python tools use as ``ctx.commands`` (seed 000, "Invocation Context"). Each
callback names the invocation it belongs to; the invocation says which session's device to
use, whether the tool is delegating, and which session token is allowed to use it.

* Listens on 127.0.0.1 only, on a free port unless ``callback_port:`` is set. One server per
  event loop, shared by the sessions on it (opened with the first, closed with the last).
* Every request needs ``Authorization: Bearer <token>`` with the token of the session that
  owns the invocation (``TRAILBLAZE_CALLBACK_TOKEN``); anything else gets HTTP 401.
* An unknown or finished invocation id gets JSON-RPC error -32602, "Unknown invocation ID: …".
  Without an id, the session's single in-flight invocation is used; with several, the id is
  required.
* During a delegating tool's call, queries and assertions run; actions are refused (the tool
  must return them as ``_trailblaze_delegates``). During an executable tool's call, actions
  run on the device; only the tool call itself is reported, as for Python tools.
* ``callTool`` runs any tool of the session by name (``{"name": "web_click", "arguments":
  {…}}``) the way a trail's call runs: checked against its schema, delegation resolved,
  reported. During a delegating tool's call these tools are what gets recorded in its place
  (Trailblaze performs them, so actions are allowed); during an executable tool's call only
  the tool's own call is recorded. Calls nest at most 16 deep; a failure's error carries
  ``data.exitCode`` (1: a check did not hold, 2: an error, 3: misuse such as an unknown tool).
* ``rpc.discover`` answers the API's OpenRPC description (:func:`openrpc`), the one
  ``sdks/callback-api.openrpc.json`` holds and both client SDKs are tested against.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import secrets
import weakref
from dataclasses import dataclass, field
from typing import Any

from trailblaze.core import jsonsource
from trailblaze.core.errors import ExitCode, ToolFailure, TrailblazeError
from trailblaze.device import masking
from trailblaze.device.commands import DelegationViolation, command_kind, command_names
from trailblaze.mcpclient import wire
from trailblaze.tools.model import ToolContext

MAX_BODY = 16 * 1024 * 1024
MAX_HEADERS = 100
PATH = "/rpc"


@dataclass(slots=True)
class Invocation:
    """One tool call in flight, and what its callbacks may do."""

    id: str
    token: str
    ctx: ToolContext
    tool: str
    delegating: bool
    #: callbacks that failed (added to the tool's error when the tool then fails)
    failures: list[str] = field(default_factory=list)


class RpcError(Exception):
    def __init__(self, code: int, message: str, status: int = 200, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.data = data


class CallbackServer:
    """HTTP JSON-RPC on 127.0.0.1 (see the module docstring)."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or 0
        self._server: asyncio.Server | None = None
        self._invocations: dict[str, Invocation] = {}
        self._sessions: dict[str, set[str]] = {}  # token → ids of its invocations in flight
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    async def start(self) -> None:
        from trailblaze.core.errors import InfrastructureError

        try:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        except OSError as exc:
            raise InfrastructureError(
                f"cannot open the MCP callback server on 127.0.0.1:{self.port}: {exc.strerror or exc} "
                f"(callback_port: in trailblaze.yaml)"
            ) from None
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in list(self._writers):
                writer.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    # -- sessions and invocations ----------------------------------------------------------------

    def new_session(self) -> str:
        """A token for a new session; its callbacks must present it."""
        token = secrets.token_urlsafe(24)
        self._sessions[token] = set()
        return token

    def end_session(self, token: str) -> None:
        for invocation_id in self._sessions.pop(token, set()):
            self._invocations.pop(invocation_id, None)

    def begin(self, invocation: Invocation) -> None:
        self._invocations[invocation.id] = invocation
        self._sessions.setdefault(invocation.token, set()).add(invocation.id)

    def end(self, invocation: Invocation) -> None:
        self._invocations.pop(invocation.id, None)
        self._sessions.get(invocation.token, set()).discard(invocation.id)

    # -- HTTP ----------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                try:
                    request = await _read_request(reader)
                except _BadRequest as exc:
                    await _write(writer, exc.status, {"error": exc.message}, close=True)
                    return
                if request is None:
                    return
                method, path, headers, body = request
                status, payload = await self._respond(method, path, headers, body)
                keep = headers.get("connection", "").lower() != "close"
                await _write(writer, status, payload, close=not keep)
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _respond(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        request_id: Any = None
        try:
            if path.split("?", 1)[0] != PATH:
                raise RpcError(wire.INVALID_REQUEST, f"not found: {path} (POST JSON-RPC to {PATH})", 404)
            if method != "POST":
                raise RpcError(wire.INVALID_REQUEST, f"{method} is not allowed: POST JSON-RPC to {PATH}", 405)
            token = _bearer(headers)
            if token is None or token not in self._sessions:
                raise RpcError(
                    wire.UNAUTHORIZED,
                    "unauthorized: send `Authorization: Bearer <TRAILBLAZE_CALLBACK_TOKEN>` of this session",
                    401,
                )
            try:
                message = jsonsource.parse(body)
            except ValueError as exc:
                raise RpcError(wire.PARSE_ERROR, f"parse error: {exc}") from None
            if not isinstance(message, dict):
                raise RpcError(wire.INVALID_REQUEST, "expected one JSON-RPC request object (no batches)")
            request_id = message.get("id")
            name = message.get("method")
            params = message.get("params", {})
            if message.get("jsonrpc") != "2.0" or not isinstance(name, str) or not isinstance(params, dict):
                raise RpcError(wire.INVALID_REQUEST, 'a request needs "jsonrpc": "2.0", a "method" and "params" {…}')
            if name == DISCOVER:
                return 200, {"jsonrpc": "2.0", "id": request_id, "result": openrpc()}
            invocation = self._invocation(token, params, headers)
            result = await self._call(invocation, name, params)
            shown = masking.redact_value(wire.encode(result), invocation.ctx.secrets)  # servers log what they get
            return 200, {"jsonrpc": "2.0", "id": request_id, "result": shown}
        except RpcError as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            return exc.status, {"jsonrpc": "2.0", "id": request_id, "error": error}

    def _invocation(self, token: str, params: dict[str, Any], headers: dict[str, str]) -> Invocation:
        meta = params.get("_meta")
        invocation_id = (meta.get(wire.INVOCATION_KEY) if isinstance(meta, dict) else None) or headers.get(
            wire.INVOCATION_HEADER.lower()
        )
        if not invocation_id:
            active = self._sessions.get(token, set())
            if len(active) == 1:
                invocation_id = next(iter(active))
            elif not active:
                raise RpcError(
                    wire.INVALID_PARAMS,
                    "no tool call of this session is in flight: callbacks are accepted only while "
                    "Trailblaze waits for a tool call",
                )
            else:
                raise RpcError(
                    wire.INVALID_PARAMS,
                    f"{len(active)} tool calls of this session are in flight: pass the invocation id "
                    f"(params._meta.{wire.INVOCATION_KEY}; TrailblazeClient.from_context does)",
                )
        invocation = self._invocations.get(str(invocation_id))
        if invocation is None or invocation.token != token:
            raise RpcError(
                wire.INVALID_PARAMS,
                f"Unknown invocation ID: {invocation_id}. The tool call may have completed or timed out.",
            )
        return invocation

    async def _call(self, invocation: Invocation, method: str, params: dict[str, Any]) -> Any:
        ctx = invocation.ctx
        device_type = type(ctx.driver)
        name = wire.snake(method)
        if name == CALL_TOOL:
            return await _call_tool(invocation, params)
        kind = command_kind(device_type, name)
        if kind is None:
            known = ", ".join(sorted([*command_names(device_type), CALL_TOOL]))
            raise RpcError(wire.METHOD_NOT_FOUND, f"unknown command {method!r} (commands: {known})")
        if kind == "action" and invocation.delegating:
            message = (
                f"delegating tool {invocation.tool!r} called the action {name}() over the callback API; a "
                f"delegating tool may only query the device and must return the actions as "
                f"_trailblaze_delegates so Trailblaze performs and records them"
            )
            invocation.failures.append(message)
            raise RpcError(wire.ACTION_REFUSED, message)
        kwargs = {wire.snake(k): v for k, v in params.items() if k != "_meta"}
        function = getattr(ctx.commands, name)
        try:
            inspect.signature(getattr(device_type, name)).bind(None, **kwargs)
        except TypeError as exc:
            raise RpcError(wire.INVALID_PARAMS, f"invalid params for {name}: {exc}") from None
        try:
            return await function(**kwargs)
        except (ToolFailure, AssertionError) as exc:
            text = str(exc) or "assertion failed"
            invocation.failures.append(f"{name}: {text}")
            raise RpcError(wire.COMMAND_FAILED, text) from None
        except DelegationViolation as exc:
            raise RpcError(wire.ACTION_REFUSED, str(exc)) from None
        except NotImplementedError as exc:
            raise RpcError(wire.UNSUPPORTED, str(exc) or f"{name} is not supported here") from None
        except ValueError as exc:  # pydantic's ValidationError is one: a malformed selector
            raise RpcError(wire.INVALID_PARAMS, f"invalid params for {name}: {exc}") from None
        except TrailblazeError as exc:
            invocation.failures.append(f"{name}: {exc}")
            raise RpcError(wire.INTERNAL_ERROR, str(exc)) from None
        except Exception as exc:
            invocation.failures.append(f"{name}: {type(exc).__name__}: {exc}")
            raise RpcError(wire.INTERNAL_ERROR, f"{name} raised {type(exc).__name__}: {exc}") from None


async def _call_tool(invocation: Invocation, params: dict[str, Any]) -> Any:
    """``callTool``: run a tool of the session by name through the resolver (``ctx.run_tool``)."""
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str) or not name or not isinstance(arguments, dict):
        raise RpcError(wire.INVALID_PARAMS, 'callTool needs "name": the tool to run, and "arguments": {…}')
    run = invocation.ctx.run_tool
    if run is None:
        raise RpcError(wire.UNSUPPORTED, "tools can be run by name only during a trail's tool call")
    try:
        return await run(name, arguments)
    except ToolFailure as exc:
        invocation.failures.append(str(exc))
        raise RpcError(wire.COMMAND_FAILED, str(exc), data={"exitCode": int(ExitCode.FAILED)}) from None
    except TrailblazeError as exc:
        invocation.failures.append(str(exc))
        code = wire.INVALID_PARAMS if exc.exit_code == ExitCode.USAGE else wire.INTERNAL_ERROR
        raise RpcError(code, str(exc), data={"exitCode": int(exc.exit_code)}) from None


# -- the API's description ----------------------------------------------------------------------------

DISCOVER = "rpc.discover"
CALL_TOOL = "call_tool"
OPENRPC_VERSION = "1.3.2"
#: the callback API's own version: a method or parameter added is a minor change, one removed or
#: renamed a major one (the file both SDKs are tested against says which they were written for)
API_VERSION = "1.1.0"


def openrpc() -> dict[str, Any]:
    """The callback API as an OpenRPC document: every command of :class:`trailblaze.Commands`
    (camelCase, as the TypeScript SDK names them; the server also takes snake_case) with its
    parameters, result and kind (``x-kind``: action, query, assertion), and ``callTool``."""
    from trailblaze.device.commands import Commands, command_names

    methods = [_describe(Commands, name, kind) for name, kind in command_names(Commands).items()]
    methods.append(
        {
            "name": wire.camel(CALL_TOOL),
            "description": "Run any tool of the session by name, as a trail's call runs; returns what it returned.",
            "params": [
                {"name": "name", "required": True, "schema": {"type": "string"}},
                {"name": "arguments", "required": False, "schema": {"type": "object"}},
            ],
            "result": {"name": "output", "schema": {}},
            "x-kind": "tool",
        }
    )
    return {
        "openrpc": OPENRPC_VERSION,
        "info": {
            "title": "Trailblaze callback API",
            "version": API_VERSION,
            "description": (
                "JSON-RPC 2.0 over HTTP POST to TRAILBLAZE_CALLBACK_URL with `Authorization: Bearer "
                "<TRAILBLAZE_CALLBACK_TOKEN>`; params._meta.trailblazeInvocationId names the tool call "
                "(and so the device) a request belongs to."
            ),
        },
        "methods": sorted(methods, key=lambda m: m["name"]),
        "components": {
            "errors": {
                name: {"code": code, "message": message}
                for name, code, message in (
                    ("CommandFailed", wire.COMMAND_FAILED, "an assertion or a check did not hold"),
                    ("ActionRefused", wire.ACTION_REFUSED, "an action during a delegating tool's call"),
                    ("Unsupported", wire.UNSUPPORTED, "the session's driver does not implement the command"),
                    ("InvalidParams", wire.INVALID_PARAMS, "bad parameters, or an unknown invocation or tool"),
                    ("Unauthorized", wire.UNAUTHORIZED, "no or a wrong session token"),
                )
            }
        },
    }


def _describe(cls: type, name: str, kind: str) -> dict[str, Any]:
    import typing

    from trailblaze.device import commands as devicecommands
    from trailblaze.device import selectors

    function = getattr(cls, name)
    hints = typing.get_type_hints(function, vars(devicecommands), {"NodeSelector": selectors.NodeSelector})
    params = []
    for parameter in list(inspect.signature(function).parameters.values())[1:]:
        if parameter.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
            continue  # a driver's keyword-only extras (mobile swipe's start element) are not the API's
        params.append(
            {
                "name": wire.camel(parameter.name),
                "required": parameter.default is inspect.Parameter.empty,
                "schema": _schema(hints[parameter.name], optional=parameter.default is not inspect.Parameter.empty),
            }
        )
    described: dict[str, Any] = {"name": wire.camel(name)}
    doc = inspect.getdoc(function)
    if doc:
        described["description"] = " ".join(doc.split("\n\n", 1)[0].split())
    described["params"] = params
    described["result"] = {"name": "result", "schema": _schema(hints["return"])}
    described["x-kind"] = kind
    return described


def _schema(hint: Any, *, optional: bool = False) -> dict[str, Any]:
    """JSON Schema for a command's parameter or result annotation (``optional``: a parameter with
    a default, whose None means "not given" rather than a value to send)."""
    import types
    import typing

    from trailblaze.device.commands import ScreenState, ViewNode

    if hint is typing.Any:
        return {}
    if hint is type(None):
        return {"type": "null"}
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if not (optional and a is type(None))]
        schemas = [_schema(a) for a in options]
        unique = [s for i, s in enumerate(schemas) if s not in schemas[:i]]
        return unique[0] if len(unique) == 1 else {"anyOf": unique}
    if origin is dict or hint in (ViewNode, ScreenState) or hasattr(hint, "model_json_schema"):
        return {"type": "object"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if hint in simple:
        return {"type": simple[hint]}
    raise TypeError(f"no JSON Schema for the annotation {hint!r}: describe it in trailblaze.mcpclient.rpc._schema")


# -- one server per event loop, shared by its sessions ------------------------------------------------


@dataclass(slots=True)
class _Shared:
    server: CallbackServer
    users: int = 0


_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Shared] = weakref.WeakKeyDictionary()
_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


async def acquire(port: int | None = None) -> CallbackServer:
    """The callback server of the running loop, started on first use; pair with :func:`release`."""
    loop = asyncio.get_running_loop()
    lock = _LOCKS.setdefault(loop, asyncio.Lock())
    async with lock:
        shared = _SHARED.get(loop)
        if shared is None:
            server = CallbackServer(port)
            await server.start()
            shared = _SHARED[loop] = _Shared(server)
        shared.users += 1
        return shared.server


async def release(server: CallbackServer) -> None:
    loop = asyncio.get_running_loop()
    shared = _SHARED.get(loop)
    if shared is None or shared.server is not server:
        await server.close()
        return
    shared.users -= 1
    if shared.users <= 0:
        del _SHARED[loop]
        await server.close()


# -- a small HTTP/1.1 reader and writer ----------------------------------------------------------------


class _BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str], bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _BadRequest(400, "bad request line")
    method, path, _version = parts
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS):
        raw = await reader.readline()
        if raw in (b"\r\n", b"\n", b""):
            break
        key, sep, value = raw.decode("latin-1").partition(":")
        if not sep:
            raise _BadRequest(400, "bad header line")
        headers[key.strip().lower()] = value.strip()
    else:
        raise _BadRequest(431, "too many headers")
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise _BadRequest(411, "send a Content-Length (chunked bodies are not accepted)")
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise _BadRequest(400, "bad Content-Length") from None
    if length < 0 or length > MAX_BODY:
        raise _BadRequest(413, f"body larger than {MAX_BODY} bytes")
    body = await reader.readexactly(length) if length else b""
    return method, path, headers, body


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed"}


async def _write(writer: asyncio.StreamWriter, status: int, payload: Any, *, close: bool) -> None:
    body = json.dumps(payload, default=str).encode("utf-8")  # a tool's output may hold any value
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
        f"Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"Connection: {'close' if close else 'keep-alive'}\r\n"
    )
    if status == 401:
        head += 'WWW-Authenticate: Bearer realm="trailblaze"\r\n'
    writer.write(head.encode("latin-1") + b"\r\n" + body)
    await writer.drain()


def _bearer(headers: dict[str, str]) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
