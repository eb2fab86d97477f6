"""The import paths modules had before they moved into the layer folders, kept for one release.

``import trailblaze.session`` still works: it warns (a DeprecationWarning naming the new path)
and gives the very module object of ``trailblaze.api.session``, so classes, ``isinstance``
checks and monkeypatching behave as before (``trailblaze.session.Session is
trailblaze.api.session.Session``). A module inside a moved package is found the same way
(``trailblaze.web.driver`` is ``trailblaze.drivers.web.driver``). ``trailblaze/__init__.py``
installs the finder; an old path is only looked up when something imports it.

relayout: keep — the table names the old paths on purpose; the move script regenerates it
between its markers, from the moves that are done.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

#: old module path -> new module path (a package's modules follow it)
MOVED: dict[str, str] = {
    # relayout: table start
    "trailblaze.agents.base": "trailblaze.api.agent",
    "trailblaze.android": "trailblaze.drivers.android",
    "trailblaze.argparsing": "trailblaze.core.argparsing",
    "trailblaze.client": "trailblaze.mcp.client.sdk",
    "trailblaze.completion": "trailblaze.cli.completion",
    "trailblaze.config": "trailblaze.project.config",
    "trailblaze.crashlog": "trailblaze.cli.crashlog",
    "trailblaze.devicecommands": "trailblaze.device.commands",
    "trailblaze.display": "trailblaze.cli.display",
    "trailblaze.driver": "trailblaze.api.driver",
    "trailblaze.drivernames": "trailblaze.device.drivernames",
    "trailblaze.errors": "trailblaze.core.errors",
    "trailblaze.evidence": "trailblaze.runner.evidence",
    "trailblaze.fileio": "trailblaze.core.fileio",
    "trailblaze.htmlreport": "trailblaze.reports.html",
    "trailblaze.ios": "trailblaze.drivers.ios",
    "trailblaze.javaregex": "trailblaze.core.javaregex",
    "trailblaze.jsonsource": "trailblaze.core.jsonsource",
    "trailblaze.limits": "trailblaze.core.limits",
    "trailblaze.localguard": "trailblaze.core.localguard",
    "trailblaze.maestro": "trailblaze.drivers.maestro",
    "trailblaze.masking": "trailblaze.device.masking",
    "trailblaze.mcp._zygote": "trailblaze.mcp.client._zygote",
    "trailblaze.mcp.attach": "trailblaze.mcp.client.attach",
    "trailblaze.mcp.connection": "trailblaze.mcp.client.connection",
    "trailblaze.mcp.declarations": "trailblaze.mcp.client.declarations",
    "trailblaze.mcp.prefork": "trailblaze.mcp.client.prefork",
    "trailblaze.mcp.rpc": "trailblaze.mcp.client.rpc",
    "trailblaze.mcp.scripted": "trailblaze.mcp.client.scripted",
    "trailblaze.mcp.stdio": "trailblaze.mcp.client.stdio",
    "trailblaze.mcp.tool": "trailblaze.mcp.client.tool",
    "trailblaze.mcp.wire": "trailblaze.mcp.client.wire",
    "trailblaze.mcpserver": "trailblaze.mcp.server",
    "trailblaze.mobile": "trailblaze.drivers.mobile",
    "trailblaze.pathnames": "trailblaze.core.pathnames",
    "trailblaze.processes": "trailblaze.core.processes",
    "trailblaze.projectfile": "trailblaze.project.projectfile",
    "trailblaze.registry": "trailblaze.core.registry",
    "trailblaze.reportfiles": "trailblaze.core.reportfiles",
    "trailblaze.reportserver": "trailblaze.reports.server",
    "trailblaze.results": "trailblaze.api.results",
    "trailblaze.resultsdoc": "trailblaze.reports.resultsdoc",
    "trailblaze.scaffold": "trailblaze.cli.scaffold",
    "trailblaze.schema": "trailblaze.project.schema",
    "trailblaze.scriptedtools": "trailblaze.project.scriptedtools",
    "trailblaze.selection": "trailblaze.runner.selection",
    "trailblaze.selectors": "trailblaze.device.selectors",
    "trailblaze.session": "trailblaze.api.session",
    "trailblaze.sharding": "trailblaze.runner.sharding",
    "trailblaze.sourcefile": "trailblaze.core.sourcefile",
    "trailblaze.toolsets": "trailblaze.project.toolsets",
    "trailblaze.trail.interpolate": "trailblaze.core.interpolate",
    "trailblaze.validation": "trailblaze.core.validation",
    "trailblaze.web": "trailblaze.drivers.web",
    "trailblaze.workspace": "trailblaze.project.workspace",
    "trailblaze.yamlsource": "trailblaze.core.yamlsource",
    # relayout: table end
}


#: names that left a module that stays, each kept there for one release: module -> name -> the
#: module that defines it now (a lower layer's module cannot import a higher one's, so the
#: name is looked up by its string only when something asks the old module for it)
MOVED_NAMES: dict[str, dict[str, str]] = {
    "trailblaze.project.config": {
        "McpServerConfig": "trailblaze.mcp.client.settings",
        "McpServers": "trailblaze.mcp.client.settings",
        "server_entries": "trailblaze.mcp.client.settings",
        "SAMPLE_APP": "trailblaze.drivers.web.settings",
    },
}


def moved_name(module: str, name: str) -> object:
    """``module.name`` for a name that moved (:data:`MOVED_NAMES`), with a DeprecationWarning
    naming the new place; an AttributeError for any other name (a module's ``__getattr__``)."""
    new = MOVED_NAMES.get(module, {}).get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} has moved to {new}: import it from there ({module}.{name} goes away in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(importlib.import_module(new), name)


def new_name(fullname: str) -> str | None:
    """Where ``fullname`` lives now, if it is an old path or inside an old package."""
    probe = fullname
    while "." in probe:
        if probe in MOVED:
            return MOVED[probe] + fullname[len(probe) :]
        probe = probe.rpartition(".")[0]
    return None


class _Alias:
    """Loads an old path as the module at the new one: the same object under both names (an
    ``importlib.abc.Loader`` by its methods: importing ``importlib.abc`` would cost start-up 5 ms)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system gave the module the alias's spec: its own says where it really is
        module.__spec__ = self.spec


class RelocatedFinder:
    """Finds old module paths: an ``importlib.abc.MetaPathFinder`` by its method, first on
    ``sys.meta_path`` so that a folder left behind with only ``__pycache__`` in it cannot be
    imported as an empty namespace package instead."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("trailblaze."):
            return None
        new = new_name(fullname)
        if new is None:
            return None
        warnings.warn(
            f"{fullname} has moved to {new}: import it from there ({fullname} goes away in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))  # type: ignore[arg-type]


def install() -> None:
    if not any(isinstance(finder, RelocatedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, RelocatedFinder())
