"""Shell completion (bash, zsh, fish) beyond what click completes by itself: trail files and
folders for ``run``/``record``/``validate``, and driver names for ``--driver``.

Click's protocol does the rest: ``_TRAILBLAZE_COMPLETE=bash_source trailblaze`` prints the
script to source (``zsh_source``, ``fish_source`` for the others); the shell then calls
``trailblaze`` with ``COMP_WORDS``/``COMP_CWORD`` and ``_TRAILBLAZE_COMPLETE=bash_complete``.
Completion never fails loudly: whatever goes wrong, it offers nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.shell_completion import CompletionItem

_TRAIL_SUFFIXES = (".trail.yaml",)
_TRAIL_NAMES = ("trail.yaml",)


def trail_paths(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Folders and trail files (``*.trail.yaml``, ``trail.yaml``) that start with ``incomplete``."""
    folder, sep, prefix = incomplete.rpartition("/")
    base = Path(folder + sep) if sep else Path(".")
    try:
        entries = sorted(base.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    items = []
    for entry in entries:
        if not entry.name.startswith(prefix) or (entry.name.startswith(".") and not prefix.startswith(".")):
            continue
        shown = folder + sep + entry.name
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir:
            items.append(CompletionItem(shown + "/", help="folder"))
        elif entry.name in _TRAIL_NAMES or entry.name.endswith(_TRAIL_SUFFIXES):
            items.append(CompletionItem(shown, help="trail"))
    return items


def driver_names(ctx: click.Context, incomplete: str) -> list[CompletionItem]:
    """Driver keys and aliases (upstream's names) the loaded plugins register."""
    try:
        from trailblaze.api.driver import DriverRegistry
        from trailblaze.pluginmanager import collect, get_plugin_manager

        # the command line's plugins (-p, trailblaze.yaml's plugins:), built by the CLI's state
        state = ctx.find_root().obj
        plugins = state.plugins() if hasattr(state, "plugins") else get_plugin_manager([])
        registry = DriverRegistry()
        collect(plugins, "trailblaze_register_drivers", registry)
        names = sorted({name for driver in registry for name in (driver.key, *driver.aliases)})
    except Exception:
        return []
    wanted = incomplete.lower()
    return [CompletionItem(name) for name in names if name.lower().startswith(wanted)]


def driver_type() -> click.ParamType[Any]:
    """``--driver``'s type: any text (the runner checks it), completed with driver names."""

    class DriverName(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.4 on
        name = "key"

        def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
            return value

        def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
            return driver_names(ctx, incomplete)

    return DriverName()
