"""The package's layers, checked on its source: one layer per folder, and a module imports only
from its own layer and the ones below it, without circles (docs/architecture.md, "Layout").

Every import counts, also one inside a function or under ``TYPE_CHECKING``: a plugin author's
type checker follows those too, and the contract must not pull in the runner. The same file
holds the house rules the layout keeps: few modules directly in ``trailblaze/``, none over 600
lines, and only the plugin manager imports a built-in plugin.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "trailblaze"

#: lowest first. A module belongs to the first entry naming it or a package holding it
#: (``trailblaze`` itself, the public API, only by that exact name).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("trailblaze.core",)),
    ("device", ("trailblaze.device",)),
    ("tools", ("trailblaze.tools",)),
    ("trail", ("trailblaze.trail",)),
    ("project", ("trailblaze.project",)),
    ("api", ("trailblaze.api",)),
    ("contract", ("trailblaze.hookspecs", "trailblaze.pluginmanager")),
    ("drivers", ("trailblaze.drivers",)),
    ("agents", ("trailblaze.agents",)),
    ("mcp client", ("trailblaze.mcpclient",)),
    ("runner", ("trailblaze.runner",)),
    ("reports", ("trailblaze.reports",)),
    ("mcp server", ("trailblaze.mcpserver",)),
    ("cli", ("trailblaze.cli", "trailblaze.__main__")),
    ("public API", ("trailblaze",)),
    ("plugins", ("trailblaze.plugins",)),
    ("front ends", ("trailblaze.pytest_plugin",)),
]
#: not checked as importers: the public API re-exports names from every layer, lazily
EXEMPT = {"trailblaze"}
#: the one name every layer may take from the package face: it is defined there
FACE_NAMES_ANYONE_MAY_IMPORT = {"__version__"}

#: at most this many modules directly in trailblaze/
MAX_TOP_LEVEL = 8

MAX_LINES = 600

#: imports of a built-in plugin outside plugins/ and the plugin manager, each removed by h21-plugins
PLUGIN_IMPORTS_TO_REMOVE: set[tuple[str, str]] = set()


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(p) for p in SOURCES}


def layer_of(module: str) -> int | None:
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or (prefix != "trailblaze" and module.startswith(prefix + ".")):
                return index
    return None


def existing(name: str, modules: Iterable[str] = MODULES) -> str:
    """The module ``name`` is or lives in (``trailblaze.api.session.Session`` -> ``trailblaze.api.session``)."""
    known = set(modules)
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name


def imports(path: Path, modules: Iterable[str] = MODULES) -> list[tuple[str, int]]:
    """Every ``trailblaze`` module ``path`` imports, with the line: ``from a.b import c`` is
    ``a.b.c`` when that is a module, else ``a.b``; the package face only for names it defines."""
    known = set(modules)
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module != "trailblaze" and not node.module.startswith("trailblaze."):
                continue
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in known:
                    found.append((submodule, node.lineno))
                elif node.module != "trailblaze" or alias.name not in FACE_NAMES_ANYONE_MAY_IMPORT:
                    found.append((existing(node.module, known), node.lineno))
        elif isinstance(node, ast.Import):
            found += [
                (existing(a.name, known), node.lineno)
                for a in node.names
                if a.name == "trailblaze" or a.name.startswith("trailblaze.")
            ]
    return found


def upward_imports(path: Path, module: str | None = None) -> list[str]:
    """``module:line imports target (layer)`` for each import of a higher layer."""
    module = module or module_name(path)
    own = layer_of(module)
    assert own is not None, f"{module} is in no layer: add it to LAYERS in tests/test_layers.py"
    found = []
    for target, line in imports(path):
        if (module, target) in PLUGIN_IMPORTS_TO_REMOVE:
            continue  # listed, and checked, below
        theirs = layer_of(target)
        if theirs is not None and theirs > own:
            found.append(f"{module}:{line} imports {target} ({LAYERS[theirs][0]}, above {LAYERS[own][0]})")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in SOURCES:
        module = module_name(path)
        if module not in EXEMPT:
            graph[module] = {t for t, _ in imports(path) if t != module and t not in EXEMPT}
    return graph


@pytest.mark.parametrize("path", [p for p in SOURCES if module_name(p) not in EXEMPT], ids=module_name)
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    assert upward_imports(path) == []


def test_no_import_circle() -> None:
    assert cycles(import_graph()) == []


def folder_of(module: str) -> str:
    """The top-level folder (or module) of trailblaze a module is in: ``runner`` for
    ``trailblaze.runner.plan``, ``hookspecs`` for ``trailblaze.hookspecs``."""
    return module.split(".")[1] if module.count(".") else module


def test_each_folder_is_one_layer() -> None:
    """A folder is a layer or inside one: no folder spans two (``mcp/`` held the client, below
    the runner, and the server, above it)."""
    layers_of: dict[str, set[str]] = {}
    for path in SOURCES:
        module = module_name(path)
        if module in EXEMPT:
            continue
        index = layer_of(module)
        assert index is not None, f"{module} is in no layer"
        layers_of.setdefault(folder_of(module), set()).add(LAYERS[index][0])
    spanning = {folder: sorted(layers) for folder, layers in layers_of.items() if len(layers) > 1}
    assert spanning == {}


def test_no_two_folders_import_each_other() -> None:
    graph: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        graph.setdefault(folder_of(module), set()).update(
            folder_of(t) for t in targets if folder_of(t) != folder_of(module)
        )
    assert cycles(graph) == []


def test_the_architecture_page_lists_the_layers_in_this_order() -> None:
    """docs/architecture.md's table of layers names the layers of LAYERS, lowest first: the
    order is written here once and the page is checked against it."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page.split("| Layer | Owns | May import |", 1)[1].split("\n\n", 1)[0]
    shown = [row.split("|")[1].strip() for row in table.splitlines()[2:] if row.startswith("|")]
    expected = []
    for name, prefixes in LAYERS:
        folders = [p.removeprefix("trailblaze.").replace(".", "/") for p in prefixes]
        expected.append(name if name in ("contract", "front ends") else f"`{folders[0]}/`")
    expected[[name for name, _ in LAYERS].index("public API")] = "`__init__.py`"
    assert shown == expected


def test_the_check_catches_an_upward_import(tmp_path: Path) -> None:
    source = tmp_path / "coretools.py"
    source.write_text(
        (PACKAGE / "tools" / "coretools.py").read_text(encoding="utf-8")
        + "\n\ndef _f() -> None:\n    from trailblaze.runner.replay import x\n",
        encoding="utf-8",
    )
    (problem,) = upward_imports(source, "trailblaze.tools.coretools")
    assert problem.endswith("imports trailblaze.runner.replay (runner, above tools)")


def test_the_check_catches_the_package_face_imported_from_below(tmp_path: Path) -> None:
    source = tmp_path / "tools.py"
    source.write_text("from trailblaze import ToolContext, __version__\n", encoding="utf-8")
    (problem,) = upward_imports(source, "trailblaze.drivers.web.tools")
    assert problem.endswith("imports trailblaze (public API, above drivers)")


def test_the_check_catches_a_circle_under_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "trailblaze"
    (package / "api").mkdir(parents=True)
    (package / "api" / "a.py").write_text("from trailblaze.api.b import B\n", encoding="utf-8")
    (package / "api" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from trailblaze.api import a\n", encoding="utf-8"
    )
    paths = sorted(package.rglob("*.py"))
    modules = {module_name(p, package) for p in paths}
    graph = {module_name(p, package): {t for t, _ in imports(p, modules)} for p in paths}
    assert cycles(graph) == [["trailblaze.api.a", "trailblaze.api.b"]]


def test_few_modules_directly_in_the_package() -> None:
    top = {p.name for p in PACKAGE.glob("*.py")}
    assert len(top) <= MAX_TOP_LEVEL, sorted(top)


def test_no_module_over_600_lines() -> None:
    sizes = {p.relative_to(PACKAGE.parent).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in SOURCES}
    over = {path: lines for path, lines in sizes.items() if lines > MAX_LINES}
    assert over == {}, "split these modules by concern"


def test_only_the_plugin_manager_imports_a_built_in_plugin() -> None:
    found = set()
    for path in SOURCES:
        module = module_name(path)
        if module.startswith("trailblaze.plugins.") or module in {"trailblaze.plugins", "trailblaze.pluginmanager"}:
            continue
        found |= {(module, t) for t, _ in imports(path) if t.startswith("trailblaze.plugins.")}
    assert found - PLUGIN_IMPORTS_TO_REMOVE == set()
    assert PLUGIN_IMPORTS_TO_REMOVE - found == set(), "removed: take them off PLUGIN_IMPORTS_TO_REMOVE"


def test_the_named_rules_of_the_issue_hold() -> None:
    """tools/ and trail/ import nothing from the runner, the plugins or the CLI; the project
    configuration nothing from mcp/ (the rules ``issue 14`` names, checked by name)."""
    forbidden = {
        "trailblaze.tools": ("trailblaze.runner", "trailblaze.plugins", "trailblaze.cli"),
        "trailblaze.trail": ("trailblaze.runner", "trailblaze.plugins", "trailblaze.cli"),
        "trailblaze.project.config": ("trailblaze.mcpclient", "trailblaze.mcpserver"),
    }
    for path in SOURCES:
        module = module_name(path)
        for area, targets in forbidden.items():
            if module == area or module.startswith(area + "."):
                bad = [t for t, _ in imports(path) if t.startswith(targets)]
                assert bad == [], f"{module} imports {bad}"


def test_no_test_imports_from_conftest() -> None:
    """conftest.py holds fixtures and hooks; what tests import is in tests/support/."""
    tests = PACKAGE.parent / "tests"
    found = [
        f"{path.relative_to(tests)}:{number}"
        for path in sorted(tests.rglob("*.py"))
        if "node_modules" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith(("from conftest import", "from tests.conftest import", "import conftest"))
    ]
    assert found == []
