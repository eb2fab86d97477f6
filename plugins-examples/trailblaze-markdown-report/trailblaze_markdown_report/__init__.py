"""A reporter written as any plugin would be: ``--markdown FILE`` writes a Markdown summary of the
run (a table of trails, the failures with their errors), e.g. for a CI job summary
(``$GITHUB_STEP_SUMMARY``). A ``markdown:`` section of trailblaze.yaml sets its title and whether
passed trails are listed.

It touches nothing of trailblaze's: it declares its option and its section in
``trailblaze_addoption``, reads them in ``trailblaze_configure``, and registers a reporter object
that writes the file in ``trailblaze_run_finish`` — as pytest's ``junitxml`` plugin does. Its
option also applies to ``trailblaze merge-reports``, which hands the reporters the CI shards'
merged run the same way, so ``--markdown`` summarises that too.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

import trailblaze

#: the reporter's name among the plugins (``trailblaze plugins`` lists it while a run writes)
REPORTER = "markdown_report.writer"


class MarkdownSettings(BaseModel):
    """``markdown:`` in trailblaze.yaml."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key is an error with its file:line

    title: str = "Trailblaze results"
    show_passed: bool = True
    max_error_chars: int = Field(default=300, gt=0)


class MarkdownReport:
    def __init__(self, path: Path, settings: MarkdownSettings) -> None:
        self.path = path
        self.settings = settings

    @trailblaze.hookimpl
    def trailblaze_run_finish(self, run: trailblaze.Run, result: trailblaze.RunResult) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.render(result), encoding="utf-8")

    def render(self, result: trailblaze.RunResult) -> str:
        settings = self.settings
        statuses = ("passed", "failed", "error", "skipped")
        counts = ", ".join(f"{result.count(s)} {s}" for s in statuses if result.count(s))
        lines = [f"# {settings.title}", "", f"{counts or 'no trails ran'} in {result.duration_ms / 1000:.2f}s", ""]
        shown = [t for t in result.trails if settings.show_passed or t.status != "passed"]
        if shown:
            lines += ["| trail | device | status | time |", "| --- | --- | --- | --- |"]
            lines += [f"| {t.id} | {t.device or ''} | {t.status} | {t.duration_ms / 1000:.2f}s |" for t in shown]
        for trail in result.trails:
            if trail.error:
                error = trail.error[: settings.max_error_chars]
                lines += ["", f"## {trail.id}: {trail.status}", "", "```", error, "```"]
        return "\n".join(lines) + "\n"


@trailblaze.hookimpl
def trailblaze_addoption(parser: trailblaze.Parser) -> None:
    group = parser.getgroup("reporting")
    group.addoption(
        "--markdown",
        metavar="FILE",
        type=Path,
        help="Write a Markdown summary here.",
        commands=("run", "record", "merge-reports"),
    )
    parser.add_section("markdown", MarkdownSettings, help="the Markdown summary's title and contents")


@trailblaze.hookimpl
def trailblaze_configure(config: trailblaze.Config) -> None:
    path = config.getoption("markdown")
    if path is not None:
        config.pluginmanager.register(MarkdownReport(path, config.section("markdown")), REPORTER)


@trailblaze.hookimpl
def trailblaze_unconfigure(config: trailblaze.Config) -> None:
    reporter = config.pluginmanager.get_plugin(REPORTER)
    if reporter is not None:
        config.pluginmanager.unregister(reporter)
