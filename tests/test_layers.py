"""The package's layers, checked on its source: a module imports only from its own layer and the
ones below it (architecture: "the CLI knows the runner, the runner knows tools and drivers
through interfaces, plugins know the public API — never the other way round").

Every import counts, also one inside a function or under ``TYPE_CHECKING``: a plugin author's
type checker follows those too, and the contract must not pull in the runner.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "trailblaze"

#: lowest first. A module belongs to the first entry naming it or a package holding it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "trailblaze._relocated",
            "trailblaze.core.errors",
            "trailblaze.core.limits",
            "trailblaze.core.fileio",
            "trailblaze.core.pathnames",
            "trailblaze.core.reportfiles",
            "trailblaze.core.localguard",
            "trailblaze.core.sourcefile",
            "trailblaze.core.jsonsource",
            "trailblaze.core.yamlsource",
            "trailblaze.project.projectfile",
            "trailblaze.core.validation",
            "trailblaze.device.drivernames",
            "trailblaze.device.selectors",
            "trailblaze.core.processes",
            "trailblaze.core.argparsing",
            "trailblaze.core.registry",
            "trailblaze.core.javaregex",
            "trailblaze.runner.sharding",
        ),
    ),
    (
        "contract and model",  # what plugins see: the hooks, the types they pass, the files' models
        (
            "trailblaze.hookspecs",
            "trailblaze.pluginmanager",
            "trailblaze.api.session",
            "trailblaze.api.results",
            "trailblaze.device.commands",
            "trailblaze.device.masking",
            "trailblaze.api.driver",
            "trailblaze.api.agent",
            "trailblaze.project.config",
            "trailblaze.project.toolsets",
            "trailblaze.project.workspace",
            "trailblaze.project.scriptedtools",
            "trailblaze.tools",
            "trailblaze.trail",
        ),
    ),
    (
        "implementations",  # drivers, agents, MCP toolsets: what built-in plugins offer
        (
            "trailblaze.drivers.web",
            "trailblaze.drivers.android",
            "trailblaze.drivers.ios",
            "trailblaze.drivers.mobile",
            "trailblaze.drivers.maestro",
            "trailblaze.mcp",
            "trailblaze.agents",
            "trailblaze.mcp.client.sdk",
            "trailblaze.runner.selection",
            "trailblaze.project.schema",
            "trailblaze.runner.evidence",
            "trailblaze.reports",
            # moved to trailblaze.reports for one release
            "trailblaze.reports.html",
            "trailblaze.reports.server",
            "trailblaze.reports.resultsdoc",
            "trailblaze.mergereports",
        ),
    ),
    ("runner", ("trailblaze.runner",)),
    ("MCP server", ("trailblaze.mcp.server",)),
    ("command line", ("trailblaze.pytest_plugin", "trailblaze.cli", "trailblaze.__main__")),
    # thin hookimpl modules, on top as an installed plugin is: nothing else imports them
    ("built-in plugins", ("trailblaze.plugins",)),
]
#: the public API re-exports names from every layer, lazily
EXEMPT = {"trailblaze"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int | None:
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


def imports(path: Path) -> list[tuple[str, int]]:
    """Every ``trailblaze`` module ``path`` imports, with the line."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "trailblaze":  # `from trailblaze import limits`: the submodules
                found += [(f"trailblaze.{alias.name}", node.lineno) for alias in node.names]
            elif node.module.startswith("trailblaze."):
                found.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.startswith("trailblaze.")]
    return found


def upward_imports(path: Path, module: str | None = None) -> list[str]:
    """``module:line imports target (layer)`` for each import of a higher layer."""
    module = module or module_name(path)
    own = layer_of(module)
    assert own is not None, f"{module} is in no layer: add it to LAYERS in tests/test_layers.py"
    found = []
    for target, line in imports(path):
        theirs = layer_of(target)
        if theirs is not None and theirs > own:
            found.append(f"{module}:{line} imports {target} ({LAYERS[theirs][0]}, above {LAYERS[own][0]})")
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if module_name(p) not in EXEMPT)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    assert upward_imports(path) == []


def test_the_check_catches_an_upward_import(tmp_path: Path) -> None:
    source = tmp_path / "core.py"
    source.write_text(
        (PACKAGE / "tools" / "core.py").read_text(encoding="utf-8")
        + "\n\ndef _f() -> None:\n    from trailblaze.runner.replay import x\n",
        encoding="utf-8",
    )
    (problem,) = upward_imports(source, "trailblaze.tools.core")
    assert problem.endswith("imports trailblaze.runner.replay (runner, above contract and model)")


def test_the_named_rules_of_the_issue_hold() -> None:
    """tools/ and trail/ import nothing from the runner, the plugins or the CLI; config.py
    nothing from mcp/ (the rules ``issue 14`` names, checked by name)."""
    forbidden = {
        "trailblaze.tools": ("trailblaze.runner", "trailblaze.plugins", "trailblaze.cli"),
        "trailblaze.trail": ("trailblaze.runner", "trailblaze.plugins", "trailblaze.cli"),
        "trailblaze.project.config": ("trailblaze.mcp",),
    }
    for path in SOURCES:
        module = module_name(path)
        for area, targets in forbidden.items():
            if module == area or module.startswith(area + "."):
                bad = [t for t, _ in imports(path) if t.startswith(targets)]
                assert bad == [], f"{module} imports {bad}"
