"""Run ``trailblaze`` many times without paying Python's start-up each time.

A corpus test runs the CLI dozens of times; most of each run would be importing Python and
trailblaze. Here the test process imports trailblaze once and every command is a child forked
from it: a real process with its own working directory, environment and standard streams,
running the real entry point (``trailblaze.cli.main``) — only the imports are shared.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: what a command imports anyway: imported once, before the forks
PRELOAD = (
    "trailblaze.cli",
    "trailblaze.runner.validate",
    "trailblaze.runner.run",
    "trailblaze.pluginmanager",
    "trailblaze.plugins.core_tools",
    "trailblaze.plugins.web_playwright",
    "trailblaze.plugins.mobile_tools",
    "trailblaze.drivers.web.tools",
    "trailblaze.drivers.mobile.tools",
    "regex",
)


@dataclass(frozen=True)
class Command:
    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str


def run_all(commands: Sequence[Command], parallel: int = 4, timeout: float = 60) -> list[Outcome]:
    """Run every command as a fork of this process, ``parallel`` at a time; a command that
    takes longer than ``timeout`` is killed and reported with code -9."""
    _preload()
    outcomes: list[Outcome | None] = [None] * len(commands)
    running: dict[int, tuple[int, float]] = {}
    pending = list(enumerate(commands))
    with tempfile.TemporaryDirectory() as folder:
        streams = Path(folder)
        while pending or running:
            while pending and len(running) < parallel:
                index, command = pending.pop(0)
                running[_fork(command, streams / f"{index}.out", streams / f"{index}.err")] = (
                    index,
                    time.monotonic() + timeout,
                )
            for pid, (index, deadline) in list(running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                if not done and time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    done, status = os.waitpid(pid, 0)
                if done:
                    del running[pid]
                    out, err = (streams / f"{index}.{kind}" for kind in ("out", "err"))
                    outcomes[index] = Outcome(os.waitstatus_to_exitcode(status), _read(out), _read(err))
            time.sleep(0.01)
    return [o for o in outcomes if o is not None]


def _preload() -> None:
    """Import what every command imports, and build the built-in tools' specs (their JSON
    schemas are built on first use and cached: most of a short command's time)."""
    from trailblaze.tools.authoring import spec_of

    for name in PRELOAD:
        __import__(name)
    from trailblaze.drivers.checks import CHECKS
    from trailblaze.drivers.mobile.tools import MOBILE_TOOLS
    from trailblaze.drivers.web.checks import WEB_CHECKS
    from trailblaze.drivers.web.tools import WEB_TOOLS
    from trailblaze.tools.coretools import CORE_TOOLS

    for tool in (*CORE_TOOLS, *CHECKS, *WEB_TOOLS, *WEB_CHECKS, *MOBILE_TOOLS):
        spec_of(tool)


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace") if path.exists() else ""


def _fork(command: Command, out: Path, err: Path) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 99
    try:
        os.setsid()  # its own session, as a process started from a shell would be in its job
        os.chdir(command.cwd)
        os.environ.clear()
        os.environ.update(command.env)
        streams = (
            os.open(os.devnull, os.O_RDONLY),
            os.open(out, os.O_WRONLY | os.O_CREAT, 0o600),
            os.open(err, os.O_WRONLY | os.O_CREAT, 0o600),
        )
        for target, fd in enumerate(streams):
            os.dup2(fd, target)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from trailblaze.cli import main

        main(list(command.argv))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
