"""``python -m trailblaze ARGS`` for the ``cli`` fixture, without paying Python's start-up each time.

The suite runs the CLI about a thousand times; before this, a third of the suite's CPU was
those processes, and most of a short command is importing Python, trailblaze, pydantic and
Playwright's client. So each pytest worker starts one helper that imports them once — the
prefork helper trailblaze uses for Python MCP servers (``trailblaze.mcp.client._zygote``), told
to preload trailblaze — and every command is a child forked from it: a real process, in its own
session, with the working directory, environment and standard streams it was given, running
``trailblaze`` as ``python -m`` runs it, to its own exit (atexit handlers included). Nothing of
the test process is shared: the helper is a fresh interpreter started before any test ran.

A command goes to a fresh ``python -m trailblaze`` instead when its environment sets a
``PYTHON*`` variable differently from the helper's (those change how an interpreter starts),
when another command of this worker is still running (a test talking to two at once), or when
``TRAILBLAZE_TEST_FRESH_CLI=1`` is set (``make test`` never sets it; set it to rule the helper
out when a failure looks like it could be the helper's doing).

Run as ``python -m tests.support.cli_zygote FD [MODULE...]``: the helper itself, importing the
MODULEs too (tests/support/launcher.py adds the MCP server's).
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
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
    "trailblaze.mcp.client.attach",
    "trailblaze.mcp.client.sdk",
    "httpx",
    "wda",
    "playwright.async_api",
    "regex",
    "yaml",
)


def _python_variables(env: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if key.startswith("PYTHON")}


class CliZygote:
    """One worker's helper and the conversation with it (:meth:`run`)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._env = dict(env)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.cli_zygote", str(theirs.fileno())],
            cwd=ROOT,
            env=self._env,
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        theirs.close()
        self._socket = ours
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


def _text(stream: IO[bytes]) -> str:
    """What ``subprocess.run(text=True)`` would have read: the locale's encoding, universal newlines."""
    stream.seek(0)
    text = stream.read().decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


if __name__ == "__main__":
    from trailblaze.mcp.client._zygote import main

    main(int(sys.argv[1]), (*PRELOAD, *sys.argv[2:]))
