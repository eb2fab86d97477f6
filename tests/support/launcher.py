"""``python -m trailblaze ARGS`` for a client that starts the process itself, forked from a helper.

The MCP server tests start ``trailblaze mcp`` through the SDK's own ``Client``, which spawns
the command it is given; a fresh interpreter spends about 1.6 s of CPU importing trailblaze and
the ``mcp`` SDK before it answers. So each pytest worker that needs it keeps a relay
(``Relay`` in tests/support/cli_zygote.py): a helper that has imported them once, the prefork
helper the ``cli`` fixture uses, told to preload the server's modules too, and a thread that
hands it requests. The command the client spawns is this file run as a script, a launcher that
imports only the standard library:

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
import signal
import socket
import sys
from collections.abc import Sequence

MAX_MESSAGE = 1 << 20
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


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
        try:
            os.killpg(pid, signum)
        except ProcessLookupError:  # only just forked, not in a session of its own yet
            with contextlib.suppress(OSError):
                os.kill(pid, signum)
        except OSError:
            pass

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
