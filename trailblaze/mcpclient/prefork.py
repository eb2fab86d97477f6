"""Start Python MCP servers from a helper that has imported the ``mcp`` SDK once.

A Python MCP server spends most of its start-up importing the SDK (~0.7 s of CPU here), and so
does Trailblaze's own client. With several ``script: x.py`` servers in a session, that import
repeated in every process is what the session waits for — on two cores, four servers took
~1.6× as long as one. So, per event loop, Trailblaze starts one helper process (``_zygote.py``)
as soon as it knows a session has Python script servers, *before* importing the SDK itself, so
the two imports overlap. Each server is then a fork of the helper: its own session and process
group, its own pipes, the environment, working directory and ``sys.argv`` it would have had,
the script run as ``__main__``. To Trailblaze it is an ordinary process: same shutdown (close
stdin, SIGTERM the group, SIGKILL), same stderr log, its exit status reported by the helper.

Only ``script:`` entries ending in ``.py`` that Trailblaze runs with its own interpreter are
forked, and only when their ``env:`` sets no ``PYTHON*`` variable (those change how an
interpreter starts). ``TRAILBLAZE_MCP_PREFORK=0`` turns it off: every server is then spawned
as a fresh process. Forked servers share the helper's hash seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from trailblaze.core import processes
from trailblaze.mcpclient.pipes import PipedProcess, PipeReader, PipeWriter

if TYPE_CHECKING:
    from trailblaze.mcpclient.declarations import ServerDecl

ENV_SWITCH = "TRAILBLAZE_MCP_PREFORK"
_HELPER = Path(__file__).with_name("_zygote.py")


def enabled() -> bool:
    """Not switched off, and on a system with what the helper needs (Linux: pidfds and
    SOCK_SEQPACKET Unix sockets); elsewhere servers are always spawned fresh."""
    if not (sys.platform == "linux" and hasattr(os, "pidfd_open") and hasattr(socket, "SOCK_SEQPACKET")):
        return False
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def eligible(decl: ServerDecl) -> bool:
    """Whether a server can be a fork of the helper (see the module docstring)."""
    return (
        decl.kind == "stdio"
        and enabled()
        and decl.command == sys.executable
        and len(decl.args) >= 1
        and decl.args[0].endswith(".py")
        and not any(key.startswith("PYTHON") for key, _ in decl.env)
    )


class ForkedProcess(PipedProcess):
    """A server forked by the helper, seen as anyio sees a subprocess."""

    def __init__(self, pid: int, helper: Helper, stdin: PipeWriter, stdout: PipeReader, stderr: PipeReader) -> None:
        super().__init__(stdin, stdout, stderr)
        self._pid = pid
        self._helper = helper
        self._returncode: int | None = None

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def returncode(self) -> int | None:
        if self._returncode is None and self._helper.gone:
            # the helper died: the server is an orphan now; it ended once it no longer exists
            try:
                os.kill(self._pid, 0)
            except ProcessLookupError:
                self._returncode = -signal.SIGKILL
            except PermissionError:
                pass
        return self._returncode

    async def wait(self) -> int:
        while self.returncode is None:  # noqa: ASYNC110 - the helper reports the exit; poll for it
            await anyio.sleep(0.01)
        assert self._returncode is not None
        return self._returncode

    def send_signal(self, signal: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal)


class Helper:
    """The helper process of one event loop and the conversation with it."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process = subprocess.Popen(
            [sys.executable, str(_HELPER), str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in the terminal is Trailblaze's to handle
            preexec_fn=processes.die_with_parent_setup(),  # Trailblaze killed: the helper too (and so its forks)
        )
        _HELPERS.add(self)
        theirs.close()
        ours.setblocking(False)
        self._socket = ours
        self._next_id = 0
        self._replies: dict[int, asyncio.Future[dict[str, object]]] = {}
        self._children: dict[int, ForkedProcess] = {}
        #: exits reported before :meth:`spawn` registered the child (a server that ends at once
        #: can end while its pipes are being connected), by pid
        self._early_exits: dict[int, int] = {}
        self.users = 0
        self.gone = False
        self._reader = asyncio.get_running_loop().create_task(self._read(), name="mcp-prefork")

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                data = await loop.sock_recv(self._socket, 65536)
                if not data:
                    break
                message = json.loads(data)
                if "exit" in message:
                    pid, code = int(message["exit"]), int(message["code"])
                    child = self._children.pop(pid, None)
                    if child is not None:
                        child._returncode = code
                    else:
                        self._early_exits[pid] = code
                    continue
                future = self._replies.pop(int(message["id"]), None)
                if future is not None and not future.done():
                    future.set_result(message)
        except (OSError, ValueError):
            pass
        finally:
            self.gone = True
            for future in self._replies.values():
                if not future.done():
                    future.set_exception(OSError("the MCP prefork helper exited"))

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str], cwd: str | None) -> ForkedProcess:
        """Fork ``python ARGV`` from the helper, with fresh pipes for its standard streams."""
        if self.gone:
            raise OSError("the MCP prefork helper exited")
        loop = asyncio.get_running_loop()
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        theirs = [stdin_r, stdout_w, stderr_w]
        ours = [stdin_w, stdout_r, stderr_r]
        try:
            self._next_id += 1
            ident = self._next_id
            future: asyncio.Future[dict[str, object]] = loop.create_future()
            self._replies[ident] = future
            request = {"id": ident, "argv": list(argv), "env": dict(env), "cwd": cwd or os.getcwd()}
            socket.send_fds(self._socket, [json.dumps(request).encode()], theirs)  # one small packet: no wait
            reply = await future
        except BaseException:
            for fd in theirs + ours:
                with contextlib.suppress(OSError):
                    os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        if "pid" not in reply:
            for fd in ours:
                os.close(fd)
            raise OSError(f"the MCP prefork helper could not start the server: {reply.get('error')}")
        pid = int(reply["pid"])  # type: ignore[call-overload]
        stdin = await _writer(loop, stdin_w)
        stdout = await _reader(loop, stdout_r)
        stderr = await _reader(loop, stderr_r)
        process = ForkedProcess(pid, self, stdin, stdout, stderr)
        if pid in self._early_exits:
            process._returncode = self._early_exits.pop(pid)
        else:
            self._children[pid] = process
        return process

    def kill(self) -> None:
        """SIGKILL the helper and every server forked from it (Trailblaze is ending now)."""
        for pid in list(self._children):
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self._process.kill()

    async def close(self) -> None:
        _HELPERS.discard(self)
        with contextlib.suppress(OSError):
            self._socket.close()  # the helper sees EOF and exits
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await self._reader
        with contextlib.suppress(subprocess.TimeoutExpired):
            await asyncio.get_running_loop().run_in_executor(None, self._process.wait, 2)
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()


async def _reader(loop: asyncio.AbstractEventLoop, fd: int) -> PipeReader:
    reader = asyncio.StreamReader(limit=1 << 20, loop=loop)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(fd, "rb", 0)
    )
    return PipeReader(reader, transport)


async def _writer(loop: asyncio.AbstractEventLoop, fd: int) -> PipeWriter:
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), os.fdopen(fd, "wb", 0)
    )
    return PipeWriter(asyncio.StreamWriter(transport, protocol, None, loop))


_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Helper] = weakref.WeakKeyDictionary()
#: helpers not closed yet, for :func:`kill_helpers`
_HELPERS: weakref.WeakSet[Helper] = weakref.WeakSet()


def kill_helpers() -> None:
    """SIGKILL every helper and its servers (a second Ctrl-C, or the interpreter's exit)."""
    for helper in list(_HELPERS):
        helper.kill()


def acquire() -> Helper:
    """The running loop's helper, started on first use (it starts importing at once); pair
    with :func:`release`."""
    loop = asyncio.get_running_loop()
    helper = _SHARED.get(loop)
    if helper is None or helper.gone:
        helper = _SHARED[loop] = Helper()
    helper.users += 1
    return helper


async def release(helper: Helper) -> None:
    """One user fewer; the last one stops the helper (after its servers were shut down)."""
    helper.users -= 1
    if helper.users > 0:
        return
    loop = asyncio.get_running_loop()
    if _SHARED.get(loop) is helper:
        del _SHARED[loop]
    await helper.close()


def current() -> Helper | None:
    """The running loop's helper, if a session acquired one."""
    with contextlib.suppress(RuntimeError):
        helper = _SHARED.get(asyncio.get_running_loop())
        if helper is not None and not helper.gone:
            return helper
    return None
