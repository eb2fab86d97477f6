"""Built-in plugin: live progress and the summary in the terminal.

On a TTY it shows a spinner with the trail, step and tool in flight (one line per session with
``--workers``), a line per finished trail and a summary table (rich). When output is not a
terminal (CI logs, pipes) it prints plain lines only. ``-v`` adds a line per step and tool;
``-q`` keeps only failures and the summary; ``--reporter dot`` prints one character per trail
(``github`` prints lines, and :mod:`.github_report` adds annotations); ``--durations N`` lists
the slowest trails and steps (all declared here, in ``trailblaze_addoption``). Block it with
``-p no:terminal`` to replace it with a reporter of your own.

Every line is printed whole, under one lock, and with ``--workers`` the lines about a trail's
steps and tools start with ``[trail id]``, so the output of trails running at once never
interleaves into half-lines nor loses whose it is.

What trails, pages and servers wrote is text, never terminal or CI-log commands: a step's text,
an id, a title, a tool's name is shown on one line (line breaks and control characters escaped,
:func:`~trailblaze.core.limits.one_line`), and no printed line — of an error quoting a page, say —
can start a GitHub Actions workflow command (:func:`~trailblaze.core.limits.inert_line`).
"""

from __future__ import annotations

import shlex
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import hookimpl
from trailblaze.core.limits import inert_line, one_line, printable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.status import Status

    from trailblaze.api.results import RunResult, StepResult, ToolReport, TrailResult
    from trailblaze.api.results import Status as TrailStatus
    from trailblaze.api.session import Run, Session
    from trailblaze.core.argparsing import Parser
    from trailblaze.core.reportfiles import ReportPaths
    from trailblaze.project.config import Config
    from trailblaze.trail.model import Step, Trail

_STYLE = {
    "passed": "green",
    "failed": "red",
    "error": "red bold",
    "skipped": "yellow",
    "healed": "magenta",
    "incomplete": "yellow bold",
    "flaky": "yellow",
}
_WORD = {
    "passed": "PASSED",
    "failed": "FAILED",
    "error": "ERROR",
    "skipped": "SKIPPED",
    "healed": "HEALED",
    "incomplete": "INCOMPLETE",
    "flaky": "FLAKY",
}
#: ``--reporter dot``: one character per trail (pytest's, with pytest-rerunfailures' R)
_DOT = {"passed": ".", "failed": "F", "error": "E", "skipped": "s", "healed": "H", "incomplete": "I", "flaky": "R"}
REPORTERS = ("line", "dot", "github")


class TerminalReporter:
    def __init__(
        self,
        verbosity: int = 0,
        *,
        stderr: bool = False,
        style: str = "line",
        durations: int | None = None,
        reports: ReportPaths | None = None,
    ) -> None:
        self.console: Console | None = None
        #: write to stderr: stdout holds a document (``--json -``)
        self.stderr = stderr
        self.status: Status | None = None
        #: -1 quiet, 0 normal, 1 steps, 2 tool calls
        self.verbosity = verbosity
        #: ``line`` (and ``github``): a line per trail; ``dot``: a character per trail
        self.style = style
        #: ``--durations N``: list the N slowest trails and steps at the end (0: all)
        self.durations = durations
        #: the report files the run writes: named at the end, with how to open the HTML one
        self.reports = reports
        #: per session: its trail and step, and what the live display shows for it
        self.trails: dict[str, str] = {}
        self.steps: dict[str, str] = {}
        self.live: dict[str, str] = {}
        self.total = 0
        self.done = 0
        self.show_device = False
        #: trails run at once (``--workers``, several devices): lines name their trail
        self.concurrent = False
        self.lock = threading.Lock()
        self.dots = 0

    def _out(self) -> Console:
        if self.console is None:
            from rich.console import Console

            # what is printed comes from pages, trails and servers: text, never markup or
            # emoji codes (a page's "root:x:0:0" must not turn into "root❌0:0")
            self.console = Console(highlight=False, soft_wrap=True, markup=False, emoji=False, stderr=self.stderr)
        return self.console

    def _live(self, session: Session, text: str) -> None:
        """What ``session`` is doing, on the spinner: a line per session when several run."""
        console = self._out()
        if not console.is_terminal:
            return
        self.live[session.id] = f"[{self.done + 1}/{self.total}] {one_line(text)}"
        shown = "\n".join(self.live.values())
        if self.status is None:
            self.status = console.status(shown, spinner="dots")
            self.status.start()
        else:
            self.status.update(shown)

    @hookimpl
    def trailblaze_pause_live(self) -> None:
        """Stop the spinner until the next event: an agent is about to talk to a person."""
        self._stop_live()

    def _stop_live(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None

    def _line(self, text: str, style: str | None = None, *, trail: str | None = None) -> None:
        """Print whole lines; with trails running at once, each line about ``trail`` names it."""
        # errors quote pages and servers: no escape sequence reaches the terminal, no line a CI log
        lines = [inert_line(line) for line in printable(text).split("\n")]
        if trail is not None and self.concurrent:
            lines = [f"[{one_line(trail)}] {line.strip()}" for line in lines]
        text = "\n".join(lines)
        with self.lock:
            if self.dots:  # a line after a row of dots starts a line of its own
                self._out().print()
                self.dots = 0
            self._out().print(text, style=style, markup=False)

    def _dot(self, status: TrailStatus) -> None:
        with self.lock:
            self._out().print(_DOT[status], style=_STYLE[status], end="", markup=False)
            self.dots += 1

    @hookimpl
    def trailblaze_run_start(self, run: Run) -> None:
        from trailblaze import __version__

        options = run.options
        self.show_device = bool(
            len(options.devices) > 1 or options.all_devices or options.shard_split or options.shard_all
        )
        self.total = len(run.planned)
        self.concurrent = options.workers > 1 or self.show_device
        drivers = sorted({p.driver_key for p in run.planned})
        if self.verbosity >= 0:
            noun = "trail" if self.total == 1 else "trails"
            self._line(f"trailblaze {__version__} · {self.total} {noun} · {', '.join(drivers)}", "bold")

    @hookimpl
    def trailblaze_trail_start(self, trail: Trail, session: Session) -> None:
        self.trails[session.id] = trail.id
        self._live(session, trail.id)
        if self.verbosity > 0:
            self._line(f"  {one_line(trail.id)} ({one_line(session.info.id)})", "bold", trail=trail.id)

    @hookimpl
    def trailblaze_step_start(self, step: Step, trail: Trail, session: Session) -> None:
        self.steps[session.id] = step.label if step.kind != "trailhead" else "trailhead"
        self._live(session, f"{trail.id} · {self.steps[session.id]}")

    @hookimpl
    def trailblaze_tool_report(self, report: ToolReport, session: Session) -> None:
        trail = self.trails.get(session.id, "")
        self._live(session, f"{trail} · {self.steps.get(session.id, '')} · {report.name}")
        if self.verbosity > 1:
            via = f" (via {one_line(' → '.join(report.delegated_from))})" if report.delegated_from else ""
            name = one_line(report.name)
            self._line(f"      {report.status:<7} {name}{via} {report.duration_ms:.0f} ms", trail=trail)

    @hookimpl
    def trailblaze_step_finish(self, step: Step, result: StepResult, session: Session) -> None:
        if self.verbosity > 0:
            label = "trailhead" if step.kind == "trailhead" else f"{step.kind} {step.index + 1}"
            text = f"    {_WORD[result.status]:<7} {label}: {one_line(result.text)}"
            self._line(text, _STYLE[result.status], trail=self.trails.get(session.id))

    @hookimpl
    def trailblaze_trail_finish(self, trail: Trail, result: TrailResult, session: Session | None) -> None:
        self.done += 1
        if session is not None:
            self.live.pop(session.id, None)
        self._stop_live()
        if self.style == "dot":
            self._dot(result.status)
            return
        if self.verbosity < 0 and result.status in ("passed", "skipped") and not result.evidence_not_saved():
            return
        self._trail_lines(result)

    def _trail_lines(self, result: TrailResult) -> None:
        seconds = result.duration_ms / 1000
        detail = f" ({seconds:.1f}s)" if result.status != "skipped" else f" ({one_line(result.skip_reason or '')})"
        if result.attempts:
            detail += f" after {len(result.attempts) + 1} attempts"
        device = f" [{one_line(result.device)}]" if self.show_device and result.device else ""
        lines = [f"{_WORD[result.status] + ' ':<8}{one_line(result.id)}{device}{detail}"]
        indent = f"        [{one_line(result.id)}] " if self.concurrent else "        "
        if result.error and result.status in ("failed", "error", "incomplete"):
            lines += [f"{indent}{line}" for line in result.error.splitlines()]
        lines += [f"{indent}evidence not saved: {problem}" for problem in result.evidence_not_saved()]
        self._line("\n".join(lines), _STYLE[result.status])
        self._agent_lines(result)

    def _agent_lines(self, result: TrailResult) -> None:
        """What agents did in the trail (``record``, ``run --self-heal``), one line per step."""
        for step in result.steps:
            agent = step.agent
            if agent is None:
                continue
            label = "trailhead" if step.kind == "trailhead" else f"{step.kind} {step.index + 1}"
            name = one_line(agent.name)
            if step.status == "healed":
                what = f"healed by {name} (it failed: {one_line(step.error or '')})"
            elif agent.status == "complete":
                what = f"recorded by {name}" if step.recorded else f"done by {name} (not recorded)"
            else:
                what = f"{agent.status} by {name}" + (f": {one_line(agent.explanation)}" if agent.explanation else "")
            cost = ""
            if agent.model:
                tokens = agent.prompt_tokens + agent.completion_tokens
                cost = f" [{one_line(agent.model)}, {agent.turns} turns, {tokens} tokens]"
            self._line(f"        {label}: {what}{cost}", trail=result.id)
        if result.recording_saved:
            self._line(f"        recording saved to {one_line(result.path)}", trail=result.id)

    @hookimpl(trylast=True)  # after the reporters wrote their files, so it can say where they are
    def trailblaze_run_finish(self, run: Run, result: RunResult) -> None:
        self._stop_live()
        console = self._out()
        statuses: tuple[TrailStatus, ...] = ("passed", "flaky", "healed", "incomplete", "failed", "error", "skipped")
        counts = [(s, result.count(s)) for s in statuses if result.count(s)]
        summary = ", ".join(f"{n} {s}" for s, n in counts) or "no trails ran"
        if result.deselected:
            summary += f", {result.deselected} deselected"
        seconds = result.duration_ms / 1000
        if result.interrupted:
            summary += " (interrupted)"
        if self.style == "dot":
            for trail in result.trails:
                if trail.status in ("failed", "error", "incomplete") or trail.evidence_not_saved():
                    self._trail_lines(trail)
        elif console.is_terminal and len(result.trails) > 1 and self.verbosity >= 0:
            self._table(result)
        if self.durations is not None:
            self._durations(result, self.durations)
        style = "green bold" if result.exit_code == 0 else "red bold"
        self._line(f"{summary} in {seconds:.2f}s", style)
        self._where_reports_are(result)

    def _where_reports_are(self, result: RunResult) -> None:
        """``reports: JSON results.json, HTML trailblaze-report/index.html`` and, for an HTML
        report, the command that opens it (as Playwright Test ends its runs)."""
        if self.reports is None:
            return
        failed = "\n".join(result.report_errors)
        written = [
            c for c in self.reports.claims() if f" {c.option} {c.path}:" not in f" {failed}" and c.path.is_file()
        ]
        if not written:
            return
        self._line("reports: " + ", ".join(f"{c.kind.label} {one_line(_shown(c.path))}" for c in written))
        from trailblaze.core.reportfiles import HTML_PAGE

        html = next((c for c in written if c.kind is HTML_PAGE), None)
        if html is not None:
            folder = _shown(html.path.parent) if html.path.name == "index.html" else _shown(html.path)
            default = folder == "trailblaze-report"
            self._line(f"open the HTML report: trailblaze show-report{'' if default else ' ' + shlex.quote(folder)}")

    def _durations(self, result: RunResult, count: int) -> None:
        """``--durations N``: the slowest trails and steps, slowest first (0: all of them)."""
        trails = sorted((t for t in result.trails if t.status != "skipped"), key=lambda t: -t.duration_ms)
        steps = sorted(((t, s) for t in result.trails for s in t.steps), key=lambda pair: -pair[1].duration_ms)
        limit = count or None
        which = f"slowest {count}" if count else "all"
        lines = [f"{which} durations (trails)"]
        lines += [f"{t.duration_ms / 1000:8.2f}s {one_line(t.id)}" for t in trails[:limit]]
        lines.append(f"{which} durations (steps)")
        for trail, step in steps[:limit]:
            label = "trailhead" if step.kind == "trailhead" else f"{step.kind} {step.index + 1}"
            lines.append(f"{step.duration_ms / 1000:8.2f}s {one_line(trail.id)} {label}: {one_line(step.text)}")
        self._line("\n".join(lines))

    def _table(self, result: RunResult) -> None:
        from rich.table import Table
        from rich.text import Text

        table = Table(show_edge=False, pad_edge=False, box=None)
        for column in ("trail", "driver", "device", "status", "time"):
            table.add_column(column, justify="right" if column == "time" else "left")
        for trail in result.trails:
            table.add_row(
                Text(inert_line(one_line(trail.id))),
                Text(one_line(trail.driver)),
                Text(one_line(trail.device or "")),
                Text(trail.status, style=_STYLE[trail.status]),
                Text(f"{trail.duration_ms / 1000:.2f}s"),
            )
        self._out().print(table)


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    import click

    group = parser.getgroup("reporting", "Reporting")
    group.addoption("-v", "--verbose", action="count", help="Show steps (-v) and tool calls (-vv).")
    group.addoption("-q", "--quiet", is_flag=True, help="Only failures and the summary.", commands=("run",))
    group.addoption(
        "--reporter",
        choices=REPORTERS,
        default="line",
        metavar="NAME",
        help="line: a line per trail (default); dot: a character per trail; github: lines, plus "
        "annotations and a job summary for GitHub Actions.",
        commands=("run",),
    )
    group.addoption(
        "--durations",
        type=click.IntRange(min=0),
        metavar="N",
        help="List the N slowest trails and steps at the end (0: all).",
        commands=("run",),
    )


@hookimpl(trylast=True)  # after the reporters claimed their files: one may have claimed stdout
def trailblaze_configure(config: Config) -> None:
    if config.stdout_protocol is not None:  # `trailblaze mcp`: stdout is the protocol's
        return
    if config.command == "merge-reports":  # no run to follow: the command prints the merge's one line
        return
    verbosity = -1 if config.getoption("quiet") else config.getoption("verbose")
    reporter = TerminalReporter(
        verbosity,
        stderr=config.report_paths.stdout is not None,  # `--json -`, or a plugin's report to stdout
        style=config.getoption("reporter", "line"),
        durations=config.getoption("durations", None),
        reports=config.report_paths,
    )
    config.pluginmanager.register(reporter, "terminalreporter")


def _shown(path: Path) -> str:
    """A path as the end of a run names it: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)
