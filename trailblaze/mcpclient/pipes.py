"""A server process as anyio sees one: its three pipes as anyio streams over asyncio's, and the
signals. Both ways of starting an MCP server over stdio use it — spawned fresh
(:mod:`trailblaze.mcpclient.stdio`) or forked by the helper (:mod:`trailblaze.mcpclient.prefork`);
each says how it learns the process's pid, exit code and how it signals it."""

from __future__ import annotations

import abc
import asyncio
import signal

import anyio
import anyio.abc


class PipeReader(anyio.abc.ByteReceiveStream):
    """An asyncio reader as an anyio stream; closing it closes ``transport`` (by default the
    reader's own, where asyncio keeps one)."""

    def __init__(self, reader: asyncio.StreamReader, transport: asyncio.BaseTransport | None = None) -> None:
        self._reader = reader
        self._transport = transport if transport is not None else getattr(reader, "_transport", None)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await self._reader.read(max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        if self._transport is not None:
            self._transport.close()


class PipeWriter(anyio.abc.ByteSendStream):
    """An asyncio writer as an anyio stream."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._closed = False

    async def send(self, item: bytes) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        self._writer.write(item)
        await self._writer.drain()

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._writer.close()  # the pipe closes once what is buffered is written: the server sees EOF


class PipedProcess(anyio.abc.Process):
    """A process with three pipes; subclasses give its pid, exit code, wait and signals."""

    def __init__(self, stdin: PipeWriter, stdout: PipeReader, stderr: PipeReader) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._stderr = stderr

    @abc.abstractmethod
    def send_signal(self, signal: int) -> None: ...

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    @property
    def stdin(self) -> anyio.abc.ByteSendStream:
        return self._stdin

    @property
    def stdout(self) -> anyio.abc.ByteReceiveStream:
        return self._stdout

    @property
    def stderr(self) -> anyio.abc.ByteReceiveStream:
        return self._stderr

    async def aclose(self) -> None:
        await self._stdin.aclose()
        await self._stdout.aclose()
        await self._stderr.aclose()
