"""Build the plugin manager: built-in plugins, ``-p`` modules, then the ``trailblaze`` entry points.

Load order follows pytest: names blocked with ``-p no:NAME`` first, then the essential built-ins
(:data:`ESSENTIAL_PLUGINS`, which cannot be blocked), the built-ins in :data:`DEFAULT_PLUGINS`,
then modules named with ``-p NAME`` or ``plugins:`` in
``trailblaze.yaml``, then every entry point of group ``trailblaze`` (unless
``TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD`` is set), then ``check_pending()`` so a misspelled hook
fails loudly. ``TRAILBLAZE_TRACE_PLUGINS=1`` prints every hook call to stderr.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from trailblaze import hookspecs
from trailblaze.core.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser
    from trailblaze.core.registry import Registry

#: Built-in plugins the runner cannot do without (its own options): never blocked.
ESSENTIAL_PLUGINS: tuple[str, ...] = ("main",)
#: Built-in plugins, registered by short name like any other (``-p no:terminal`` removes one).
DEFAULT_PLUGINS: tuple[str, ...] = (
    "retries",
    "selection",
    "trail_files",
    "maestro_flows",
    "core_tools",
    "web_playwright",
    "mobile_tools",
    "android_uiautomator2",
    "ios_wda",
    "appium",
    "mcp_toolsets",
    "mcp_server",
    "terminal",
    "json_report",
    "junit_report",
    "github_report",
    "evidence",
    "html_report",
    "shard",
    "interactive_agent",
    "openai_agent",
    "browser_agent",
)
ENTRY_POINT_GROUP = "trailblaze"
AUTOLOAD_ENV = "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD"
TRACE_ENV = "TRAILBLAZE_TRACE_PLUGINS"


@dataclass(slots=True)
class PluginInfo:
    name: str
    kind: str  # "builtin" | "module" | "entrypoint"
    module: str
    version: str | None = None
    distribution: str | None = None


@dataclass(slots=True)
class Plugins:
    """The plugin manager plus what is known about each registered plugin."""

    pm: pluggy.PluginManager
    info: dict[str, PluginInfo] = field(default_factory=dict)

    @property
    def hook(self) -> pluggy.HookRelay:
        """Every hook, called by name: ``plugins.hook.trailblaze_run_start(run=run)``."""
        return self.pm.hook

    def builtin(self) -> frozenset[str]:
        """The names of the built-in plugins loaded (not blocked): what ships with trailblaze."""
        return frozenset(name for name, info in self.info.items() if info.kind == "builtin")

    def describe(self) -> list[dict[str, Any]]:
        """Name, version, kind and implemented hooks of every plugin (``trailblaze plugins``)."""
        rows = []
        for name, plugin in self.pm.list_name_plugin():
            if plugin is None:
                continue
            info = self.info.get(name) or PluginInfo(name, "object", type(plugin).__module__)
            callers = self.pm.get_hookcallers(plugin) or []
            rows.append(
                {
                    "name": name,
                    "version": info.version,
                    "kind": info.kind,
                    "module": info.module,
                    "distribution": info.distribution,
                    "hooks": sorted(c.name for c in callers),
                }
            )
        return rows


def get_plugin_manager(
    plugin_args: Iterable[str] = (),
    config_plugins: Iterable[str] = (),
    *,
    autoload: bool | None = None,
) -> Plugins:
    """Create and load the plugin manager. ``plugin_args`` are the ``-p`` values."""
    from trailblaze import __version__

    pm = pluggy.PluginManager("trailblaze")
    pm.add_hookspecs(hookspecs)
    pm.hook.trailblaze_addhooks.call_historic(kwargs={"pluginmanager": pm})
    plugins = Plugins(pm)
    requested: list[str] = []
    for arg in plugin_args:
        if arg.startswith("no:"):
            if arg[3:] in ESSENTIAL_PLUGINS:
                raise UsageError(f"plugin {arg[3:]!r} cannot be blocked: trailblaze needs it")
            pm.set_blocked(arg[3:])
        else:
            requested.append(arg)
    requested.extend(config_plugins)

    for name in (*ESSENTIAL_PLUGINS, *DEFAULT_PLUGINS):
        if pm.is_blocked(name):
            continue
        module = importlib.import_module(f"trailblaze.plugins.{name}")
        pm.register(module, name=name)
        plugins.info[name] = PluginInfo(name, "builtin", module.__name__, __version__, "trailblaze")

    for module_name in requested:
        if pm.is_blocked(module_name) or pm.has_plugin(module_name):
            continue
        module = _import_plugin(module_name, module_name)
        pm.register(module, name=module_name)
        plugins.info[module_name] = PluginInfo(module_name, "module", module.__name__)

    if autoload is None:
        autoload = not os.environ.get(AUTOLOAD_ENV)
    if autoload:
        _load_entry_points(plugins)

    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        name = pm.get_name(exc.plugin) or repr(exc.plugin)
        raise UsageError(f"plugin {name!r} implements a hook trailblaze does not have: {exc}") from None
    if os.environ.get(TRACE_ENV):
        _trace(pm)
    return plugins


def _load_entry_points(plugins: Plugins) -> None:
    pm = plugins.pm
    from importlib import metadata  # ~20 ms: only when entry points are loaded

    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if pm.is_blocked(ep.name) or pm.has_plugin(ep.name):
            continue
        try:
            plugin = ep.load()
        except Exception as exc:
            dist = f" (from {ep.dist.name})" if ep.dist else ""
            raise UsageError(
                f'error importing plugin "{ep.name}"{dist}: {type(exc).__name__}: {exc}; '
                f"fix or uninstall it, or skip it with -p no:{ep.name}"
            ) from exc
        try:
            pm.register(plugin, name=ep.name)
        except ValueError as exc:  # pluggy: plugin object already registered under another name
            raise UsageError(f'plugin "{ep.name}" cannot be registered: {exc}') from None
        plugins.info[ep.name] = PluginInfo(
            ep.name,
            "entrypoint",
            getattr(plugin, "__name__", type(plugin).__name__),
            ep.dist.version if ep.dist else None,
            ep.dist.name if ep.dist else None,
        )


def _import_plugin(module_name: str, label: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except Exception as exc:
        raise UsageError(f'error importing plugin "{label}": {type(exc).__name__}: {exc}') from exc


def _trace(pm: pluggy.PluginManager) -> None:
    def before(hook_name: str, hook_impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        names = ", ".join(impl.plugin_name for impl in hook_impls)
        print(f"[trailblaze trace] {hook_name}({', '.join(kwargs)}) -> [{names}]", file=sys.stderr)

    def after(outcome: Any, hook_name: str, hook_impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        exc = outcome.exception
        if exc is not None:
            print(f"[trailblaze trace] {hook_name} raised {type(exc).__name__}: {exc}", file=sys.stderr)

    pm.add_hookcall_monitoring(before, after)


def collect_options(plugins: Plugins) -> Parser:
    """What every plugin declares in ``trailblaze_addoption``: options, settings, sections."""
    from trailblaze.core.argparsing import Parser

    parser = Parser()
    plugins.hook.trailblaze_addoption.call_historic(kwargs={"parser": parser})
    return parser


def collect(plugins: Plugins, hook_name: str, registry: Registry[Any]) -> None:
    """Call the registration hook ``hook_name`` one plugin at a time (built-ins first) with a
    ``register`` callback that adds to ``registry`` in that plugin's name; a contribution the
    registry refuses is an error naming the plugin."""
    caller = getattr(plugins.pm.hook, hook_name)
    trace = bool(os.environ.get(TRACE_ENV))
    for impl in caller.get_hookimpls():
        if trace:
            print(f"[trailblaze trace] {hook_name}(register) -> [{impl.plugin_name}]", file=sys.stderr)
        register = _register_for(registry, impl.plugin_name)
        impl.function(**{name: register for name in impl.argnames})


def _register_for(registry: Registry[Any], plugin_name: str) -> Callable[[Any], Any]:
    def register(item: Any) -> Any:
        try:
            registry.add(item, plugin_name)
        except TypeError as exc:  # something the plugin declared wrongly
            raise UsageError(f"plugin {plugin_name!r} registered a bad {registry.kind}: {exc}") from None
        return item

    return register
