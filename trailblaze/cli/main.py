"""The error boundary: the single place where an expected error becomes one readable message
and an exit code, and anything else an internal error with its traceback in a log file."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from trailblaze.cli import early
from trailblaze.cli.group import cli
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


def _main(argv: Sequence[str] | None) -> int:
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        return _command(args)
    finally:
        early.finish()  # what was started early and not used is stopped: nothing outlives the command


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
