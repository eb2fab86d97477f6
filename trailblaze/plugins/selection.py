"""Built-in plugin: which trails a run takes — ``-k``, ``--include-tags``,
``--exclude-tags``, ``--last-failed`` — and ``--list`` to see them without running.

The choosing is :mod:`trailblaze.runner.selection`'s; this plugin declares the options (the runner reads
them by name, :mod:`trailblaze.runner.options`), and after each ``trailblaze run`` records which
trails failed for the next ``--last-failed``. ``-p no:selection`` leaves them out (every trail runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.api.results import RunResult
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    group = parser.getgroup("selection", "Choosing trails")
    group.addoption(
        "-k",
        dest="keyword",
        metavar="EXPR",
        help="Only trails whose id, title or path match EXPR: words (case-insensitive substrings) with "
        "and/or/not and parentheses, as pytest's -k.",
        commands=("run",),
    )
    group.addoption(
        "--include-tags",
        multiple=True,
        metavar="TAGS",
        help="Only trails with one of these tags (comma-separated; repeatable).",
        commands=("run",),
    )
    group.addoption(
        "--exclude-tags",
        multiple=True,
        metavar="TAGS",
        help="Leave out trails with one of these tags (comma-separated; repeatable).",
        commands=("run",),
    )
    group.addoption(
        "--last-failed",
        "--lf",
        is_flag=True,
        help="Only the trails that failed in the last run (all of them when none did).",
        commands=("run",),
    )
    group.addoption(
        "--list",
        is_flag=True,
        dest="list_only",
        help="Print the trails that would run (id, tags, driver, path) and exit; no device is opened.",
        commands=("run",),
    )


@hookimpl
def trailblaze_run_finish(run: Run, result: RunResult) -> None:
    if run.config.command != "run":
        return
    from trailblaze.runner.selection import write_last_failed

    write_last_failed(run.config.root, result)
