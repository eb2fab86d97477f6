"""The client SDK for tools that run outside Trailblaze: MCP servers calling back to the device.

Inside an MCP server written with the ``mcp`` SDK::

    from mcp.server.mcpserver import Context, MCPServer
    from trailblaze.mcpclient.sdk import TrailblazeClient

    @server.tool(meta={"trailblaze/isDelegating": True})
    async def sign_in(user: str, ctx: Context) -> dict:
        tb = TrailblazeClient.from_context(ctx)      # this call's device, from the request _meta
        if await tb.is_visible(text="Welcome"):       # the same methods as ctx.commands
            return {"_trailblaze_delegates": []}
        return {"_trailblaze_delegates": [{"tool": "web_click", "args": {…}}]}

Anywhere else, ``TrailblazeClient(base_url, invocation_id, token)`` — the values are in the
call's ``_meta`` (``trailblazeInvocationId``, ``trailblaze.baseUrl``, ``trailblaze.token``) and
in the environment of spawned servers (``TRAILBLAZE_CALLBACK_URL``,
``TRAILBLAZE_CALLBACK_TOKEN``). The methods mirror :class:`trailblaze.Commands` one for one:
actions, queries (never raise for "not found") and assertions (raise
:class:`CommandFailed`, a :class:`trailblaze.ToolFailure`). ``call_tool`` (or ``tb.tools.<name>(**args)``)
runs any tool of the session by name, as ``ctx.tools`` of the TypeScript SDK does. The methods
are those ``sdks/callback-api.openrpc.json`` describes, as the TypeScript SDK's client's are
(a test holds both to it). It needs httpx and nothing heavy.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Awaitable, Callable, Mapping
from itertools import count
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import ToolFailure
from trailblaze.device.commands import ScreenState, ViewNode
from trailblaze.mcpclient import wire

if TYPE_CHECKING:
    import asyncio

    import httpx

    from trailblaze.device.selectors import NodeSelector


class TrailblazeRPCError(Exception):
    """The callback API refused or failed a command (``code`` is the JSON-RPC error code;
    ``exit_code``, for ``call_tool``, what the tool's failure would make of a run: 1 a check did
    not hold, 2 an error, 3 misuse)."""

    def __init__(self, code: int, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.exit_code = exit_code


class CommandFailed(TrailblazeRPCError, ToolFailure):
    """An assertion did not hold on the device (the tool should fail its call)."""


_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()
_IDS = count(1)


def _http() -> httpx.AsyncClient:
    """One HTTP client per event loop, so tool calls reuse connections and leak nothing."""
    import asyncio

    import httpx

    loop = asyncio.get_running_loop()
    client = _CLIENTS.get(loop)
    if client is None or client.is_closed:
        client = _CLIENTS[loop] = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10))
    return client


async def close_connections() -> None:
    """Close the pooled HTTP connections of the running event loop (for hosts that outlive it)."""
    import asyncio

    client = _CLIENTS.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()


class TrailblazeClient:
    """A device-scoped handle on the callback API (see the module docstring)."""

    def __init__(
        self,
        base_url: str | None = None,
        invocation_id: str | None = None,
        token: str | None = None,
        *,
        meta: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        trailblaze = dict((meta or {}).get("trailblaze") or {})
        self.base_url = base_url or trailblaze.get("baseUrl") or os.environ.get("TRAILBLAZE_CALLBACK_URL")
        if not self.base_url:
            raise ValueError(
                "no callback URL: pass base_url, use TrailblazeClient.from_context(ctx) inside a tool call, "
                "or run under Trailblaze (TRAILBLAZE_CALLBACK_URL)"
            )
        self.invocation_id = invocation_id or (meta or {}).get(wire.INVOCATION_KEY)
        self.token = token or trailblaze.get("token") or os.environ.get("TRAILBLAZE_CALLBACK_TOKEN")
        #: the device of this call: id, platform (WEB/ANDROID/IOS), driver, width, height
        self.device: dict[str, Any] = dict(trailblaze.get("device") or {})
        self.session_id: str | None = trailblaze.get("sessionId")
        #: the ``_trailblazeContext`` envelope (memory, device) when the call carried one
        self.context: dict[str, Any] | None = dict(context) if context else None

    @classmethod
    def from_context(cls, ctx: Any) -> TrailblazeClient:
        """The client for the tool call ``ctx`` belongs to: an ``mcp`` SDK server ``Context``, its
        ``request_context``, or the request's ``_meta`` mapping itself."""
        request = getattr(ctx, "request_context", ctx)
        meta = getattr(request, "meta", None) if not isinstance(request, Mapping) else request
        if meta is not None and hasattr(meta, "model_dump"):
            meta = meta.model_dump(by_alias=True, exclude_none=True)
        params = getattr(request, "params", None)
        arguments = params.get("arguments") if isinstance(params, Mapping) else None
        context = arguments.get("_trailblazeContext") if isinstance(arguments, Mapping) else None
        return cls(meta=dict(meta or {}), context=context if isinstance(context, Mapping) else None)

    @property
    def platform(self) -> str | None:
        platform = self.device.get("platform")
        return platform.lower() if isinstance(platform, str) else None

    async def call(self, method: str, **params: Any) -> Any:
        """Run one command by name (``tap``, ``isVisible``…); the typed methods below use this."""
        body: dict[str, Any] = {k: _param(v) for k, v in params.items() if v is not None}
        if self.invocation_id:
            body["_meta"] = {wire.INVOCATION_KEY: self.invocation_id}
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        request = {"jsonrpc": "2.0", "id": next(_IDS), "method": method, "params": body}
        response = await _http().post(str(self.base_url), json=request, headers=headers)
        try:
            message = response.json()
        except ValueError:
            raise TrailblazeRPCError(
                wire.INTERNAL_ERROR, f"HTTP {response.status_code}: {response.text[:200]}"
            ) from None
        error = message.get("error") if isinstance(message, dict) else None
        if error:
            code, text = int(error.get("code", wire.INTERNAL_ERROR)), str(error.get("message", ""))
            data = error.get("data")
            exit_code = data.get("exitCode") if isinstance(data, dict) else None
            raise (CommandFailed if code == wire.COMMAND_FAILED else TrailblazeRPCError)(code, text, exit_code)
        return message.get("result")

    # -- tools by name ---------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Run a tool of the session (built-in, plugin, YAML, MCP) as a trail's call would and
        return what it returned; raise :class:`CommandFailed` when a check failed and
        :class:`TrailblazeRPCError` for other errors (an unknown tool, bad arguments)."""
        return await self.call("call_tool", name=name, arguments=dict(arguments or {}))

    @property
    def tools(self) -> _Tools:
        """``await tb.tools.web_click(ref="css=#go")``: :meth:`call_tool` by attribute."""
        return _Tools(self)

    # -- actions -------------------------------------------------------------------------------

    async def tap(
        self,
        text: str | None = None,
        id: str | None = None,
        index: int | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
    ) -> None:
        await self.call("tap", text=text, id=id, index=index, selector=selector)

    async def input_text(self, text: str) -> None:
        await self.call("input_text", text=text)

    async def launch_app(self, app_id: str, mode: str | None = None) -> None:
        await self.call("launch_app", app_id=app_id, mode=mode)

    async def stop_app(self, app_id: str) -> None:
        await self.call("stop_app", app_id=app_id)

    async def clear_app_data(self, app_id: str) -> None:
        await self.call("clear_app_data", app_id=app_id)

    async def press_back(self) -> None:
        await self.call("press_back")

    async def press_key(self, key: str) -> None:
        await self.call("press_key", key=key)

    async def swipe(self, direction: str = "UP", duration_ms: int | None = None) -> None:
        await self.call("swipe", direction=direction, duration_ms=duration_ms)

    async def scroll(self, direction: str = "DOWN", amount: int | None = None) -> None:
        await self.call("scroll", direction=direction, amount=amount)

    async def navigate(self, url: str) -> None:
        await self.call("navigate", url=url)

    async def fill(self, selector: str, value: str, timeout_ms: int | None = None) -> None:
        await self.call("fill", selector=selector, value=value, timeout_ms=timeout_ms)

    async def evaluate_js(self, script: str, arg: Any = None) -> Any:
        return await self.call("evaluate_js", script=script, arg=arg)

    async def pinch(self, scale: float, duration_ms: int | None = None) -> None:
        await self.call("pinch", scale=scale, duration_ms=duration_ms)

    # -- queries (never raise for "not found") --------------------------------------------------

    async def view_hierarchy(self) -> ViewNode:
        return wire.decode_node(await self.call("view_hierarchy") or {})

    async def capture_screen(self) -> ScreenState:
        return wire.decode_screen(await self.call("capture_screen") or {})

    async def is_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> bool:
        return bool(await self.call("is_visible", text=text, id=id, selector=selector, timeout_ms=timeout_ms))

    async def has_text(self, text: str) -> bool:
        return bool(await self.call("has_text", text=text))

    async def get_element_count(
        self, text: str | None = None, id: str | None = None, selector: NodeSelector | dict[str, Any] | None = None
    ) -> int:
        return int(await self.call("get_element_count", text=text, id=id, selector=selector) or 0)

    async def get_element_text(
        self, id: str | None = None, selector: NodeSelector | dict[str, Any] | None = None
    ) -> str | None:
        result = await self.call("get_element_text", id=id, selector=selector)
        return None if result is None else str(result)

    async def selector_for_ref(self, ref: str) -> dict[str, Any] | None:
        result = await self.call("selector_for_ref", ref=ref)
        return result if isinstance(result, dict) else None

    # -- assertions (raise CommandFailed) ---------------------------------------------------------

    async def assert_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        await self.call("assert_visible", text=text, id=id, selector=selector, timeout_ms=timeout_ms)

    async def wait_until_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        await self.call("wait_until_visible", text=text, id=id, selector=selector, timeout_ms=timeout_ms)

    async def wait_for_selector(self, selector: str, timeout_ms: int | None = None, state: str = "visible") -> None:
        await self.call("wait_for_selector", selector=selector, timeout_ms=timeout_ms, state=state)


class _Tools:
    def __init__(self, client: TrailblazeClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        if name.startswith("_"):
            raise AttributeError(name)

        async def call(**arguments: Any) -> Any:
            return await self._client.call_tool(name, arguments)

        return call


def _param(value: Any) -> Any:
    if hasattr(value, "model_dump"):  # a NodeSelector
        return value.model_dump(by_alias=True, exclude_none=True)
    return value
