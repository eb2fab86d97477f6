"""Built-in plugin: ``--reporter github`` speaks GitHub Actions' workflow commands.

For every failed or errored trail an ``::error file=…,line=…,title=…::message`` annotation
points at the failing step in the trail file (a flaky trail gets a ``::warning``), so the
pull request shows the failure on the line; when ``$GITHUB_STEP_SUMMARY`` names a file, a
Markdown summary of the run is appended to it. The terminal reporter (``--reporter`` is its
option) keeps printing a line per trail.

Values are escaped as the Actions runner expects: ``%``, ``\\r`` and ``\\n`` in the message;
also ``:`` and ``,`` in properties (file, title). Other control characters and bidirectional
controls are shown escaped (``\\x1b``, ``\\u202e``), as the terminal shows them: an annotation is
always one line, and nothing a trail or a page wrote becomes a command of its own.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from trailblaze import hookimpl
from trailblaze.core.limits import one_line, printable

if TYPE_CHECKING:
    from trailblaze.api.results import RunResult, Status, TrailResult
    from trailblaze.api.session import Run, Session
    from trailblaze.project.config import Config
    from trailblaze.trail.model import Trail

PLUGIN_NAME = "github_report.writer"
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(kind: str, message: str, *, file: str, line: int | None, title: str) -> str:
    """One workflow command: ``::error file=…,line=…,title=…::message``."""
    properties = [f"file={escape_property(printable(file))}"]
    if line is not None:
        properties.append(f"line={line}")
    properties.append(f"title={escape_property(printable(title))}")
    return f"::{kind} {','.join(properties)}::{escape_data(printable(message))}"


def failing_line(trail: Trail, result: TrailResult) -> int | None:
    """The line of the failing step in the trail file (else of the trail's first step)."""
    failing = result.failing_step
    steps = trail.all_steps
    if failing is not None:
        found = next((s for s in steps if s.index == failing.index and s.kind == failing.kind), None)
        if found is not None:
            return found.location.line
    return steps[0].location.line if steps else None


class GithubReport:
    def __init__(self, stderr: bool = False) -> None:
        #: ``--json -``: stdout holds the document, so annotations go to stderr (the runner reads both)
        self.stream = sys.stderr if stderr else sys.stdout

    @hookimpl
    def trailblaze_trail_finish(self, trail: Trail, result: TrailResult, session: Session | None) -> None:
        if result.status in ("failed", "error", "incomplete"):
            kind, message = "error", _without_location(result.error or result.status, result.path)
        elif result.status == "flaky":
            last = _without_location(result.attempts[-1].error or "", result.path) if result.attempts else None
            kind, message = "warning", f"flaky: passed after {len(result.attempts) + 1} attempts; failed with: {last}"
        else:
            return
        title = f"{result.status}: {result.title}"
        # the failing call's line, as the message gives it (else its step's)
        where = _located(result.error or "", result.path)[0] or failing_line(trail, result)
        if result.status == "flaky" and result.attempts:  # the step that failed before, not the first
            where = _located(result.attempts[-1].error or "", result.path)[0] or where
        line = annotation(kind, message, file=result.path, line=where, title=title)
        self.stream.write(line + "\n")
        self.stream.flush()

    @hookimpl
    def trailblaze_run_finish(self, run: Run, result: RunResult) -> None:
        path = os.environ.get(SUMMARY_ENV)
        if not path:
            return
        try:
            with open(path, "a", encoding="utf-8") as summary:
                summary.write(job_summary(result))
        except OSError as exc:
            print(f"warning: cannot write ${SUMMARY_ENV} {path}: {exc.strerror or exc}", file=sys.stderr, flush=True)


def _located(error: str, path: str) -> tuple[int | None, str]:
    """The line of the ``path:line:`` a trail's error starts with, and the error without it
    (None and the error as it is when it does not start so)."""
    head, sep, rest = error.partition(": ")
    where, _, line = head.rpartition(":")
    return (int(line), rest) if sep and where == path and line.isdigit() else (None, error)


def _without_location(error: str, path: str) -> str:
    """``error`` without the ``path:line:`` it starts with (the annotation and the table say where)."""
    return _located(error, path)[1]


def _cell(text: str) -> str:
    """``text`` in a Markdown table cell: one line, no column break, no HTML (GitHub would render
    a trail's ``<b>`` or drop its ``<script>``)."""
    import html

    return html.escape(one_line(" ".join(text.split())), quote=False).replace("|", "\\|")


def job_summary(result: RunResult) -> str:
    """The run as Markdown: the counts, then a row per trail that did not simply pass."""
    statuses: tuple[Status, ...] = ("passed", "flaky", "healed", "failed", "error", "skipped", "incomplete")
    counts: list[tuple[str, int]] = [(s, result.count(s)) for s in statuses if result.count(s)]
    if result.deselected:
        counts.append(("deselected", result.deselected))
    lines = [
        "## trailblaze",
        "",
        ", ".join(f"**{n}** {s}" for s, n in counts) + f" in {result.duration_ms / 1000:.1f}s",
        "",
    ]
    notable = [t for t in result.trails if t.status not in ("passed", "healed")]
    if notable:
        lines += ["| trail | status | file | error |", "| --- | --- | --- | --- |"]
        for trail in notable:
            error = trail.error or trail.skip_reason or (trail.attempts[-1].error if trail.attempts else "") or ""
            error = _without_location(error, trail.path)
            lines.append(f"| {_cell(trail.id)} | {trail.status} | {_cell(trail.path)} | {_cell(error)} |")
        lines.append("")
    return "\n".join(lines) + "\n"


@hookimpl(trylast=True)  # after the reporters claimed their files: one may have claimed stdout
def trailblaze_configure(config: Config) -> None:
    if config.getoption("reporter", None) == "github":
        config.pluginmanager.register(GithubReport(stderr=config.report_paths.stdout is not None), PLUGIN_NAME)


@hookimpl
def trailblaze_unconfigure(config: Config) -> None:
    report = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if report is not None:
        config.pluginmanager.unregister(report)
