"""The MCP server behind ``trailblaze mcp``, on the SDK's low-level ``Server``.

The low-level server fits because the tools change while a client is connected: the device's
tools appear when it connects, the mode and ``toolbox`` change the list, and the client is told
with ``notifications/tools/list_changed`` each time. Each client connection has its own
:class:`~trailblaze.mcpserver.state.ClientState`, kept in the SDK connection's scratch state and
closed (device, browser, MCP toolset servers) when the connection ends — and, for whatever is
still open, when the server stops.

**Protocol era.** A device, a recording and settings live in a session, so the server speaks the
session-based protocol (MCP 2025-11-25 and earlier: ``initialize``, ``Mcp-Session-Id`` over HTTP).
It answers ``server/discover`` advertising only those versions, so a client that probes for the
sessionless 2026-07-28 protocol (the 2.x SDK's ``mode="auto"``) falls back to the handshake; a
tool called over the sessionless protocol anyway gets an error that says so.
"""

from __future__ import annotations

import asyncio
import os
import sys
import traceback
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from trailblaze import __version__
from trailblaze.core.errors import TrailblazeError
from trailblaze.mcpserver.catalog import INSTRUCTIONS, SERVER_NAME, SERVER_TITLE
from trailblaze.mcpserver.settings import Mode

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

    from trailblaze.mcpserver.calls import Call, Reply
    from trailblaze.mcpserver.state import ClientState, Defaults
    from trailblaze.runner.project import Project

_STATE_KEY = "trailblaze.mcp"
#: what the server tells clients about: the tools change (device, mode, toolbox) and so does the
#: list of resources (a trail saved)
_NOTIFICATIONS = NotificationOptions(tools_changed=True, resources_changed=True)


class _Server(Server[Any]):
    """The SDK's server, announcing ``tools.listChanged`` on every transport (the HTTP session
    manager asks for the initialization options without notification options)."""

    def create_initialization_options(
        self, notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        notifications = notification_options or _NOTIFICATIONS
        return super().create_initialization_options(notifications, *args, **kwargs)


class McpApp:
    """The server and every client session it holds."""

    def __init__(self, project: Project, defaults: Defaults) -> None:
        self.project = project
        self.defaults = defaults
        from trailblaze.mcpserver.state import DeviceSlots

        self.states: list[ClientState] = []
        #: devices held by all sessions at once, up to --max-sessions
        self.device_slots = DeviceSlots(defaults.max_sessions)
        self._closing: set[asyncio.Task[None]] = set()
        self._adopted: ClientState | None = None
        self.server: Server[Any] = _Server(
            SERVER_NAME,
            version=__version__,
            title=SERVER_TITLE,
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
        )
        self.server.add_request_handler("server/discover", types.RequestParams, self._discover)
        # innermost, so the SDK's own middleware (OpenTelemetry) sees the error it answers
        self.server.middleware.append(_Answering(project.config.root))

    def adopt(self, state: ClientState) -> None:
        """Give the next client connection ``state``: the session the stdio prelude began
        (:mod:`.prelude`) goes on with the settings and tools it listed."""
        state.slots = self.device_slots
        self._adopted = state

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options(_NOTIFICATIONS)

    # -- sessions --------------------------------------------------------------------------------

    def state_for(self, ctx: ServerRequestContext[Any, Any]) -> ClientState:
        """The state of the client connection ``ctx`` belongs to, created on first use."""
        from trailblaze.mcpserver.state import ClientState

        connection = _connection(ctx)
        state: ClientState | None = connection.state.get(_STATE_KEY)
        if state is None:
            state, self._adopted = (
                self._adopted or ClientState(self.project, self.defaults, slots=self.device_slots),
                None,
            )
            connection.state[_STATE_KEY] = state
            self.states.append(state)
            connection.exit_stack.push_async_callback(self._release, state)
        return state

    async def _release(self, state: ClientState) -> None:
        """The connection ended: close its device in the background (the SDK bounds its own
        teardown; closing a browser or toolset servers must not be cut short)."""
        task = asyncio.get_running_loop().create_task(self._close_state(state))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close_state(self, state: ClientState) -> None:
        await state.close()
        if state in self.states:
            self.states.remove(state)

    async def close(self) -> None:
        """Close every client's device, browser and MCP toolset servers (the server stops)."""
        await asyncio.gather(*(self._close_state(s) for s in list(self.states)), return_exceptions=True)
        if self._closing:
            await asyncio.gather(*list(self._closing), return_exceptions=True)

    # -- requests --------------------------------------------------------------------------------

    async def _discover(self, ctx: ServerRequestContext[Any, Any], params: types.RequestParams) -> types.DiscoverResult:
        return types.DiscoverResult(
            supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
            capabilities=self.server.get_capabilities(_NOTIFICATIONS),
            instructions=INSTRUCTIONS,
        )

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        from trailblaze.mcpserver import catalog

        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return types.ListToolsResult(tools=[types.Tool.model_validate(catalog.session_tool_entry("device"))])
        entries = catalog.tool_entries(self.state_for(ctx))
        return types.ListToolsResult(tools=[types.Tool.model_validate(entry) for entry in entries])

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        from trailblaze.mcpserver import resources

        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return types.ListResourcesResult(resources=[])
        return resources.listing(self.state_for(ctx), params.cursor if params is not None else None)

    async def read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        from mcp.shared.exceptions import MCPError

        from trailblaze.mcpserver import resources

        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            raise MCPError(resources.RESOURCE_NOT_FOUND, "resources belong to a session: connect with initialize")
        return resources.read(self.state_for(ctx), str(params.uri), INSTRUCTIONS)

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return _error_result(
                "trailblaze mcp keeps a device and a recording per session: connect with the initialize "
                f"handshake (protocol {HANDSHAKE_PROTOCOL_VERSIONS[-1]}), not the sessionless {ctx.protocol_version}"
            )
        from trailblaze.mcpserver.calls import ToolError
        from trailblaze.mcpserver.catalog import tool_name

        state = self.state_for(ctx)
        call = self._call(ctx, state)
        name = tool_name(state, params.name)
        arguments = dict(params.arguments or {})
        try:
            reply = await self._dispatch(call, name, arguments)
        except ToolError as exc:
            return _error_result(str(exc))
        except TrailblazeError as exc:
            return _error_result(str(exc))
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:
            print(f"trailblaze mcp: internal error in {name}:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            return _error_result(
                f"internal error in {name}: {type(exc).__name__}: {_relative_paths(str(exc), self.project.config.root)}"
            )
        return _result(reply)

    async def _dispatch(self, call: Call, name: str, arguments: dict[str, Any]) -> Reply:
        from trailblaze.mcpserver.calls import ToolError
        from trailblaze.mcpserver.catalog import SESSION_TOOL_NAMES
        from trailblaze.mcpserver.device_calls import device_tool
        from trailblaze.mcpserver.handlers import HANDLERS

        state = call.state
        if name == "runPrompt" and state.settings.mode is not Mode.TRAILBLAZE_AS_AGENT:
            raise ToolError(
                'runPrompt is trailblaze\'s agent: config(action=SET, key="mode", value="TRAILBLAZE_AS_AGENT") '
                "first, or drive the device with its tools"
            )
        handler = HANDLERS.get(name)
        if handler is not None:
            return await handler(call, arguments)
        if state.device is None and name in state.default_driver_tools():
            # a one-shot client (`mcp-inspector --cli … --tool-name web_navigate`) calls a device
            # tool without connecting first: connect the default device, as step() does
            await HANDLERS["device"](call, {"action": "CONNECT"})
        if state.device is not None and state.device.session is not None and name in state.device.live.registry:
            if state.settings.mode is not Mode.MCP_CLIENT_AS_AGENT:
                raise ToolError(
                    f"{name}: device tools are offered in MCP_CLIENT_AS_AGENT mode; in TRAILBLAZE_AS_AGENT mode "
                    "use step(objective) or runPrompt"
                )
            return await device_tool(call, name, arguments)
        if state.device is None:
            raise ToolError(f"unknown tool {name!r}: connect a device first (device(action=WEB)) to get its tools")
        import difflib

        known = [*HANDLERS, *(s.name for s in state.device_tools(SESSION_TOOL_NAMES))]
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise ToolError(f"unknown tool {name!r}{hint}")

    def _call(self, ctx: ServerRequestContext[Any, Any], state: ClientState) -> Call:
        from trailblaze.mcpserver.calls import Call

        session = ctx.session
        request_id = ctx.request_id

        async def progress(done: float, total: float | None, message: str) -> None:
            await session.report_progress(done, total, message)

        async def tools_changed() -> None:
            await session.send_notification(types.ToolListChangedNotification(), related_request_id=request_id)

        capabilities = session.client_capabilities
        sampling = capabilities.sampling if capabilities is not None else None
        sampler = None
        if sampling is not None and session.can_send_request:

            async def sample(
                messages: list[types.SamplingMessage], system: str, tools: list[types.Tool] | None
            ) -> types.CreateMessageResult | types.CreateMessageResultWithTools:
                return await session.create_message(
                    messages,
                    max_tokens=4096,
                    system_prompt=system,
                    tools=tools,
                    related_request_id=request_id,
                )

            sampler = sample

        async def resources_changed() -> None:
            await session.send_notification(types.ResourceListChangedNotification(), related_request_id=request_id)

        sampling_tools = sampling is not None and sampling.tools is not None
        return Call(state, progress, tools_changed, resources_changed, sampler, sampling_tools)


class _Answering:
    """Server middleware: every request gets an answer with a JSON-RPC error code. The SDK
    answers a handler's unexpected exception with code 0 and the exception's text (absolute
    paths and all); here it is ``-32603`` (internal error) naming the method, with paths relative
    to the project, and the traceback goes to stderr. ``MCPError`` keeps its code, and the SDK
    answers a pydantic ``ValidationError`` (params that do not fit) with ``-32602`` itself."""

    def __init__(self, root: Path) -> None:
        self.root = root

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        from mcp.shared.exceptions import MCPError
        from pydantic import ValidationError

        try:
            return await call_next(ctx)
        except (MCPError, ValidationError):
            raise
        except Exception as exc:
            if ctx.request_id is None:  # a notification: nobody waits for an answer
                raise
            if isinstance(exc, TrailblazeError):
                message = str(exc)
            else:
                print(f"trailblaze mcp: internal error in {ctx.method}:", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)
                message = f"internal error in {ctx.method}: {type(exc).__name__}: {exc}"
            raise MCPError(types.INTERNAL_ERROR, _relative_paths(message, self.root)) from None


def _relative_paths(text: str, root: Path) -> str:
    """``text`` with the project's absolute path made relative (``/home/ada/shop/trails/x`` is
    ``trails/x``) and the home folder shown as ``~``: what a client is told says nothing of
    the machine's layout."""
    for folder in dict.fromkeys((str(root.resolve()), str(root.absolute()))):
        text = text.replace(folder + os.sep, "").replace(folder, ".")
    home = os.path.expanduser("~")
    if home not in ("", os.sep, "~"):
        text = text.replace(home + os.sep, "~" + os.sep)
    return text


def _connection(ctx: ServerRequestContext[Any, Any]) -> Any:
    """The SDK's per-client ``Connection`` (its ``state`` and ``exit_stack`` are documented for
    handlers; the low-level context reaches it through the request's session)."""
    connection = getattr(ctx.session, "_connection", None)
    if connection is None or not hasattr(connection, "state") or not hasattr(connection, "exit_stack"):
        raise RuntimeError("this version of the mcp SDK does not expose the client connection")
    return connection


def _result(reply: Reply) -> types.CallToolResult:
    """The reply as one text block (:mod:`.replies`) and its images; no structured content (no
    tool declares an output schema), so the screen reaches the client once."""
    import base64

    from trailblaze.mcpserver import replies

    data = reply.data
    message = None
    if reply.error:
        message = str(data.get("error") or "failed")
        data = {k: v for k, v in data.items() if k != "error" and v is not None}
    content: list[Any] = [types.TextContent(text=replies.text(message, data, reply.text))]
    for image, mime in reply.images:
        content.append(types.ImageContent(data=base64.b64encode(image).decode("ascii"), mime_type=mime))
    if reply.error:
        return types.CallToolResult(content=content, is_error=True)
    return types.CallToolResult(content=content)


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def quiet_sdk_warnings() -> None:
    """Sampling is deprecated in the 2026-07-28 protocol but is what 2025 clients speak; the SDK
    warns on every use. This process speaks the 2025 protocol on purpose."""
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
