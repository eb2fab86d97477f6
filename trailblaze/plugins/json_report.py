"""Built-in plugin: ``--json FILE`` writes the results document (README, "Results JSON");
``--json -`` writes it to stdout, and the terminal reporter then writes to stderr, so stdout is
the JSON document alone.

As pytest's ``junitxml``, the plugin owns its option and its output: ``trailblaze_addoption``
declares ``--json``, and ``trailblaze_configure`` registers a :class:`JsonReport` only when it
was given.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.api.results import RunResult
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.config import Config

PLUGIN_NAME = "json_report.writer"


def to_stdout(path: object) -> bool:
    """``--json -``: the document goes to stdout (and the terminal reporter to stderr)."""
    return str(path) == "-"


class JsonReport:
    """Writes ``result`` as JSON to ``path`` when the run is over."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @hookimpl
    def trailblaze_run_finish(self, run: Run, result: RunResult) -> None:
        import json  # here: a command that writes no report does not import it

        from trailblaze.core.fileio import write_atomic

        document = json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n"
        if to_stdout(self.path):
            sys.stdout.write(document)
            sys.stdout.flush()
            return
        try:
            write_atomic(self.path, document)
        except OSError as exc:
            result.report_failed("--json", self.path, exc)


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    import click

    parser.getgroup("reporting", "Reporting").addoption(
        "--json",
        metavar="FILE",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write results JSON here ('-': to stdout; the terminal output then goes to stderr).",
        commands=("run", "record", "merge-reports"),
    )


@hookimpl
def trailblaze_configure(config: Config) -> None:
    path = config.getoption("json")
    if path is not None:
        from trailblaze.core.reportfiles import RESULTS_JSON

        config.report_paths.claim("--json", path, RESULTS_JSON)
        config.pluginmanager.register(JsonReport(path), PLUGIN_NAME)


@hookimpl
def trailblaze_unconfigure(config: Config) -> None:
    report = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if report is not None:
        config.pluginmanager.unregister(report)
