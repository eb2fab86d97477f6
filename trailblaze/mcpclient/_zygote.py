"""The prefork helper for Python MCP servers (see :mod:`trailblaze.mcpclient.prefork`).

Run as ``python _zygote.py FD`` with FD one end of a SOCK_SEQPACKET socket pair. It imports
the ``mcp`` SDK's server side once, then, for each request, forks a child that becomes the
server: its own session, the three pipe ends it was sent as stdin/stdout/stderr, the requested
working directory, environment and ``sys.argv``, and the script run as ``__main__`` (or, for a
request with a ``module``, that module, as ``python -m MODULE`` runs it). It
reports each child's pid, and its exit status when it ends (a pidfd per child, so nothing
polls). It exits when Trailblaze closes its end of the socket.

Standalone on purpose: it imports nothing of trailblaze, so a forked server starts with the
modules a fresh ``python script.py`` would have, plus the SDK it was going to import anyway
(and ``ctypes``, for the parent-death signal: the helper dies with Trailblaze, a server with
the helper, so ``kill -9`` of Trailblaze leaves no server behind).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import selectors
import signal
import socket
import sys
import traceback
from collections.abc import Sequence

PRELOAD = ("mcp.server.mcpserver", "mcp.server.stdio", "mcp.server.lowlevel", "mcp_types")
MAX_MESSAGE = 1 << 20


def _preload(extra: Sequence[str] = ()) -> None:
    for name in (*PRELOAD, *extra):
        with contextlib.suppress(Exception):
            __import__(name)


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent ends (Linux's parent-death signal): Trailblaze for
    the helper, the helper for a server. Exit at once if the parent is already gone."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _become_server(request: dict[str, object], fds: list[int], keep_closed: list[int], helper: int) -> int:
    """In the child: turn into ``python SCRIPT ARGS`` (``python -m MODULE ARGS`` for a request
    with a ``module``) and run it; the exit code."""
    os.setsid()
    die_with_parent(helper)
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
    for fd in {*fds, *keep_closed} - {0, 1, 2}:
        with contextlib.suppress(OSError):
            os.close(fd)
    argv = [str(a) for a in request["argv"]]  # type: ignore[attr-defined]
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in request["env"].items()})  # type: ignore[attr-defined]
    module = request.get("module")
    sys.argv = argv
    # what a fresh interpreter puts first on the path: the script's folder, or for -m the
    # working directory
    sys.path[0] = os.getcwd() if module else os.path.dirname(os.path.abspath(argv[0]))
    # the standard streams a fresh interpreter would open on these descriptors (unbuffered
    # when its environment sets PYTHONUNBUFFERED)
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))

    def writer(fd: int) -> io.RawIOBase | io.BufferedWriter:
        raw = io.FileIO(fd, "w", closefd=False)
        return raw if unbuffered else io.BufferedWriter(raw)

    streams = {
        "stdin": io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False))),
        "stdout": io.TextIOWrapper(writer(1), write_through=unbuffered),  # type: ignore[type-var]
        "stderr": io.TextIOWrapper(
            writer(2),  # type: ignore[type-var]
            errors="backslashreplace",
            line_buffering=True,
            write_through=unbuffered,
        ),
    }
    for name, stream in streams.items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    if "random" in sys.modules:  # do not share the helper's random state with every server
        sys.modules["random"].seed()
    import runpy

    code = 0
    try:
        if module:
            runpy.run_module(str(module), run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = 130
    except BaseException:
        traceback.print_exc()
        code = 1
    import atexit

    # as a fresh interpreter ends: wait for the non-daemon threads, then run the atexit handlers
    threading = sys.modules.get("threading")
    if threading is not None:
        with contextlib.suppress(BaseException):
            threading._shutdown()
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    return code


def _say_why(request: dict[str, object], exc: BaseException) -> None:
    """On the child's standard error (the server's, once it is in place): why the server could
    not be started, where a fresh interpreter's caller would have got an exception."""
    argv = request.get("argv")
    what = request.get("module") or (argv[0] if isinstance(argv, list) and argv else "?")
    with contextlib.suppress(BaseException):
        message = f"{sys.executable}: could not start {what}: {type(exc).__name__}: {exc}\n"
        os.write(2, message.encode("utf-8", errors="backslashreplace"))


def main(fd: int, preload: Sequence[str] = ()) -> None:
    """Serve requests on ``fd`` until its other end closes; ``preload``: modules to import
    once, beside the SDK's (the test suite's own helper preloads trailblaze this way)."""
    helper = os.getpid()
    control = socket.socket(fileno=fd)
    _preload(preload)
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, None)
    children: dict[int, int] = {}  # pidfd -> pid

    def send(message: dict[str, object]) -> None:
        with contextlib.suppress(OSError):
            control.send(json.dumps(message).encode())

    while True:
        for key, _ in selector.select():
            if key.data is not None:  # a child ended
                pidfd, pid = key.fd, key.data
                selector.unregister(pidfd)
                os.close(pidfd)
                children.pop(pidfd, None)
                _, status = os.waitpid(pid, 0)
                send({"exit": pid, "code": os.waitstatus_to_exitcode(status)})  # -N: killed by signal N
                continue
            try:
                data, fds, _, _ = socket.recv_fds(control, MAX_MESSAGE, 3)
            except OSError:
                data, fds = b"", []
            if not data:  # trailblaze is gone: so is the helper (the servers have their stdin EOF)
                os._exit(0)  # at once: tearing down the preloaded modules took a second, waited for
            request = json.loads(data)
            if len(fds) != 3:
                for extra in fds:
                    os.close(extra)
                send({"id": request.get("id"), "error": f"expected 3 descriptors, got {len(fds)}"})
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    code = _become_server(request, fds, [control.fileno(), selector.fileno(), *children], helper)
                except BaseException as exc:  # before the server's own code ran (a working directory gone)
                    _say_why(request, exc)
                finally:
                    os._exit(code)
            for passed in fds:
                os.close(passed)
            pidfd = os.pidfd_open(pid)
            children[pidfd] = pid
            selector.register(pidfd, selectors.EVENT_READ, pid)
            send({"id": request["id"], "pid": pid})


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
