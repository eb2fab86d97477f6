"""``trailblaze mcp`` over stdio: one JSON-RPC message per line, read without a thread.

The SDK's stdio transport passes a line it cannot parse to the server as an exception, which
only logs it: the client waits for an answer that never comes. Here every line is checked
first, and one that is not a JSON-RPC message gets the error reply JSON-RPC 2.0 prescribes
(``-32700`` for text that is not JSON or nests too deep, ``-32600`` for JSON that is not a
request), with the request's ``id`` whenever it can be read (:mod:`.jsonrpc`), as Streamable
HTTP answers too.

A line longer than :data:`MAX_MESSAGE_BYTES` cannot be read to its end in bounded memory: the
client gets a ``-32600`` error, the server says why on stderr, closes the session and exits
with code 2 (:class:`MessageTooLarge`) — rather than taking the cut-off line for the end of
input and exiting 0 while the client is still writing.

When stdin and stdout are pipes (or a terminal), the session's opening is answered by
:mod:`.prelude` before the SDK is imported (:mod:`.serve` puts the two together); stdout is
then :class:`Wire`, written through the event loop, and fd 1 points at stderr, so what a
browser or toolset server started here prints cannot corrupt the protocol. Otherwise (a file)
the SDK reads and writes on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import stat
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from trailblaze.core import jsonsource
from trailblaze.core.errors import InfrastructureError
from trailblaze.mcpserver.jsonrpc import INVALID_REQUEST, PARSE_ERROR, readable_id

#: the longest JSON-RPC message (one line) the stdio transport reads
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

Reject = Callable[[Any, int, str], Awaitable[None]]


class MessageTooLarge(InfrastructureError):
    """The client sent a line longer than the limit; the session cannot go on."""


class StdinLines:
    """stdin as an async iterator of JSON-RPC lines, read through the event loop.

    The SDK reads stdin in a worker thread that a signal cannot interrupt: Ctrl-C would wait for
    the client's next message. This reads the pipe through the event loop instead. Meanwhile fd 0
    points at the null device, so nothing trailblaze starts (a browser, a toolset server) can
    read the client's messages. Lines that are not JSON-RPC messages are answered through
    ``reject`` and not passed on; blank lines are skipped.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.reader: asyncio.StreamReader | None = None
        self.transport: asyncio.ReadTransport | None = None
        #: answers a malformed line (set once the write side of the transport exists)
        self.reject: Reject | None = None
        self.too_large = False
        #: reading stopped (:meth:`close`): the input has ended for the session
        self.closed = False

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        while True:
            text = await self.next_raw()
            if text is None:
                raise StopAsyncIteration
            checked = await self.check(text)
            if checked is not None:
                return checked

    async def next_raw(self) -> str | None:
        """The next line that is not blank, unchecked (None at the end of input)."""
        while True:
            try:
                line = await self._read_line()
            except StopAsyncIteration:
                return None
            if line.strip():
                return line.decode("utf-8", errors="replace")

    async def check(self, text: str) -> str | None:
        """``text`` when it is a JSON-RPC message; else None, and the client gets the error reply."""
        problem = malformed(text)
        if problem is None:
            return text
        if self.reject is not None:
            await self.reject(*problem)
        return None

    async def _read_line(self) -> bytes:
        if self.closed:
            raise StopAsyncIteration
        if self.reader is None:
            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader(limit=MAX_MESSAGE_BYTES, loop=loop)
            pipe = os.fdopen(self.fd, "rb", buffering=0, closefd=False)
            self.transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
            self.reader = reader
        try:
            line = await self.reader.readline()
        except (asyncio.LimitOverrunError, ValueError):
            self.too_large = True
            if self.reject is not None:
                limit = f"{MAX_MESSAGE_BYTES // (1024 * 1024)} MiB"
                await self.reject(None, INVALID_REQUEST, f"message too large: the limit is {limit}; closing")
            raise StopAsyncIteration from None
        if not line:
            raise StopAsyncIteration
        return line

    def close(self) -> None:
        """Stop reading (before the descriptor is closed under the event loop, or when the client
        has gone): a read waiting for a line ends as at the end of input."""
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def malformed(line: str) -> tuple[Any, int, str] | None:
    """``(id, code, message)`` of the error reply ``line`` deserves, or None when it is a JSON-RPC
    message (request, notification, response or error) the server can take."""
    import mcp_types as types
    from pydantic import ValidationError

    try:  # nesting bounded first: 100,000 '[' must be a parse error, not a RecursionError
        data = jsonsource.parse(line)
    except ValueError as exc:
        return readable_id(line), PARSE_ERROR, f"Parse error: not JSON ({exc})"
    if not isinstance(data, dict):
        kind = "null" if data is None else type(data).__name__
        return None, INVALID_REQUEST, f"Invalid Request: a message is a JSON object, not {kind}"
    request_id = data.get("id")
    usable_id = request_id if _is_id(request_id) else None
    problem = _what_is_wrong(data)
    if problem is None:
        try:
            types.jsonrpc_message_adapter.validate_python(data, by_name=False)
        except ValidationError:
            problem = "not a JSON-RPC 2.0 request, notification or response"
        else:
            return None
    return usable_id, INVALID_REQUEST, f"Invalid Request: {problem}"


def _is_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _what_is_wrong(data: dict[str, Any]) -> str | None:
    if data.get("jsonrpc") != "2.0":
        return 'a message has "jsonrpc": "2.0"'
    if "id" in data and not _is_id(data["id"]) and not (data["id"] is None and "error" in data):
        return '"id" is a string or an integer'
    if "method" in data:
        return None if isinstance(data["method"], str) else '"method" is a string'
    if "id" not in data or not ({"result", "error"} & set(data)):
        return 'a request has a "method" and an "id"; a response has an "id" and a "result" or an "error"'
    return None


@contextlib.contextmanager
def stdin_lines() -> Iterator[StdinLines | None]:
    """A thread-free reader of stdin when it is a pipe, socket or terminal (else None: the SDK's,
    which reads a file or the null device to its end). Other character devices (``/dev/null``)
    cannot be polled: epoll refuses them."""
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
    lines = StdinLines(private)
    try:
        yield lines
    finally:
        lines.close()
        os.dup2(private, 0)
        os.close(private)


class Wire:
    """stdout as the protocol's channel: one JSON-RPC message per line, written through the
    event loop (a client that does not read blocks this writer, not the loop).

    A client that closed its end of stdout has gone away: that ends the session as stdin's end
    does (``on_gone``), quietly — it is how clients disconnect, not a fault — and what the
    server still had to say is dropped."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._writer: asyncio.StreamWriter | None = None
        #: the client closed its end: nothing more is written
        self.gone = False
        #: called once when the client is found gone (ends the session: stdin's reader stops)
        self.on_gone: Callable[[], None] | None = None

    async def write(self, text: str) -> None:
        if self.gone:
            return
        try:
            if self._writer is None:
                loop = asyncio.get_running_loop()
                pipe = os.fdopen(self.fd, "wb", buffering=0, closefd=False)
                transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
                self._writer = asyncio.StreamWriter(transport, protocol, None, loop)
            self._writer.write(text.encode("utf-8"))
            await self._writer.drain()
        except ConnectionError:  # EPIPE, or the transport saw the reading end close
            self.gone = True
            if self.on_gone is not None:
                self.on_gone()

    async def flush(self) -> None:
        """Every write is flushed already (what the SDK's writer calls after each message)."""

    async def send(self, message: dict[str, Any]) -> None:
        await self.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")

    async def reject(self, request_id: Any, code: int, message: str) -> None:
        """The error reply to a line that is not a JSON-RPC message."""
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(ConnectionError):
                self._writer.close()


@contextlib.contextmanager
def stdout_wire() -> Iterator[Wire | None]:
    """stdout as :class:`Wire` when it is a pipe, socket or terminal (else None: the SDK writes to
    it); meanwhile fd 1 points at stderr."""
    try:
        mode = os.fstat(1).st_mode
    except OSError:
        yield None
        return
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(1))):
        yield None
        return
    sys.stdout.flush()
    private = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(2, 1)
    wire = Wire(private)
    try:
        yield wire
    finally:
        wire.close()
        os.dup2(private, 1)
        os.close(private)
