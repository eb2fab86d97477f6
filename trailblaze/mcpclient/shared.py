"""One toolset server for every session of a run: ``multi_device: http``.

A run with several sessions at once (several devices, ``--workers N``) would otherwise start
one stdio process of each server per session. An entry with ``multi_device: http`` is started
once instead, with ``--transport http --port N`` appended to its command (``N`` a free port
Trailblaze chose on 127.0.0.1), and every session connects to it over Streamable HTTP at
``http://127.0.0.1:N/mcp``. Nothing in the server's environment names a session: each call
says which session and device it is for in its request ``_meta`` (the invocation id, the
session's callback token, the device), as it does for a server someone else runs at ``url:``,
and the callback server routes what the server calls back with by that invocation id.

The server belongs to the run: started by the first session that needs it (the others wait for
that start), stopped when the last session using it closes — passed, failed or interrupted —
with SIGTERM to its process group, then SIGKILL after a grace (shortened after Ctrl-C). It
runs in a process group of its own, gets the parent-death signal and carries the run's token,
so nothing of it outlives Trailblaze (:mod:`trailblaze.core.processes`). What it prints
(stdout and stderr) goes to ``.trailblaze/logs/<run id>/<server>.http.log``, masked and
rotated as the stdio servers' logs are. A server that exits before it listens, or does not
listen within ``startup_timeout_s``, is an infrastructure error (exit 2) naming the server,
its command and its log — reported once per run, to every session that wanted it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import socket
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze.core import processes
from trailblaze.core.errors import InfrastructureError
from trailblaze.core.processlog import ProcessLog
from trailblaze.device import masking
from trailblaze.mcpclient.declarations import ServerDecl

HOST = "127.0.0.1"
#: where the server answers MCP (the ``mcp`` SDK's and ``@trailblaze/scripting``'s default)
HTTP_PATH = "/mcp"
#: what is appended to the server's command; the port follows ``--port``
TRANSPORT_ARGS = ("--transport", "http")
#: seconds the server has after SIGTERM before its process group gets SIGKILL
STOP_GRACE_S = 5.0
_POLL_S = 0.05
#: bytes taken as one line at most (a server that never ends a line still gets logged)
_CHUNK = 64 * 1024


class SharedServer:
    """One spawned server that listens on HTTP for all the sessions of a run."""

    def __init__(self, decl: ServerDecl, env: Mapping[str, str], log_path: Path) -> None:
        self.decl = decl
        self.env = dict(env)
        self.log_path = log_path
        self.port = 0
        self.log: ProcessLog | None = None
        self.process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._stopped = False
        self._watchers: list[Callable[[str], None]] = []

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}{HTTP_PATH}"

    @property
    def argv(self) -> list[str]:
        assert self.decl.command is not None
        return [self.decl.command, *self.decl.args, *TRANSPORT_ARGS, "--port", str(self.port)]

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process is not None else None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def tail(self) -> str:
        """The last lines it printed, for an error message (with where its whole log is)."""
        return self.log.describe() if self.log is not None else ""

    # -- start -------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Spawn it and wait, within ``startup_timeout_s``, until it listens on its port."""
        self.port = free_port()
        self.log = ProcessLog(self.log_path, redact=masking.redact_known, stream="output")
        marker = processes.arm()  # what it starts and leaves behind is swept with the run
        env = {**self.env, processes.TOKEN_VARIABLE: marker} if marker is not None else self.env
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self.decl.cwd,
                start_new_session=True,  # its own process group: stopped as a whole; Ctrl-C is ours
                preexec_fn=processes.die_with_parent_setup(),
            )
        except FileNotFoundError:
            self.log.close()
            raise InfrastructureError(
                f"cannot start MCP server {self.decl.where}: command not found: {self.decl.command}"
            ) from None
        except OSError as exc:
            self.log.close()
            raise InfrastructureError(f"cannot start MCP server {self.decl.where}: {exc}") from None
        _LIVE.add(self)
        self._reader = asyncio.create_task(self._read_output(), name=f"mcp-http:{self.decl.label}")
        try:
            await self._wait_listening()
        except BaseException:
            await self.stop()
            raise

    async def _wait_listening(self) -> None:
        loop = asyncio.get_running_loop()
        limit = self.decl.startup_timeout_s
        deadline = loop.time() + limit
        while True:
            code = self.returncode
            if code is not None:
                await self._settle()
                raise self._error(f"exited with code {code} before it listened on {HOST}:{self.port}")
            if await self._listening():
                return
            if loop.time() >= deadline:
                await self._settle()
                raise self._error(f"did not listen on {HOST}:{self.port} within {limit:g}s (startup_timeout_s)")
            await asyncio.sleep(_POLL_S)

    async def _listening(self) -> bool:
        """Something accepts on the port, and (where that can be told) it is this server."""
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.port), 1.0)
        except (OSError, TimeoutError):
            return False
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        owner = processes.listener(self.port)
        if owner is None or self.pid is None:
            return True
        try:
            return os.getpgid(owner) == self.pid  # not someone else's that took the port first
        except OSError:
            return True

    def _error(self, what: str) -> InfrastructureError:
        command = " ".join(self.argv)
        return InfrastructureError(
            f"MCP server {self.decl.where} (multi_device: http, shared by the run's sessions) {what}; "
            f"it was started as `{command}` and must serve MCP over Streamable HTTP at "
            f"http://{HOST}:PORT{HTTP_PATH} when given --transport http --port PORT{self.tail()}"
        )

    async def _read_output(self) -> None:
        process = self.process
        assert process is not None and process.stdout is not None and self.log is not None
        buffer = b""
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = await process.stdout.read(_CHUNK)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                if len(buffer) >= _CHUNK:
                    lines.append(buffer)
                    buffer = b""
                for line in lines:
                    self.log.write(line.decode("utf-8", "replace").rstrip("\r"))
        if buffer:
            self.log.write(buffer.decode("utf-8", "replace"))
        code = await process.wait()
        if not self._stopped:  # it died under the run: the sessions using it cannot go on with it
            reason = f"MCP server {self.decl.where} (shared over HTTP) exited with code {code}"
            for watcher in list(self._watchers):
                with contextlib.suppress(Exception):
                    watcher(reason)

    def watch(self, on_exit: Callable[[str], None]) -> None:
        """Have ``on_exit(reason)`` called if the server dies before it is stopped."""
        self._watchers.append(on_exit)

    async def _settle(self) -> None:
        """Its last words (they often say why) are in the log before an error quotes them."""
        if self._reader is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._reader), 1.0)

    # -- stop --------------------------------------------------------------------------------------

    async def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL to what is left after a grace; idempotent, and
        the group is killed at once if the wait itself is cancelled."""
        process = self.process
        if process is not None and not self._stopped:
            self._stopped = True
            pgid = process.pid
            try:
                processes.signal_group(pgid, signal.SIGTERM)
                loop = asyncio.get_running_loop()
                deadline = loop.time() + processes.grace(STOP_GRACE_S)
                while processes.group_alive(pgid) and loop.time() < deadline:  # noqa: ASYNC110 - a group has no event
                    await asyncio.sleep(_POLL_S)
            finally:
                processes.signal_group(pgid, signal.SIGKILL)
                _LIVE.discard(self)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), 2.0)
        reader, self._reader = self._reader, None
        if reader is not None:
            if not reader.done():
                with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                    await asyncio.wait_for(asyncio.shield(reader), 1.0)
                reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        if self.log is not None:
            self.log.close()

    def kill(self) -> None:
        """Trailblaze ends now: SIGKILL the group."""
        if self.process is not None and not self._stopped:
            processes.signal_group(self.process.pid, signal.SIGKILL)

    @property
    def gone(self) -> bool:
        """It exited, or was stopped: calls to it can no longer succeed."""
        return self._stopped or self.returncode is not None


def free_port() -> int:
    """A TCP port nothing listens on now, on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


# -- one per run and server ------------------------------------------------------------------------------


@dataclass(eq=False)
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    server: SharedServer | None = None
    users: int = 0
    #: why it could not start: every later session of the run gets the same answer at once
    failure: InfrastructureError | None = None


_ENTRIES: dict[tuple[int, str, tuple[object, ...]], _Entry] = {}
_LIVE: set[SharedServer] = set()


def kill_all() -> None:
    for server in list(_LIVE):
        server.kill()


atexit.register(kill_all)
processes.on_die_now(kill_all)


def _key(run_id: str, decl: ServerDecl) -> tuple[int, str, tuple[object, ...]]:
    return (id(asyncio.get_running_loop()), run_id, decl.spawn_key)


async def acquire(run_id: str, decl: ServerDecl, env: Mapping[str, str], log_path: Path) -> SharedServer:
    """The run's server for ``decl``, started by the first caller (the others wait for it);
    pair with :func:`release`. A server that died meanwhile is started afresh."""
    key = _key(run_id, decl)
    entry = _ENTRIES.setdefault(key, _Entry())
    async with entry.lock:
        if entry.failure is not None:
            raise InfrastructureError(entry.failure.message, entry.failure.location)
        server = entry.server
        if server is not None and server.gone:  # it died: the next session starts it again
            await server.stop()
            server = entry.server = None
        if server is None:
            server = SharedServer(decl, env, log_path)
            try:
                await server.start()
            except InfrastructureError as exc:
                entry.failure = exc
                raise
            entry.server = server
        entry.users += 1
        return server


async def release(run_id: str, decl: ServerDecl, server: SharedServer) -> None:
    """One session fewer; the last one stops the server."""
    key = _key(run_id, decl)
    entry = _ENTRIES.get(key)
    if entry is None or entry.server is not server:
        await server.stop()
        return
    entry.users -= 1
    if entry.users <= 0:
        del _ENTRIES[key]
        await server.stop()
