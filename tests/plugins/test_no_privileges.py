"""Built-ins have no privileges: nothing in trailblaze outside ``plugins/`` and the plugin manager
imports a built-in plugin (the runner, the CLI and the MCP server reach plugins through hooks),
counting every import — in functions and under TYPE_CHECKING too."""

from __future__ import annotations

import ast
from pathlib import Path

from test_shard import NULL, null_project

from tests.support.cli import CliRunner

PACKAGE = Path(__file__).resolve().parents[2] / "trailblaze"


def plugin_imports(path: Path) -> list[str]:
    """``line: module`` for each import of ``trailblaze.plugins`` (or a module in it) in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "trailblaze.plugins" or node.module.startswith("trailblaze.plugins."):
                found += [f"{node.lineno}: {node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: {a.name}" for a in node.names if a.name.startswith("trailblaze.plugins")]
    return found


def test_nothing_outside_the_plugins_imports_a_built_in_plugin() -> None:
    outside = [
        p for p in PACKAGE.rglob("*.py") if PACKAGE / "plugins" not in p.parents and p != PACKAGE / "pluginmanager.py"
    ]
    assert len(outside) > 100  # the package's modules are found
    found = {str(p.relative_to(PACKAGE)): plugin_imports(p) for p in outside}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import trailblaze.plugins.terminal\n"
        "if TYPE_CHECKING:\n"
        "    from trailblaze.plugins.selection import trailblaze_addoption\n"
        "def f():\n"
        "    from trailblaze.plugins import junit_report\n",
        encoding="utf-8",
    )
    assert plugin_imports(source) == [
        "2: trailblaze.plugins.terminal",
        "4: trailblaze.plugins.selection.trailblaze_addoption",
        "6: trailblaze.plugins.junit_report",
    ]


STDOUT_REPORT = """
from pathlib import Path

import trailblaze
from trailblaze.core.reportfiles import RESULTS_JSON


class Tally:
    @trailblaze.hookimpl
    def trailblaze_run_finish(self, run, result):
        print(f"tally: {result.count('passed')} passed")


@trailblaze.hookimpl
def trailblaze_addoption(parser):
    parser.getgroup("reporting").addoption("--tally", is_flag=True, help="A tally on stdout.")


@trailblaze.hookimpl
def trailblaze_configure(config):
    if config.getoption("tally"):
        config.report_paths.claim("--tally", Path("-"), RESULTS_JSON)
        config.pluginmanager.register(Tally(), "tally.writer")
"""


def test_a_plugins_report_to_stdout_moves_the_terminal_reporter_to_stderr(cli: CliRunner, tmp_path: Path) -> None:
    """As ``--json -`` does: the terminal reporter honours whoever claimed stdout, by no name."""
    null_project(tmp_path, 2)
    (tmp_path / "tally.py").write_text(STDOUT_REPORT, encoding="utf-8")
    result = cli("run", *NULL, "-p", "tally", "--tally")
    assert result.returncode == 0, result.output
    assert result.stdout == "tally: 2 passed\n"
    assert "2 passed" in result.stderr
    both = cli("run", *NULL, "-p", "tally", "--tally", "--json", "-")
    assert both.returncode == 3 and "only one report can go to stdout" in both.stderr
