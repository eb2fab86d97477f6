"""Which MCP servers a session gets, resolved from trailblaze.yaml (seed 002, "Spawn scope").

No server spawns outside a resolved session context (target, driver). A session gets:

* the project's ``mcp_servers:``;
* the active target's ``mcp_servers:`` (the target named by ``target:``);
* the ``mcp_servers:`` of each toolset that applies: listed in the root's or the active
  target's ``tool_sets:``, or ``always_enabled``, and whose ``platforms:``/``drivers:`` (when
  given) include the session's.

Declarations with the same spawn tuple — command, arguments, environment and working directory
(or URL and headers for HTTP) — share one server per session.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from trailblaze.core.errors import InfrastructureError, Location, UsageError
from trailblaze.device.drivernames import DriverContext

if TYPE_CHECKING:
    from trailblaze.mcpclient.settings import McpServerConfig
    from trailblaze.project.config import Config, ToolsetConfig

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PY = (".py",)
_JS = (".js", ".mjs", ".cjs")
_TS = (".ts", ".mts")


@dataclass(frozen=True, slots=True)
class ServerDecl:
    """One ``mcp_servers:`` entry, resolved: what to spawn or where to connect, and where it
    was declared (for messages and for the toolset overlays that apply to its tools)."""

    label: str
    location: Location
    origin: str
    kind: Literal["stdio", "http"]
    timeout_s: float
    startup_timeout_s: float
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    #: ``script:`` entries are written for Trailblaze and get the ``_trailblazeContext`` envelope
    aware: bool = False
    #: TRAILBLAZE_TOOLSET_FILE: the script, else the file that declares the server
    toolset_file: str = ""
    toolset: str | None = None
    #: ``multi_device: http``: a run with several sessions at once shares one server over HTTP
    multi_device: Literal["http"] | None = None
    toolset_config: ToolsetConfig | None = field(default=None, compare=False)
    #: what sets ``timeout_s``, as a message about a call that ran out of it names it
    timeout_from: str = field(default="timeout_s in trailblaze.yaml", compare=False)

    @property
    def spawn_key(self) -> tuple[object, ...]:
        if self.kind == "http":
            return ("http", self.url, self.headers)
        return ("stdio", self.command, self.args, self.env, self.cwd)

    @property
    def source(self) -> str:
        """How the registry names this source (``trailblaze tools`` shows it)."""
        return f"mcp:{self.label}"

    @property
    def where(self) -> str:
        return f"{self.label} ({self.origin}, {self.location})"


class _Configured:
    """Stands for "the target trailblaze.yaml names" (``target:``)."""


_CONFIGURED = _Configured()


def _target_name(config: Config, target: str | _Configured | None) -> str | None:
    return config.project.target if isinstance(target, _Configured) else target


def active_toolsets(config: Config, driver: DriverContext, target: str | _Configured | None = _CONFIGURED) -> list[str]:
    """Toolsets that apply to a session on ``driver`` for ``target``, in declaration order."""
    project = config.project
    names: list[str] = list(project.tool_sets)
    target_name = _target_name(config, target)
    target_config = project.targets.get(target_name) if target_name else None
    if target_config is not None:
        names.extend(target_config.tool_sets)
        block = target_config.platform_block(driver.platform, driver.key, driver.expand)
        if block is not None:
            names.extend(block.tool_sets)
    names.extend(name for name, ts in project.toolsets.items() if ts.always_enabled)
    seen: list[str] = []
    for name in names:
        toolset = project.toolsets.get(name)
        if name in seen or toolset is None:
            continue
        if driver.matches(toolset.drivers, toolset.platforms):
            seen.append(name)
    return seen


def root_servers(config: Config) -> list[McpServerConfig] | dict[str, McpServerConfig]:
    """``mcp_servers:`` at the root of trailblaze.yaml (the ``mcp_toolsets`` plugin's key)."""
    try:
        servers: list[McpServerConfig] | dict[str, McpServerConfig] = config.getini("mcp_servers")
    except ValueError:  # the plugin is blocked: its key is not part of the file
        return []
    return servers


def session_declarations(
    config: Config,
    driver: DriverContext,
    environ: Mapping[str, str] | None = None,
    target: str | _Configured | None = _CONFIGURED,
) -> list[ServerDecl]:
    """Every server a session on ``driver`` for ``target`` gets, resolved (paths, runtimes,
    ``${VAR}``). ``target`` defaults to the one trailblaze.yaml names."""
    env = os.environ if environ is None else environ
    project = config.project
    from trailblaze.mcpclient.settings import server_entries, servers_in

    found: list[tuple[McpServerConfig, tuple[str | int, ...], str, str | None]] = []
    found += [(s, ("mcp_servers", i), "project", None) for i, s in server_entries(root_servers(config))]
    target_name = _target_name(config, target)
    if target_name and target_name in project.targets:
        found += [
            (s, ("targets", target_name, "mcp_servers", i), f"target {target_name}", None)
            for i, s in server_entries(servers_in(project.targets[target_name]))
        ]
    for name in active_toolsets(config, driver, target_name):
        servers = servers_in(project.toolsets[name])
        found += [
            (s, ("toolsets", name, "mcp_servers", i), f"toolset {name}", name) for i, s in server_entries(servers)
        ]
    decls: list[ServerDecl] = []
    labels: dict[str, int] = {}
    for server, key_path, origin, toolset_name in found:
        decl = resolve(server, config, key_path, origin, toolset_name, env)
        count = labels.get(decl.label, 0) + 1
        labels[decl.label] = count
        if count > 1 and server.name is None:
            decl = _relabel(decl, f"{decl.label}#{count}")
        decls.append(decl)
    return decls


def _relabel(decl: ServerDecl, label: str) -> ServerDecl:
    return replace(decl, label=label)


def resolve(
    server: McpServerConfig,
    config: Config,
    key_path: tuple[str | int, ...],
    origin: str,
    toolset: str | None,
    environ: Mapping[str, str],
) -> ServerDecl:
    """Resolve one entry against the folder of the file that declares it."""
    location = config.location(key_path)
    base = config.root
    declared = ServerDecl(
        label=server.name or "",
        location=location,
        origin=origin,
        kind=server.kind,
        timeout_s=server.timeout_s,
        startup_timeout_s=server.startup_timeout_s,
        toolset_file=str(config.path.resolve()) if config.path else str(base),
        toolset=toolset,
        multi_device=server.multi_device,
        toolset_config=config.project.toolsets.get(toolset) if toolset else None,
    )
    if server.url:
        url = _expand(server.url, "url", location, environ)
        headers = expand_values(server.headers, "headers", location, environ)
        return replace(declared, label=server.name or _url_label(url), url=url, headers=tuple(sorted(headers.items())))
    env = tuple(sorted(expand_values(server.env, "env", location, environ).items()))
    if server.script:
        script = Path(server.script).expanduser()
        script = script if script.is_absolute() else (base / script).resolve()
        if not script.is_file():
            raise UsageError(f"MCP server script not found: {script}", location)
        command, args = script_command(script, location)
        return replace(
            declared,
            label=server.name or _script_label(script),
            command=command,
            args=(*args, *server.args),
            env=env,
            cwd=str(script.parent),
            aware=True,
            toolset_file=str(script),
        )
    assert server.command is not None
    command = server.command
    if "/" in command and not Path(command).is_absolute():
        command = str((base / command).resolve())
    cwd = str(base.resolve())
    if server.working_dir:
        folder = Path(server.working_dir).expanduser()
        folder = folder if folder.is_absolute() else (base / folder).resolve()
        if not folder.is_dir():
            raise UsageError(f"working_dir: folder not found: {folder}", location)
        cwd = str(folder)
    label = server.name or _command_label(server.command, server.args)
    return replace(declared, label=label, command=command, args=tuple(server.args), env=env, cwd=cwd)


def script_command(script: Path, location: Location | None = None) -> tuple[str, list[str]]:
    """The interpreter for a ``script:``: .py → this Python; .js → node with the SDK's module hooks
    (so ``@trailblaze/scripting`` needs no ``npm install``), or plain node; .ts → bun, else node with
    the SDK's hooks, else a tsx installed next to it."""
    from trailblaze.project.scriptedtools import node_with_sdk

    name = script.name
    if name.endswith(_PY):
        return sys.executable, [str(script)]
    if name.endswith(_JS):
        try:
            node, before = node_with_sdk()
        except InfrastructureError:
            node, before = shutil.which("node") or "", []  # a server that does not import the SDK still runs
        if not node:
            raise InfrastructureError(
                f"{script}: no `node` on PATH to run a JavaScript MCP server: install Node.js 20.6 or later "
                "(https://nodejs.org); `trailblaze doctor` checks the install",
                location,
            )
        return node, [*before, str(script)]
    if name.endswith(_TS):
        bun = shutil.which("bun")
        if bun is not None:
            return bun, ["run", str(script)]
        try:
            node, before = node_with_sdk()
            return node, [*before, str(script)]
        except InfrastructureError as exc:
            why = exc.message
        tsx = _local_bin(script.parent, "tsx") or shutil.which("tsx")
        if tsx is not None:
            return tsx, [str(script)]
        raise InfrastructureError(f"{script}: cannot run TypeScript: {why}", location)
    raise UsageError(f"{script}: script: must be a .py, .ts or .js file", location)


def _local_bin(folder: Path, name: str) -> str | None:
    for parent in (folder, *folder.parents):
        candidate = parent / "node_modules" / ".bin" / name
        if candidate.is_file():
            return str(candidate)
    return None


def _expand(value: str, what: str, location: Location, environ: Mapping[str, str]) -> str:
    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise UsageError(f"{what}: ${{{name}}} is not set in trailblaze's environment", location)
        return environ[name]

    return _VAR.sub(sub, value)


def expand_values(
    values: Mapping[str, str], what: str, location: Location, environ: Mapping[str, str]
) -> dict[str, str]:
    return {k: _expand(v, f"{what}.{k}", location, environ) for k, v in values.items()}


_GENERIC_STEMS = frozenset({"server", "index", "main", "__main__", "app", "mcp", "tools"})


def _script_label(script: Path) -> str:
    """``tools/bank.py`` → ``bank``; a generic name keeps its folder: ``bank/server.py`` → ``bank/server``."""
    stem = script.name.split(".", 1)[0]
    return f"{script.parent.name}/{stem}" if stem in _GENERIC_STEMS and script.parent.name else stem


def _url_label(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.netloc or url


def _command_label(command: str, args: Iterable[str]) -> str:
    words = [Path(command).name]
    positional = [a for a in args if not a.startswith("-")]
    if positional:
        words.append(
            Path(positional[0]).name if "/" in positional[0] and not positional[0].startswith("@") else positional[0]
        )
    return " ".join(words)


def group_by_spawn(decls: Iterable[ServerDecl]) -> list[list[ServerDecl]]:
    """Declarations sharing a spawn tuple, grouped; the first of each group is the one spawned."""
    groups: dict[tuple[object, ...], list[ServerDecl]] = {}
    for decl in decls:
        groups.setdefault(decl.spawn_key, []).append(decl)
    return list(groups.values())
