"""The stdio transport: a server subprocess Trailblaze owns, from spawn to the last kill.

Written here rather than taken from the SDK because Trailblaze needs what the SDK's does not
give: every stderr line in a per-session log file and a rolling tail for error messages, a
clear fault when the server writes something that is not JSON-RPC to stdout (instead of a
handshake that times out), and seed 003's shutdown — close stdin, wait up to 5 s, SIGTERM the
process group, wait 2 s, SIGKILL. The server runs in its own process group, so a launcher
(``npx``, a shell script) and everything it started go down together, and Ctrl-C in the
terminal reaches Trailblaze only: Trailblaze then shuts the servers down in order.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Any

import anyio
import anyio.abc
import mcp_types
from mcp.shared.message import SessionMessage

from trailblaze.core import processes
from trailblaze.core.processlog import ProcessLog
from trailblaze.mcpclient import prefork
from trailblaze.mcpclient.pipes import PipedProcess, PipeReader, PipeWriter

#: a stderr "line" longer than this is cut into pieces as it arrives (nothing waits for its end)
STDERR_CHUNK = 64 * 1024
#: seconds a server has to exit after its stdin closes, then after SIGTERM (seed 003)
GRACE_S = 5.0
TERM_S = 2.0
_POLL_S = 0.01

#: notifications read off the pipe and not handed to the SDK: nothing here acts on a server's
#: log messages or progress, and the SDK starts a task for each one it gets (some 200 µs): a
#: server that sent 200,000 before its answer was reported as one that "did not answer within 10s"
DRAINED = frozenset({"notifications/message", "notifications/progress"})

#: process groups of servers still running, killed at interpreter exit if anything slipped through
_LIVE: set[int] = set()


def kill_all() -> None:
    """SIGKILL every server still running (and the prefork helpers): Trailblaze is ending now."""
    for pgid in list(_LIVE):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    prefork.kill_helpers()


atexit.register(kill_all)
processes.on_die_now(kill_all)


class StdioTransport:
    """An MCP transport (an async context manager yielding the SDK's read and write streams)
    over a subprocess. After it closes, :attr:`returncode` and :attr:`fault` say what happened."""

    def __init__(
        self,
        command: str,
        args: Sequence[str],
        env: Mapping[str, str],
        cwd: str | None,
        log: ProcessLog,
        *,
        fork: bool = False,
    ) -> None:
        self.command = command
        #: start it as a fork of the prefork helper when the session has one (see prefork)
        self.fork = fork
        self.args = list(args)
        self.env = dict(env)
        self.cwd = cwd
        self.log = log
        self.process: anyio.abc.Process | None = None
        #: set when the server broke the protocol (what it wrote to stdout)
        self.fault: str | None = None
        #: skip the polite wait at shutdown (the server is already known to be broken)
        self.abort = False
        #: log and progress notifications the server sent (read and set aside: see DRAINED)
        self.notifications = 0
        self._cm: contextlib.AbstractAsyncContextManager[Any] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process is not None else None

    async def __aenter__(self) -> Any:
        self._cm = self._run()
        return await self._cm.__aenter__()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        assert self._cm is not None
        return await self._cm.__aexit__(exc_type, exc, tb)

    @contextlib.asynccontextmanager
    async def _run(self) -> AsyncIterator[Any]:
        process = await self._start()
        self.process = process
        _LIVE.add(process.pid)
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

        async def stdout_reader() -> None:
            # linear in the size of a message: each byte is appended and searched once (a 50 MB
            # result used to be re-scanned and re-copied for every 64 KB chunk: 15 s)
            assert process.stdout is not None
            buffer = bytearray()
            scanned = 0
            async with read_writer:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                    async for chunk in process.stdout:
                        buffer += chunk
                        while True:
                            end = buffer.find(b"\n", scanned)
                            if end < 0:
                                scanned = len(buffer)
                                break
                            line = bytes(buffer[:end])
                            del buffer[: end + 1]
                            scanned = 0
                            if not line.strip():
                                continue
                            try:
                                message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                            except ValueError:
                                text = line.decode("utf-8", "replace")
                                self.fault = f"wrote something that is not JSON-RPC to stdout: {text[:200]!r}"
                                self.abort = True
                                return  # closing the read stream fails what is pending
                            if isinstance(message, mcp_types.JSONRPCNotification) and message.method in DRAINED:
                                self.notifications += 1  # a sign of life, and nothing the session acts on
                                continue
                            await read_writer.send(SessionMessage(message))

        stderr_done = anyio.Event()

        async def stderr_reader() -> None:
            assert process.stderr is not None
            buffer = b""
            try:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                    async for chunk in process.stderr:
                        buffer += chunk
                        *lines, buffer = buffer.split(b"\n")
                        if len(buffer) > STDERR_CHUNK:  # a "line" without end: log it in pieces
                            lines.append(buffer)
                            buffer = b""
                        for line in lines:
                            self.log.write(line.decode("utf-8", "replace").rstrip("\r"))
                if buffer:
                    self.log.write(buffer.decode("utf-8", "replace"))
            finally:
                stderr_done.set()

        async def stdin_writer() -> None:
            assert process.stdin is not None
            try:
                async with write_reader:
                    async for message in write_reader:
                        data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                        await process.stdin.send(data.encode("utf-8"))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_writer.aclose()

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(stdout_reader)
                tg.start_soon(stderr_reader)
                tg.start_soon(stdin_writer)
                try:
                    yield read_stream, write_stream
                finally:
                    with anyio.CancelScope(shield=True):
                        read_stream.close()
                        write_stream.close()
                        await self._stop(process)
                        with anyio.move_on_after(1):  # the last words on stderr often say why
                            await stderr_done.wait()
                        for stream in (process.stdout, process.stderr):
                            if stream is not None:
                                with contextlib.suppress(Exception):
                                    await stream.aclose()
                    tg.cancel_scope.cancel()
        finally:
            self.log.close()  # the tail stays readable; the file is complete

    async def _start(self) -> anyio.abc.Process:
        marker = processes.arm()  # what the server starts and leaves behind is swept with the run
        env = {**self.env, processes.TOKEN_VARIABLE: marker} if marker is not None else self.env
        helper = prefork.current() if self.fork else None
        if helper is not None:
            with contextlib.suppress(OSError):  # the helper is gone: spawn it the usual way
                return await helper.spawn(self.args, env, self.cwd)
        process = await asyncio.create_subprocess_exec(
            self.command,
            *self.args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=self.cwd,
            start_new_session=True,
            preexec_fn=processes.die_with_parent_setup(),  # one prctl call: no lock is taken
        )
        return SpawnedProcess(process)

    async def _stop(self, process: anyio.abc.Process) -> None:
        """Seed 003's shutdown: close stdin, wait, SIGTERM the group, wait, SIGKILL it.

        Bounded in time, and safe against cancellation: if the wait is interrupted, the group is
        killed at once rather than left running. After Ctrl-C, SIGTERM comes with the closed
        stdin and SIGKILL half a second later: a server hung in a call is gone within a second.
        """
        pgid = process.pid
        try:
            if process.stdin is not None:
                with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await process.stdin.aclose()
            hurried = processes.hurried()
            if hurried:  # interrupted: the user wants out, not a polite wait for each server
                processes.signal_group(pgid, signal.SIGTERM)
            exited = not self.abort and await _wait_exit(process, GRACE_S)
            if not exited and not hurried:
                processes.signal_group(pgid, signal.SIGTERM)
                exited = await _wait_exit(process, TERM_S)
            if not exited:
                processes.signal_group(pgid, signal.SIGKILL)
                await _wait_exit(process, TERM_S)
            if processes.group_alive(pgid):  # the server is gone, but something it started is not
                processes.signal_group(pgid, signal.SIGTERM)
                start = anyio.current_time()
                while processes.group_alive(pgid) and anyio.current_time() - start < processes.grace(TERM_S):  # noqa: ASYNC110 - a process group has no event to wait on
                    await anyio.sleep(_POLL_S)
                processes.signal_group(pgid, signal.SIGKILL)
        except BaseException:
            processes.signal_group(pgid, signal.SIGKILL)
            raise
        finally:
            _LIVE.discard(pgid)


async def _wait_exit(process: anyio.abc.Process, timeout: float) -> bool:
    """Whether the process exited within ``timeout`` (polls: ``wait()`` also waits for pipes).
    Once the run is interrupted the wait is shortened, also while it is under way."""
    start = anyio.current_time()
    while process.returncode is None:
        if anyio.current_time() - start >= processes.grace(timeout):
            return False
        await anyio.sleep(_POLL_S)
    return True


class SpawnedProcess(PipedProcess):
    """A server spawned as a subprocess (asyncio's, for ``preexec_fn``), as anyio sees one."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        super().__init__(PipeWriter(process.stdin), PipeReader(process.stdout), PipeReader(process.stderr))
        self._process = process

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    async def wait(self) -> int:
        return await self._process.wait()

    def send_signal(self, signal: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            self._process.send_signal(signal)
