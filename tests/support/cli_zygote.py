"""``python -m trailblaze ARGS`` for the ``cli`` fixture, without paying Python's start-up each time.

The suite runs the CLI about a thousand times; before this, a third of the suite's CPU was
those processes, and most of a short command is importing Python, trailblaze, pydantic and
Playwright's client. So each pytest worker starts one helper that imports them once — the
prefork helper trailblaze uses for Python MCP servers (``trailblaze.mcpclient._zygote``), told
to preload trailblaze — and every command is a child forked from it: a real process, in its own
session, with the working directory, environment and standard streams it was given, running
``trailblaze`` as ``python -m`` runs it, to its own exit (atexit handlers included). Nothing of
the test process is shared: the helper is a fresh interpreter started before any test ran.

A command goes to a fresh ``python -m trailblaze`` instead when its environment sets a
``PYTHON*`` variable differently from the helper's (those change how an interpreter starts),
when another command of this worker is still running (a test talking to two at once), or when
``TRAILBLAZE_TEST_FRESH_CLI=1`` is set (``make test`` never sets it; set it to rule the helper
out when a failure looks like it could be the helper's doing).

A :class:`Relay` is the same kind of helper, with ``trailblaze mcp``'s modules imported too, for
a command a client spawns itself (the MCP server tests start the server through the ``mcp``
SDK's client): the client spawns tests/support/launcher.py, which has the relay fork the command
on the launcher's own standard streams and stands in for it (see that file).

Run as ``python -m tests.support.cli_zygote FD [MODULE...]``: the helper itself, importing the
MODULEs too.
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
SWITCH = "TRAILBLAZE_TEST_FRESH_CLI"

#: imported once in the helper: what the CLI's commands import anyway (not the built-in
#: tools' schemas, which stay built on first use in each command, as for a user)
PRELOAD = (
    "trailblaze.cli",
    "trailblaze.cli.commands",
    "trailblaze.pluginmanager",
    "trailblaze.runner.validate",
    "trailblaze.runner.run",
    "trailblaze.plugins.core_tools",
    "trailblaze.plugins.web_playwright",
    "trailblaze.plugins.mobile_tools",
    "trailblaze.plugins.openai_agent",
    "trailblaze.drivers.web.driver",
    "trailblaze.drivers.web.tools",
    "trailblaze.drivers.mobile.tools",
    "trailblaze.reports.html",
    "trailblaze.reports.merge",
    "trailblaze.mcpclient.attach",
    "trailblaze.mcpclient.sdk",
    "httpx",
    "wda",
    "playwright.async_api",
    "regex",
    "yaml",
)


#: beside the CLI helper's own preloads: what ``trailblaze mcp`` imports before its first reply
SERVER_PRELOAD = (
    "trailblaze.cli.mcp",
    "trailblaze.mcpserver.server",
    "trailblaze.mcpserver.serve",
    "trailblaze.mcpserver.stdio",
    "trailblaze.mcpserver.http",
    "trailblaze.mcpserver.catalog",
    "trailblaze.mcpserver.recording",
    "trailblaze.mcpserver.state",
)

LAUNCHER = Path(__file__).with_name("launcher.py")
MAX_MESSAGE = 1 << 20


def _python_variables(env: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if key.startswith("PYTHON")}


def _start_helper(env: Mapping[str, str], preload: Sequence[str] = ()) -> tuple[subprocess.Popen[bytes], socket.socket]:
    """A helper (this module run as ``__main__``) importing ``PRELOAD`` and ``preload``, and our
    end of its socket."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.cli_zygote", str(theirs.fileno()), *preload],
        cwd=ROOT,
        env=dict(env),
        pass_fds=[theirs.fileno()],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    theirs.close()
    return process, ours


class CliZygote:
    """One worker's helper and the conversation with it (:meth:`run`)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self._process, self._socket = _start_helper(self._env)
        self._busy = threading.Lock()
        self._next_id = 0

    def can_run(self, env: Mapping[str, str]) -> bool:
        return (
            self._process.poll() is None
            and env.get(SWITCH, "") in ("", "0")
            and _python_variables(env) == _python_variables(self._env)
        )

    def run(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str] | None:
        """Run ``python -m trailblaze ARGS`` as a fork of the helper; None when it should be a
        fresh process instead (see the module docstring)."""
        if not self.can_run(env) or not self._busy.acquire(blocking=False):
            return None
        try:
            return self._run(list(args), cwd, env, timeout)
        finally:
            self._busy.release()

    def _run(
        self, args: list[str], cwd: Path, env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        self._next_id += 1
        ident = self._next_id
        request = {"id": ident, "module": "trailblaze", "argv": ["-m", *args], "cwd": str(cwd), "env": dict(env)}
        with (
            open(os.devnull, "rb") as stdin,
            tempfile.TemporaryFile() as stdout,
            tempfile.TemporaryFile() as stderr,
        ):
            streams = [stdin.fileno(), stdout.fileno(), stderr.fileno()]
            socket.send_fds(self._socket, [json.dumps(request).encode()], streams)
            started = self._receive(30)
            if "pid" not in started:
                raise RuntimeError(f"the CLI helper could not fork: {started}")
            pid = int(started["pid"])
            try:
                ended = self._receive(timeout)
            except TimeoutError:
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)
                self._receive(30)
                raise subprocess.TimeoutExpired(
                    [sys.executable, "-m", "trailblaze", *args], timeout, _text(stdout), _text(stderr)
                ) from None
            return subprocess.CompletedProcess(args, int(ended["code"]), _text(stdout), _text(stderr))

    def _receive(self, timeout: float) -> dict[str, object]:
        self._socket.settimeout(timeout)
        data = self._socket.recv(65536)
        if not data:
            raise RuntimeError("the CLI helper exited")
        message: dict[str, object] = json.loads(data)
        return message

    def close(self) -> None:
        self._socket.close()  # the helper sees EOF and exits
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()


class Relay:
    """One worker's helper for servers a client spawns through the launcher
    (tests/support/launcher.py), and the thread that serves the launchers."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self._folder = tempfile.mkdtemp(prefix="tb-launch-")
        self.address = os.path.join(self._folder, "relay")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._listener.bind(self.address)
        self._listener.listen(16)
        self._process, self._helper = _start_helper(self._env, SERVER_PRELOAD)
        #: how many commands the helper has forked for launchers (the tests read it)
        self.forked = 0
        self._wake_read, self._wake_write = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name="launcher-relay", daemon=True)
        self._thread.start()

    def command(self, args: Sequence[str]) -> list[str]:
        """The command line a client spawns for ``python -m trailblaze ARGS``."""
        return [sys.executable, str(LAUNCHER), self.address, *args]

    def _serve(self) -> None:
        """The relay's thread. However it ends, the listener and every launcher's connection
        close with it: a launcher then sees its relay gone, and later ones start fresh."""
        selector = selectors.DefaultSelector()
        try:
            self._relay(selector)
        finally:
            for key in list(selector.get_map().values()):
                if key.data == "launcher":
                    key.fileobj.close()  # type: ignore[union-attr]
            selector.close()
            self._listener.close()

    def _relay(self, selector: selectors.BaseSelector) -> None:
        selector.register(self._listener, selectors.EVENT_READ, "listener")
        selector.register(self._helper, selectors.EVENT_READ, "helper")
        selector.register(self._wake_read, selectors.EVENT_READ, "wake")
        waiting: dict[int, socket.socket] = {}  # request id -> launcher
        orphans: set[int] = set()  # requests whose launcher went before the child's pid came
        children: dict[socket.socket, int] = {}  # launcher -> its child's pid
        next_id = 0

        def reply(launcher: socket.socket, message: dict[str, object]) -> None:
            with contextlib.suppress(OSError):
                launcher.send(json.dumps(message).encode())

        def kill(pid: int) -> None:
            # its group, and the child itself: a child only just forked may not have made its
            # own session yet, and then has no group of that number
            for kill_one in (os.killpg, os.kill):
                with contextlib.suppress(OSError):
                    kill_one(pid, signal.SIGKILL)

        def drop(launcher: socket.socket) -> None:
            selector.unregister(launcher)
            launcher.close()
            orphans.update(ident for ident, waiter in waiting.items() if waiter is launcher)
            pid = children.pop(launcher, None)
            if pid is not None:  # gone before its child: the child goes too
                kill(pid)

        while True:
            for key, _ in selector.select():
                if key.data == "wake":
                    return
                if key.data == "listener":
                    launcher, _ = self._listener.accept()
                    selector.register(launcher, selectors.EVENT_READ, "launcher")
                    continue
                if key.data == "helper":
                    data = self._helper.recv(MAX_MESSAGE)
                    if not data:  # the helper is gone: so is every launcher's child
                        for launcher in list(children):
                            reply(launcher, {"code": -signal.SIGKILL})
                        return
                    message = json.loads(data)
                    if "exit" in message:
                        pid = int(message["exit"])
                        for launcher in [waiter for waiter, child in children.items() if child == pid]:
                            del children[launcher]
                            reply(launcher, {"code": message["code"]})
                        continue
                    ident = int(message["id"])
                    launcher = waiting.pop(ident, None)
                    if ident in orphans:
                        orphans.discard(ident)
                        if "pid" in message:
                            kill(int(message["pid"]))
                        continue
                    if launcher is None:
                        continue
                    if "pid" in message:
                        self.forked += 1
                        children[launcher] = int(message["pid"])
                    reply(launcher, message)
                    continue
                launcher = key.fileobj  # type: ignore[assignment]
                try:
                    data, fds, _, _ = socket.recv_fds(launcher, MAX_MESSAGE, 3)
                except OSError:
                    data, fds = b"", []
                if not data:
                    drop(launcher)
                    continue
                request = json.loads(data)
                env = request.get("env", {})
                if (
                    len(fds) != 3
                    or env.get(SWITCH, "") not in ("", "0")
                    or (_python_variables(env) != _python_variables(self._env))
                ):
                    for fd in fds:
                        os.close(fd)
                    reply(launcher, {"fresh": True})
                    continue
                next_id += 1
                request["id"] = next_id
                waiting[next_id] = launcher
                try:
                    socket.send_fds(self._helper, [json.dumps(request).encode()], fds)
                finally:
                    for fd in fds:
                        os.close(fd)

    @property
    def helper_pid(self) -> int:
        return self._process.pid

    def close(self) -> None:
        self._wake_write.send(b"x")
        self._thread.join(10)
        for end in (self._listener, self._helper, self._wake_read, self._wake_write):
            end.close()  # the helper sees EOF and exits; its children die with it
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)


def _text(stream: IO[bytes]) -> str:
    """What ``subprocess.run(text=True)`` would have read: the locale's encoding, universal newlines."""
    stream.seek(0)
    text = stream.read().decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


if __name__ == "__main__":
    from trailblaze.mcpclient._zygote import main

    main(int(sys.argv[1]), (*PRELOAD, *sys.argv[2:]))
