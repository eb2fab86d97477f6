"""The first messages of a stdio session, answered before the ``mcp`` SDK is loaded.

Importing the SDK takes most of a second, which a client would otherwise wait for before its
first ``tools/list`` answer (``@playwright/mcp`` answers in half a second). The opening of a
session is always the same: ``initialize``, ``notifications/initialized``, ``tools/list``.
:class:`Prelude` answers those itself — the ``initialize`` result the SDK would give
(:func:`initialize_result`; a test holds the two equal) and the ``tools/list`` of
:mod:`.catalog` — and hands the connection to the SDK at the first message it does not know,
or once it has answered ``tools/list``.

The hand-over replays the session's opening to the SDK: the client's ``initialize`` under an
id of trailblaze's own (the SDK's answer to it is not sent on, :class:`SdkWire`), its
``initialized`` notification, then every message not yet answered, in order. The client sees
one server throughout; the SDK holds the same session state it would have had.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from trailblaze import __version__
from trailblaze.core import jsonsource
from trailblaze.mcpserver.catalog import INSTRUCTIONS, SERVER_NAME, SERVER_TITLE, tool_entries

if TYPE_CHECKING:
    from trailblaze.mcpserver.state import ClientState
    from trailblaze.mcpserver.stdio import StdinLines, Wire

#: the protocol versions a client can reach through ``initialize`` (the SDK's
#: ``HANDSHAKE_PROTOCOL_VERSIONS``; a test holds them equal), oldest first
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: what the server can do, as the SDK announces it (a test holds them equal)
CAPABILITIES: dict[str, Any] = {"resources": {"listChanged": True, "subscribe": False}, "tools": {"listChanged": True}}
#: the id the replayed ``initialize`` carries; the SDK's answer to it is dropped
REPLAYED_ID = "trailblaze-prelude-initialize"


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` result for a client that asked with ``params``."""
    requested = params.get("protocolVersion")
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "protocolVersion": version,
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": SERVER_NAME, "title": SERVER_TITLE, "version": __version__},
        "instructions": INSTRUCTIONS,
    }


class SdkWire:
    """The wire as the SDK writes to it, without its answer to the replayed ``initialize``."""

    def __init__(self, wire: Wire, *, replayed: bool) -> None:
        self.wire = wire
        self._pending = replayed

    async def write(self, text: str) -> None:
        if self._pending and _is_replayed_answer(text):
            self._pending = False
            return
        await self.wire.write(text)

    async def flush(self) -> None:
        await self.wire.flush()


def _is_replayed_answer(text: str) -> bool:
    try:
        message = jsonsource.parse(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("id") == REPLAYED_ID and "method" not in message


class Prelude:
    """Answers a stdio client's opening messages; see the module docstring."""

    def __init__(
        self,
        lines: StdinLines,
        wire: Wire,
        make_state: Callable[[], ClientState],
        meanwhile: Callable[[], None] | None = None,
    ) -> None:
        self._lines = lines
        self._wire = wire
        self._make_state = make_state
        #: called once ``tools/list`` is answered, while the client decides: loads the SDK
        self._meanwhile = meanwhile
        self.state: ClientState | None = None
        self._initialize: dict[str, Any] | None = None
        self._initialized = False
        #: the message that needs the SDK, as the client sent it
        self._kept: str | None = None
        #: the client closed stdin during the prelude
        self.ended = False
        self._listed = False

    async def run(self) -> None:
        """Answer what the prelude knows until a message needs the SDK or the client closes stdin.
        Once ``tools/list`` is answered, the next message goes to the SDK whatever it is; the SDK
        loads meanwhile (``meanwhile``), and a client that leaves instead finds the server gone
        at once, without waiting for it."""
        while (line := await self._lines.next_raw()) is not None:
            if self._listed or not await self._answer(line):
                self._kept = line
                return
            if self._listed and self._meanwhile is not None:
                self._meanwhile()
        self.ended = True

    async def _answer(self, line: str) -> bool:
        """Answer ``line`` when the prelude can (True), else leave it to the SDK (False)."""
        try:
            message = jsonsource.parse(line)  # nesting bounded: never a RecursionError
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return False
        method, params = message.get("method"), message.get("params")
        if params is not None and not isinstance(params, dict):
            return False
        if self._initialize is None:
            if method != "initialize" or not _is_id(message.get("id")) or not _handshake(params):
                return False
            self._initialize = message
            await self._wire.send({"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(params or {})})
            return True
        if method == "notifications/initialized" and "id" not in message and not self._initialized:
            self._initialized = True
            return True
        if (
            method == "tools/list"
            and self._initialized
            and _is_id(message.get("id"))
            and not (params or {}).get("cursor")
        ):
            if self.state is None:
                self.state = self._make_state()
            result = {"tools": tool_entries(self.state)}
            await self._wire.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            self._listed = True
            return True
        return False

    @property
    def replayed(self) -> bool:
        """Whether the SDK is given the client's ``initialize`` again (and must not answer it)."""
        return self._initialize is not None

    async def replay(self) -> AsyncIterator[str]:
        """What the SDK reads: the session's opening, the message kept for it, then stdin."""
        if self._initialize is not None:
            yield json.dumps({**self._initialize, "id": REPLAYED_ID}) + "\n"
        if self._initialized:
            yield json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
        if self._kept is not None and (checked := await self._lines.check(self._kept)) is not None:
            yield checked
        async for line in self._lines:
            yield line


def _is_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _handshake(params: Any) -> bool:
    """``initialize`` params the prelude answers as the SDK would: a protocol version (any: an
    unknown one is answered with the newest), the client's capabilities and its name."""
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
        return False
    info = params.get("clientInfo")
    return (
        isinstance(params.get("capabilities"), dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )
