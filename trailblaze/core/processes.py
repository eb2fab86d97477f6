"""Nothing Trailblaze starts outlives it: not on success, Ctrl-C, SIGTERM, nor ``kill -9``.

Three layers, from the common case to the worst one (Linux; elsewhere only the first):

* **Shutdown in order.** Every spawned MCP server is stopped by its transport (close stdin,
  SIGTERM its process group, SIGKILL). On the first Ctrl-C or SIGTERM the waits in between are
  cut short (:func:`hurry`) and every session shuts down at once, so a run with hung servers
  ends within seconds; a second signal ends Trailblaze at once (:func:`die_now`).
* **The parent-death signal.** Servers, and the prefork helper, get ``PR_SET_PDEATHSIG``: when
  Trailblaze dies, however it dies, the kernel kills them (:func:`die_with_parent`).
* **A token and a watchdog.** While a run has servers, its processes carry a random token in
  their environment, which every descendant inherits — also one that left its process group
  with ``setsid`` and ignores SIGTERM. Trailblaze is a child subreaper
  (``PR_SET_CHILD_SUBREAPER``), so such an escapee becomes its child when its parent ends,
  and at the end of the run everything still carrying the token is killed and reaped
  (:func:`sweep`). A tiny watchdog process does the same sweep when Trailblaze vanishes without
  a chance to do it (``kill -9``): it waits on a pipe only Trailblaze holds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

TOKEN_VARIABLE = "TRAILBLAZE_RUN_TOKEN"
#: seconds a server gets after its stdin closes, then after SIGTERM, once the run is interrupted
HURRIED_GRACE_S = 0.5
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36

_hurried = False
_prctl: Callable[..., int] | None = None


def linux() -> bool:
    return sys.platform.startswith("linux")


# -- shutting down in order, or at once ------------------------------------------------------------


def hurry() -> None:
    """The run was interrupted: every wait for a server to stop is shortened from now on."""
    global _hurried
    _hurried = True


def hurried() -> bool:
    return _hurried


def calm() -> None:
    """The interrupted run is over: the next one (a test process runs many) waits as usual."""
    global _hurried
    _hurried = False


def grace(normal: float) -> float:
    """How long to wait for a server to stop: ``normal``, or much less once interrupted."""
    return min(normal, HURRIED_GRACE_S) if _hurried else normal


#: what kills the processes a part of Trailblaze started (the MCP servers), when it must end now
_KILLERS: list[Callable[[], None]] = []


def on_die_now(kill: Callable[[], None]) -> None:
    """Have :func:`die_now` call ``kill`` (SIGKILL what its caller started) before exiting."""
    if kill not in _KILLERS:
        _KILLERS.append(kill)


def die_now(message: str, code: int = 130) -> None:
    """End Trailblaze at once (a second Ctrl-C): kill what it started, then exit."""
    with contextlib.suppress(Exception):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    for kill in list(_KILLERS):
        with contextlib.suppress(Exception):
            kill()
    with contextlib.suppress(Exception):
        sweep(reap=False)  # asyncio's watcher reaps its own children; exiting reaps the rest
    os._exit(code)


#: the command's end is the process's end, without the interpreter's teardown (:func:`end_at_once`)
_end_at_once = False


def end_at_once_after_command() -> None:
    """The running command is a server whose work ends with it (``trailblaze mcp``): once it has
    closed what it opened, the process ends straight away (:func:`trailblaze.cli.main.main` calls
    :func:`end_at_once`). Tearing the interpreter's modules down takes longer than closing the
    browser did, and a client waits for the process to exit."""
    global _end_at_once
    _end_at_once = True


def ends_at_once() -> bool:
    return _end_at_once


def end_at_once(code: int) -> None:
    """Exit with ``code`` as a finished interpreter would — the ``atexit`` handlers run, the
    standard streams are flushed — but without tearing its modules down or waiting for worker
    threads (a phone's client call stuck in one has its own timeout; nothing waits for it)."""
    import atexit

    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    os._exit(code)


# -- the parent-death signal ------------------------------------------------------------------------


def _libc_prctl() -> Callable[..., int] | None:
    global _prctl
    if _prctl is None and linux():
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
    return _prctl


def die_with_parent_setup() -> Callable[[], None] | None:
    """A ``preexec_fn`` for servers: the child gets SIGKILL when Trailblaze's thread that
    started it ends (Trailblaze's main thread: Trailblaze itself). None off Linux."""
    prctl = _libc_prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def setup() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # Trailblaze died before the signal was armed
            os._exit(1)

    return setup


def become_subreaper(on: bool = True) -> bool:
    """Make this process a child subreaper (or stop being one): orphaned descendants become its
    children instead of init's, so they can be found and ended."""
    prctl = _libc_prctl()
    return prctl is not None and prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0


# -- the token, the sweep and the watchdog ------------------------------------------------------------


def signal_group(pgid: int, sig: int) -> None:
    """Send ``sig`` to a process group; one that is gone (or not ours to signal) is left be."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is left (a leader that exited counts until it is
    reaped; one we may not signal still exists)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def token() -> str | None:
    """This run's token, once :func:`guard` set it."""
    return os.environ.get(TOKEN_VARIABLE)


def carriers(marker: str) -> list[int]:
    """Processes (other than this one) whose environment holds ``TOKEN=marker``."""
    wanted = f"{TOKEN_VARIABLE}={marker}".encode()
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if wanted in environ.split(b"\0"):
            found.append(int(name))
    return found


def sweep(*, reap: bool = True) -> list[int]:
    """Kill every process still carrying this run's token, and reap those that were (or became,
    as a subreaper) our children. Returns the pids killed."""
    marker = token()
    if marker is None or not linux():
        return []
    killed: list[int] = []
    for _ in range(5):  # a process may fork while we look: look again until nothing is left
        found = carriers(marker)
        if not found:
            break
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        for pid in found if reap else ():
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)  # ours (or adopted): no zombie left behind
    return killed


_WATCHDOG = r"""
import os, signal, sys
wanted = sys.argv[1].encode()
while os.read(0, 4096):
    pass
me = os.getpid()
for _ in range(5):
    found = False
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as handle:
                if wanted not in handle.read().split(b"\0"):
                    continue
            os.kill(int(name), signal.SIGKILL)
            found = True
        except OSError:
            pass
    if not found:
        break
"""


class _Watchdog:
    """A process that sweeps the run's token when the pipe to Trailblaze closes: at the end of
    the run, or when Trailblaze is killed and the kernel closes the pipe for it."""

    def __init__(self, marker: str) -> None:
        read, self._write = os.pipe()  # not inherited by anything else Trailblaze starts
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-S", "-c", _WATCHDOG, f"{TOKEN_VARIABLE}={marker}"],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={k: v for k, v in os.environ.items() if k != TOKEN_VARIABLE},  # it must not sweep itself
                start_new_session=True,  # Ctrl-C in the terminal is Trailblaze's to handle
            )
        finally:
            os.close(read)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._write)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(5)


class _Scope:
    """A run's guard: armed (token, subreaper, watchdog) once something may need sweeping."""

    def __init__(self) -> None:
        self.marker: str | None = None
        self.subreaper = False
        self.watchdog: _Watchdog | None = None

    def arm(self) -> str:
        if self.marker is None:
            marker = uuid.uuid4().hex
            with contextlib.suppress(OSError):
                self.watchdog = _Watchdog(marker)
            os.environ[TOKEN_VARIABLE] = marker
            self.subreaper = become_subreaper()
            self.marker = marker
        return self.marker

    def disarm(self) -> None:
        if self.marker is None:
            return
        try:
            sweep()
        finally:
            os.environ.pop(TOKEN_VARIABLE, None)
            if self.subreaper:
                become_subreaper(False)
            if self.watchdog is not None:
                self.watchdog.close()
            self.marker = None


#: the guard of the run under way (None outside one)
_scope: _Scope | None = None


@contextlib.contextmanager
def guard(active: bool = True) -> Iterator[str | None]:
    """For the length of a run: once it starts a process that may leave descendants behind (a
    server, ``web: server:``, :func:`arm`) — or at once when ``active`` — a token in the
    environment, a subreaper, a watchdog; at the end, a sweep. Yields the token (None until
    armed). A run that starts nothing of the kind pays nothing."""
    global _scope
    if not linux() or _scope is not None or token() is not None:  # nested (a run inside a run): the outer one guards
        yield token()
        return
    scope = _scope = _Scope()
    try:
        yield scope.arm() if active else None
    finally:
        _scope = None
        scope.disarm()


def arm() -> str | None:
    """Before starting a process that may leave descendants behind: the run's token, so that
    what it starts is swept at the end of the run — also what leaves its process group and
    ignores SIGTERM. None outside a run (the caller's own shutdown is all there is)."""
    return _scope.arm() if _scope is not None else token()


def listener(port: int) -> int | None:
    """The pid of a process of this user listening on TCP ``port`` (Linux), else None."""
    if not linux():
        return None
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as handle:
                next(handle, None)
                for row in handle:
                    fields = row.split()
                    if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(fields[9])
        except (OSError, ValueError):
            continue
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for name in os.listdir("/proc") if wanted else ():
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{name}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{name}/fd/{fd}") in wanted:
                        return int(name)
    return None


def install_interrupts(loop: Any, task: Any, on_first: Callable[[], None] | None = None) -> Callable[[], None]:
    """SIGINT and SIGTERM for a run on ``loop``: the first cancels ``task`` (the run reports
    what finished and exits 130) with shortened shutdown waits; the second ends Trailblaze at
    once. Returns the function that removes the handlers."""
    count = 0

    def interrupted(name: str) -> None:
        nonlocal count
        count += 1
        if count > 1:
            die_now(f"{name} again: stopping at once (reports are not written)")
        hurry()
        if on_first is not None:
            on_first()
        task.cancel()

    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, interrupted, sig.name)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or not supported
            pass

    def remove() -> None:
        calm()
        for sig in installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)

    return remove
