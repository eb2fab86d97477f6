"""Built-ins have no privileges: nothing in trailblaze outside ``plugins/`` and the plugin manager
imports a built-in plugin (the runner, the CLI and the MCP server reach plugins through hooks),
counting every import — in functions and under TYPE_CHECKING too."""

from __future__ import annotations

import ast
from pathlib import Path

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
