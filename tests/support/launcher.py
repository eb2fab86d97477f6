"""``python -m trailblaze ARGS`` for a client that starts the process itself, forked from a helper.

The MCP server tests start ``trailblaze mcp`` through the SDK's own ``Client``, which spawns
the command it is given; a fresh interpreter spends about 1.6 s of CPU importing trailblaze and
the ``mcp`` SDK before it answers. So each pytest worker that needs it keeps a :class:`Relay`:
a helper that has imported them once (the prefork helper of tests/support/cli_zygote.py, told
to preload the server's modules too) and a thread that hands it requests. The command the
client spawns is this file run as a script, a launcher that imports only the standard library:

    python tests/support/launcher.py RELAY_SOCKET ARGS...

It sends the relay its working directory, environment and its own three standard streams; the
helper forks a child that becomes ``python -m trailblaze ARGS`` on those streams, in a session
of its own. The launcher then stays as its stand-in, the way a shell's ``exec`` would not need
to: it passes SIGTERM, SIGINT, SIGHUP and SIGQUIT on to the child's process group and ends with
the child's exit status (a signal's death included). If the launcher is killed outright, the
relay sees its connection close and kills the child's process group; if the relay or the worker
goes, the helper goes with it, and its children with it (their parent-death signal).

The launcher runs a fresh ``python -m trailblaze ARGS`` instead (``exec``) when the relay cannot
be reached, when its environment sets a ``PYTHON*`` variable differently from the helper's, or
when ``TRAILBLAZE_TEST_FRESH_CLI=1`` is set, as for the ``cli`` fixture. A test that looks at
the server process from outside (its command line, its start-up) starts it fresh.
"""

from __future__ import annotations

import contextlib
import json
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

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve()
SWITCH = "TRAILBLAZE_TEST_FRESH_CLI"
MAX_MESSAGE = 1 << 20
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)

#: beside the CLI helper's own preloads: what ``trailblaze mcp`` imports before its first reply
PRELOAD = (
    "trailblaze.cli.mcp",
    "trailblaze.mcp.server.server",
    "trailblaze.mcp.server.serve",
    "trailblaze.mcp.server.stdio",
    "trailblaze.mcp.server.http",
    "trailblaze.mcp.server.catalog",
    "trailblaze.mcp.server.recording",
    "trailblaze.mcp.server.state",
)


def _python_variables(env: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if key.startswith("PYTHON")}


class Relay:
    """One worker's helper for launched servers, and the thread that serves the launchers."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self._folder = tempfile.mkdtemp(prefix="tb-launch-")
        self.address = os.path.join(self._folder, "relay")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._listener.bind(self.address)
        self._listener.listen(16)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.cli_zygote", str(theirs.fileno()), *PRELOAD],
            cwd=ROOT,
            env=self._env,
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        theirs.close()
        self._helper = ours
        #: how many commands the helper has forked for launchers (the tests read it)
        self.forked = 0
        self._wake_read, self._wake_write = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name="launcher-relay", daemon=True)
        self._thread.start()

    def command(self, args: Sequence[str]) -> list[str]:
        """The command line a client spawns for ``python -m trailblaze ARGS``."""
        return [sys.executable, str(SCRIPT), self.address, *args]

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
        running: dict[int, socket.socket] = {}  # child pid -> launcher
        children: dict[socket.socket, int] = {}  # launcher -> child pid
        next_id = 0

        def reply(launcher: socket.socket, message: dict[str, object]) -> None:
            with contextlib.suppress(OSError):
                launcher.send(json.dumps(message).encode())

        def kill(pid: int) -> None:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)

        def drop(launcher: socket.socket) -> None:
            selector.unregister(launcher)
            launcher.close()
            orphans.update(ident for ident, waiter in waiting.items() if waiter is launcher)
            pid = children.pop(launcher, None)
            if pid is not None:  # gone before its child: the child goes too
                running.pop(pid, None)
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
                        launcher = running.pop(int(message["exit"]), None)
                        if launcher is not None:
                            children.pop(launcher, None)
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
                        running[int(message["pid"])] = launcher
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


def _fresh(args: Sequence[str]) -> None:
    os.execv(sys.executable, [sys.executable, "-m", "trailblaze", *args])


def _receive(relay: socket.socket) -> dict[str, object]:
    data = relay.recv(MAX_MESSAGE)
    if not data:
        raise ConnectionError("the relay is gone")
    message: dict[str, object] = json.loads(data)
    return message


def main(address: str, args: Sequence[str]) -> None:
    """The launcher: have the relay fork ``python -m trailblaze ARGS`` on this process's
    streams, stand in for it, and end as it ends."""
    relay = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        relay.connect(address)
    except OSError:
        _fresh(args)
    request = {"module": "trailblaze", "argv": ["-m", *args], "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(relay, [json.dumps(request).encode()], [0, 1, 2])
    relay.settimeout(30)
    try:
        started = _receive(relay)
    except OSError as exc:  # a timeout, or the relay gone (ConnectionError)
        print(f"launcher: the relay did not start trailblaze: {exc}", file=sys.stderr)
        os._exit(1)
    relay.settimeout(None)
    if started.get("fresh"):
        relay.close()
        _fresh(args)
    if "pid" not in started:
        print(f"launcher: the helper could not fork: {started}", file=sys.stderr)
        os._exit(1)
    pid = int(str(started["pid"]))

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            os.killpg(pid, signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    # the child has the streams now: holding them open here would keep the client from
    # seeing their end when the child closes them
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    try:
        ended = _receive(relay)  # a forwarded signal interrupts it; Python retries the read
    except ConnectionError:  # the relay went, and the helper with it: so did the child
        ended = {"code": -signal.SIGKILL}
    code = int(str(ended["code"]))
    if code < 0:  # killed by a signal: so is the stand-in
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
