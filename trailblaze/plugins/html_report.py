"""Built-in plugin: ``--html [PATH]`` writes the run as one HTML page; ``trailblaze show-report``
serves it.

The page is :func:`trailblaze.reports.html.render` of the results JSON: summary, trails
filterable by status and tag, each step with its tools, durations and error, screenshots
inline, and a retried trail's earlier attempts with theirs. The evidence it links to (traces,
hierarchies, console logs, screenshots at full size; the earlier attempts' too) is copied next
to it, under ``data/<run folder>/``, so the report's folder is all a CI job needs to keep. A
report with a trace gets Playwright's trace viewer too, under ``data/trace-viewer/`` (as
Playwright Test's HTML report carries it): its trails and steps open their trace in it when the
report is served (``trailblaze show-report``, or a CI system's pages).
``--html`` alone writes ``trailblaze-report/index.html``; ``html:`` in
trailblaze.yaml sets a path (which turns the report on without the flag) and a title.
``trailblaze merge-reports --html`` (or ``--html=PATH``) writes the shards' merged run the same
way, copying only the evidence files the merge checked.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    import click

    from trailblaze.api.results import RunResult
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.config import Config

PLUGIN_NAME = "html_report.writer"
DEFAULT_FOLDER = Path("trailblaze-report")
DEFAULT_PATH = DEFAULT_FOLDER / "index.html"
#: where, in the report's folder, Playwright's trace viewer is copied
VIEWER_FOLDER = Path("data", "trace-viewer")


@functools.cache
def settings_model() -> type[Any]:
    """The model of ``html:`` in trailblaze.yaml (made on first use: pydantic is not imported
    at start-up)."""
    from pydantic import BaseModel, ConfigDict, Field

    class HtmlSettings(BaseModel):
        model_config = ConfigDict(extra="forbid")

        path: str | None = Field(
            default=None, description="where the report goes (relative to trailblaze.yaml); set: one on every run"
        )
        title: str = Field(default="trailblaze report", description="the report's title")

    return HtmlSettings


class HtmlReport:
    """Writes the run's report to ``path`` when the run is over."""

    def __init__(self, path: Path, title: str) -> None:
        self.path = path
        self.title = title

    @hookimpl
    def trailblaze_run_finish(self, run: Run, result: RunResult) -> None:
        try:
            if result.evidence_files is not None:
                write_merged_report(self.path, result, result.evidence_files, f"{self.title} (merged)")
            else:
                write_report(self.path, result, run.options.artifacts_dir, self.title)
        except OSError as exc:
            result.report_failed("--html", self.path, exc)


def write_report(path: Path, result: RunResult, artifacts_dir: Path | None, title: str) -> None:
    """Write ``result`` as an HTML page at ``path``, its evidence (the earlier attempts' too)
    copied under ``data/``."""
    from trailblaze.core.fileio import write_atomic  # here: a command that writes no report does not import it
    from trailblaze.reports.html import render

    folder = path.parent
    document = result.to_dict()
    for trail in document["trails"]:
        for entry in (trail, *trail["steps"], *trail["attempts"]):  # the earlier runs' evidence too
            entry["artifacts"] = [_copied(a, artifacts_dir, folder) for a in entry["artifacts"]]
    write_atomic(path, render(document, base=folder, title=title, viewer=_with_viewer(document, folder)))


def _copied(artifact: dict[str, Any], artifacts_dir: Path | None, folder: Path) -> dict[str, Any]:
    """``artifact`` with its path relative to the report, the file copied next to it."""
    if artifacts_dir is None:
        return artifact
    source = artifacts_dir / artifact["path"]
    if not source.is_file():
        return artifact
    from trailblaze.core.fileio import copy_whole

    relative = Path("data") / artifacts_dir.name / artifact["path"]
    copy_whole(source, folder / relative)  # a link left in the report's folder is replaced, not written through
    return {**artifact, "path": relative.as_posix()}


def write_merged_report(path: Path, result: RunResult, evidence: Mapping[str, Path], title: str) -> None:
    """Write a merged ``result`` (``trailblaze merge-reports``) as an HTML page at ``path``, its
    evidence copied under ``data/merged/``. Only the files the merge checked (``evidence``) are
    copied; an entry naming anything else is left out of the page, so nothing else is read."""
    from trailblaze.core.fileio import copy_whole, write_atomic
    from trailblaze.reports.html import render

    folder = path.parent
    document = result.to_dict()
    for trail in document["trails"]:
        for part in (trail, *trail["steps"], *trail["attempts"]):
            kept = []
            for artifact in part["artifacts"]:
                source = evidence.get(artifact["path"])
                if source is None:
                    continue
                inside = [p for p in Path(artifact["path"]).parts if p not in ("..", ".", "/")]
                relative = Path("data", "merged", *inside)
                if not (folder / relative).is_file():  # listed twice (a step's, and its attempt's): copied once
                    copy_whole(source, folder / relative)
                kept.append({**artifact, "path": relative.as_posix()})
            part["artifacts"] = kept
    write_atomic(path, render(document, base=folder, title=title, viewer=_with_viewer(document, folder)))


def _with_viewer(document: Mapping[str, Any], folder: Path) -> str | None:
    """Copy Playwright's trace viewer into the report's folder when a trail of ``document``
    (or one of its earlier attempts) has a trace copied there; its page's address relative to the
    report, or None."""
    traces = [
        a for t in document["trails"] for part in (t, *t["attempts"]) for a in part["artifacts"] if a["kind"] == "trace"
    ]
    if not any((folder / a["path"]).is_file() for a in traces):
        return None
    source = trace_viewer()
    if source is None:
        return None
    import shutil

    target = folder / VIEWER_FOLDER
    if target.is_symlink() or target.is_file():  # a link is replaced, never copied into
        target.unlink()
    elif target.is_dir():  # another Playwright's files (their names carry hashes) would pile up
        shutil.rmtree(target)
    shutil.copytree(source, target)
    return (VIEWER_FOLDER / "index.html").as_posix()


def trace_viewer() -> Path | None:
    """The trace viewer the installed Playwright ships (the web app ``playwright show-trace``
    serves), found without importing Playwright; None when it is not where Playwright 1.65 keeps
    it (``driver/package/lib/vite/traceViewer``)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("playwright")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        viewer = Path(location, "driver", "package", "lib", "vite", "traceViewer")
        if (viewer / "index.html").is_file():
            return viewer
    return None


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    import click

    parser.getgroup("reporting", "Reporting").addoption(
        "--html",
        metavar="[PATH]",
        type=click.Path(dir_okay=False, path_type=Path),
        flag_value=str(DEFAULT_PATH),
        help=f"Write an HTML report (alone: {DEFAULT_PATH}; another path only as --html=PATH). "
        "`trailblaze show-report` opens it.",
        commands=("run", "merge-reports"),  # one form wherever a report is written
    )
    parser.add_section("html", settings_model(), help="the HTML report: path (writes one on every run), title")


@hookimpl
def trailblaze_configure(config: Config) -> None:
    settings = config.section("html")
    given = config.getoption("html", None)
    if config.command == "merge-reports" and given is None:
        return  # html.path is where each run writes its report, not the merge
    if config.command not in ("run", "merge-reports") or (given is None and settings.path is None):
        return
    if given is not None and str(given) == "-":
        from trailblaze.core.errors import UsageError

        raise UsageError("--html -: the report is a page with its files, written to a folder or file")
    from trailblaze.core.reportfiles import HTML_PAGE

    path = Path(given) if given is not None else config.root / str(settings.path)
    config.report_paths.claim("--html" if given is not None else "html.path", path, HTML_PAGE)
    config.pluginmanager.register(HtmlReport(path, settings.title), PLUGIN_NAME)


@hookimpl
def trailblaze_unconfigure(config: Config) -> None:
    report = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if report is not None:
        config.pluginmanager.unregister(report)


@hookimpl
def trailblaze_register_commands(cli: click.Group) -> None:
    import click

    @cli.command(
        "show-report",
        epilog="\b\nExamples:\n  trailblaze show-report\n"
        "  trailblaze show-report out/report.html --port 9323 --no-open\n"
        "  trailblaze show-report .trailblaze/mcp",
    )
    @click.argument("path", required=False, type=click.Path(path_type=Path), default=DEFAULT_FOLDER)
    @click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port on 127.0.0.1 (default: a free one).")
    @click.option("--no-open", is_flag=True, help="Print the address; do not open a browser.")
    def show_report(path: Path, port: int, no_open: bool) -> int:
        """Serve an HTML report (a folder with index.html, or the page itself) on 127.0.0.1 and
        open it in a browser; Ctrl-C stops. Without a terminal, or in CI, only prints the address.
        An MCP session's folder (.trailblaze/mcp/SESSION, or .trailblaze/mcp for the newest) shows
        what trailblaze's agent did in it."""
        from trailblaze.reports.server import serve

        return serve(path, port, open_browser=not no_open, echo=click.echo)
