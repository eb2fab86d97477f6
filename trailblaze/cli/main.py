"""The error boundary: the single place where an expected error becomes one readable message
and an exit code, and anything else an internal error with its traceback in a log file."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import click

from trailblaze.cli.group import cli
from trailblaze.core import aio
from trailblaze.core.errors import ErrorList, ExitCode, TrailblazeError


def _print_error(exc: TrailblazeError) -> None:
    err = sys.stderr
    prefix = click.style("error:", fg="red", bold=True) if err.isatty() else "error:"
    errors = exc.shown if isinstance(exc, ErrorList) else [exc]
    from trailblaze.core.limits import inert_line, printable

    for error in errors:
        for i, line in enumerate(printable(str(error)).split("\n")):
            click.echo(f"{prefix} {line}" if i == 0 else inert_line(f"       {line}"), err=True)
    if isinstance(exc, ErrorList) and exc.more:
        click.echo(exc.more_line, err=True)
    total = len(exc.errors) if isinstance(exc, ErrorList) else 1
    if total > 1:
        click.echo(f"{total} problems", err=True)


def _internal_error(exc: Exception, argv: Sequence[str]) -> int:
    """A bug (ours or a plugin's): one line, the traceback in a log file, exit 4."""
    from trailblaze.cli.crashlog import write_crash_log
    from trailblaze.project.projectfile import find_config

    config = find_config()
    log = write_crash_log(exc, argv, config.parent if config is not None else None)
    where = f"; the traceback is in {log}" if log is not None else ""
    from trailblaze.core.limits import printable

    click.echo(printable(f"internal error: {type(exc).__name__}: {exc}{where}"), err=True)
    return int(ExitCode.INTERNAL)


#: options after ``run`` that end the command before any trail runs
_NOT_RUNNING = ("-h", "--help", "--list")


def _may_run_web_trails(args: Sequence[str]) -> bool:
    """Whether ``args`` look like a ``trailblaze run`` that may replay web trails: one that
    lists them or names another driver (``--driver android``) does not start Playwright early."""
    if not args or args[0] != "run" or any(a in _NOT_RUNNING or a.startswith("--list=") for a in args):
        return False
    for i, arg in enumerate(args):
        driver = args[i + 1] if arg == "--driver" and i + 1 < len(args) else None
        if arg.startswith("--driver="):
            driver = arg.split("=", 1)[1]
        if driver is not None:
            from trailblaze.drivers.web.driver import PlaywrightDriver

            return driver in (PlaywrightDriver.key, *PlaywrightDriver.aliases)
    return True


def _loop_running() -> bool:
    """Called from async code (a test, an embedding program): its loop is not ours to use."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _start_early(args: Sequence[str]) -> Callable[[], None] | None:
    """Start Playwright's driver while the run starts up (:mod:`trailblaze.drivers.web.early`);
    anything wrong with it is left for the run to report, as it would without this. Returns
    what puts SIGTERM's handling back, when it was changed (below)."""
    if not _may_run_web_trails(args) or _loop_running():
        return None
    try:
        from trailblaze.drivers.web import early

        early.start()
    except Exception:
        aio.close()
        return None
    return _terminate_as_interrupt()


def _terminate_as_interrupt() -> Callable[[], None] | None:
    """SIGTERM before the run begins ends the command as Ctrl-C does (exit 130, as SIGTERM during
    the run does), so the driver started early is killed on the way out rather than left to
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


def _main(argv: Sequence[str] | None) -> int:
    args = list(argv) if argv is not None else sys.argv[1:]
    restore = _start_early(args)
    try:
        return _command(args)
    finally:
        aio.close()  # what was started early and not used is stopped: nothing outlives the command
        if restore is not None:
            restore()


def _command(args: list[str]) -> int:
    try:
        result = cli.main(args=args, prog_name="trailblaze", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return int(ExitCode.INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        return int(ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        return int(ExitCode.USAGE)
    except TrailblazeError as exc:
        _print_error(exc)
        return int(exc.exit_code)
    except Exception as exc:
        return _internal_error(exc, args)
    return result if isinstance(result, int) else 0


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``trailblaze`` command."""
    code = _main(argv)
    from trailblaze.core import processes

    if processes.ends_at_once():  # a server (trailblaze mcp): its client waits for the process to end
        processes.end_at_once(code)
    sys.exit(code)
