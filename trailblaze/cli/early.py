"""What ``trailblaze run`` starts before it knows its plan: plugins start their slow pieces
(``trailblaze_start_early``: the web driver boots Playwright's Node.js driver) while
trailblaze.yaml is read and the trails are collected, and whatever the run did not take is
stopped as the command ends (:func:`finish`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from trailblaze.core import aio

if TYPE_CHECKING:
    from trailblaze.pluginmanager import Plugins

#: options after ``run`` that end the command before any trail runs
_NOT_RUNNING = ("-h", "--help", "--list")

_restore: Callable[[], None] | None = None


def runs_trails(args: Sequence[str]) -> tuple[bool, str | None]:
    """Whether ``args`` (the command's name first) are a ``trailblaze run`` that replays trails
    (not one that lists them or shows its help), and the ``--driver`` it names, if any."""
    if not args or args[0] != "run" or any(a in _NOT_RUNNING or a.startswith("--list=") for a in args):
        return False, None
    driver = None
    for i, arg in enumerate(args):
        if arg == "--driver" and i + 1 < len(args):
            driver = args[i + 1]
        elif arg.startswith("--driver="):
            driver = arg.split("=", 1)[1]
    return True, driver


def start(plugins: Plugins, args: Sequence[str]) -> None:
    """Ask plugins to start what a run of ``args`` will need; nothing when ``args`` run no
    trail, or when called from async code (a test, an embedding program: its loop is not ours
    to use). Anything wrong is left for the run to report, as it would be without this."""
    global _restore
    running, driver = runs_trails(args)
    if not running or _loop_running():
        return
    try:
        plugins.hook.trailblaze_start_early(driver=driver)
    except Exception:
        aio.close()
        return
    if aio.has_early_work():
        _restore = _terminate_as_interrupt()


def finish() -> None:
    """The command is over: stop what was started early and not used, and put SIGTERM's
    handling back."""
    global _restore
    aio.close()
    restore, _restore = _restore, None
    if restore is not None:
        restore()


def _loop_running() -> bool:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _terminate_as_interrupt() -> Callable[[], None] | None:
    """SIGTERM before the run begins ends the command as Ctrl-C does (exit 130, as SIGTERM during
    the run does), so what was started early is stopped on the way out rather than left to
    notice on its own that its parent is gone."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        return None

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)

    def restore() -> None:
        if signal.getsignal(signal.SIGTERM) is interrupt:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)

    return restore
