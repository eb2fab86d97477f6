"""The ``trailblaze`` command line: thin over the library (``trailblaze.runner``).

Commands parse their options and call library functions; expected errors are
:class:`~trailblaze.errors.TrailblazeError` and become one readable message and an exit code at
the single boundary in :func:`main`. Plugins add commands through
``trailblaze_register_commands`` (loaded when a command name is not a built-in one, or for
``--help``), so ``trailblaze --version`` starts without loading any plugin.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from trailblaze import __version__
from trailblaze.errors import ErrorList, ExitCode, TrailblazeError, UsageError

if TYPE_CHECKING:
    from trailblaze.runner.project import Project

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class State:
    """Per-invocation state: the options that decide how the project is assembled."""

    def __init__(self, plugin_args: Sequence[str], config: Path | None) -> None:
        self.plugin_args = list(plugin_args)
        self.config_path = config
        self._project: Project | None = None

    def project(self, plugin_args: Sequence[str] = (), config: Path | None = None) -> Project:
        if self._project is None:
            from trailblaze.config import load_config
            from trailblaze.pluginmanager import get_plugin_manager
            from trailblaze.runner.project import Project

            cfg = load_config(config or self.config_path)
            plugins = get_plugin_manager([*self.plugin_args, *plugin_args], cfg.project.plugins)
            cfg.pluginmanager = plugins.pm
            self._project = Project(cfg, plugins)
            self._project.configure()
        return self._project

    def close(self) -> None:
        if self._project is not None:
            self._project.unconfigure()


def _state() -> State:
    state = click.get_current_context().find_object(State)
    assert state is not None
    return state


class TrailblazeGroup(click.Group):
    """A group that asks plugins for extra commands only when it has to."""

    _plugins_loaded = False
    _plugin_error: TrailblazeError | None = None

    def _load_plugin_commands(self, ctx: click.Context) -> None:
        """Ask plugins for commands. Only the plugin manager is built (not the whole project),
        so `trailblaze --help` stays as quick as `pytest --version`."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        from trailblaze.pluginmanager import get_plugin_manager
        from trailblaze.projectfile import find_config, plugins_listed_in

        params = ctx.find_root().params
        try:
            path = params.get("config") or find_config()
            plugins = get_plugin_manager(params.get("plugin_args") or (), plugins_listed_in(path) if path else ())
        except TrailblazeError as exc:
            self._plugin_error = exc  # the command that runs reports it
            return
        plugins.hook.trailblaze_register_commands(cli=self)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            self._load_plugin_commands(ctx)
            command = super().get_command(ctx, cmd_name)
        if command is None and self._plugin_error is not None:
            raise self._plugin_error  # the command may be the broken plugin's: say why it is missing
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands(ctx)
        return super().list_commands(ctx)


plugin_option = click.option(
    "-p",
    "plugin_args",
    multiple=True,
    metavar="NAME",
    help="Load plugin module NAME; `-p no:NAME` blocks a plugin (built-in or installed).",
)
config_option = click.option(
    "-c",
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Use this trailblaze.yaml instead of searching up from the working directory.",
)


@click.group(cls=TrailblazeGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="trailblaze", message="%(prog)s %(version)s")
@click.option(  # eager, so `trailblaze -p myplugin --help` lists the plugin's commands
    "-p",
    "plugin_args",
    multiple=True,
    metavar="NAME",
    is_eager=True,
    help="Load plugin module NAME; `-p no:NAME` blocks a plugin (built-in or installed).",
)
@click.option(
    "-c",
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    is_eager=True,
    help="Use this trailblaze.yaml instead of searching up from the working directory.",
)
@click.pass_context
def cli(ctx: click.Context, plugin_args: tuple[str, ...], config: Path | None) -> None:
    """Replay UI test trails deterministically on web, Android and iOS.

    Trails are YAML files of steps, each with a recording of tool calls. `trailblaze run`
    replays them; tools come from plugins and MCP servers.
    """
    state = ctx.find_object(State)
    if state is None:
        ctx.obj = State(plugin_args, config)
        ctx.call_on_close(ctx.obj.close)


def _project(plugin_args: Sequence[str] = (), config: Path | None = None) -> Project:
    return _state().project(plugin_args, config)


def _parse_args(values: Sequence[str]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{value!r}: expected NAME=VALUE", param_hint="--arg")
        parsed[name.strip()] = text
    return parsed


class Seconds(click.ParamType):
    """A number of seconds > 0: not nan, not inf (``--timeout nan`` compared false with every
    bound and let every wait end at once)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        import math

        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{value!r}: expected a number of seconds > 0", param, ctx)
        return seconds


SECONDS = Seconds()


def _paths(paths: Sequence[Path]) -> list[Path]:
    return [Path(p) for p in paths]


# -- run ---------------------------------------------------------------------------------------------


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--driver", metavar="KEY", help="Driver to run on (playwright-native/web, …). Default: from config.")
@click.option("--target", metavar="NAME", help="App target (trailblaze.yaml targets:) for trails that name none.")
@click.option(
    "--device",
    "devices",
    multiple=True,
    metavar="ID",
    help="Device to run on; repeat to run every trail on each device concurrently.",
)
@click.option("--all-devices", is_flag=True, help="Run on every device the driver can reach.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Sessions at once per device, on drivers that host several (web: browser contexts).",
)
@click.option(
    "--shard-split",
    type=click.IntRange(min=1),
    metavar="N",
    help="Use N devices and run each trail once, on whichever device is free.",
)
@click.option("--shard-all", type=click.IntRange(min=1), metavar="N", help="Use N devices and run every trail on each.")
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE", help="Value for a trail argument (repeatable).")
@click.option(
    "--timeout",
    type=SECONDS,
    metavar="SECONDS",
    help="How long actions and checks wait for the UI (default 10; a trail's config.timeout wins).",
)
@click.option("-x", "--fail-fast", is_flag=True, help="Stop after the first trail that fails or errors.")
@click.option("--headed", is_flag=True, help="Show the browser window (web).")
@click.option(
    "--base-url", metavar="URL", help="Base URL for '/path' navigation ('sample-app' serves the bundled app)."
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write results JSON here.")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path), help="Write JUnit XML here.")
@click.option(
    "--artifacts-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where snapshots go (default: a folder per run under .trailblaze/artifacts next to trailblaze.yaml).",
)
@click.option("-v", "--verbose", count=True, help="Show steps (-v) and tool calls (-vv).")
@click.option("-q", "--quiet", is_flag=True, help="Only failures and the summary.")
@click.option(
    "--self-heal", is_flag=True, help="When a recorded step fails, let the agent work it out from its text (healed)."
)
@click.option("--agent", metavar="NAME", help="Agent for --self-heal (default: from config; see `record`).")
@click.option("--save-recording", is_flag=True, help="With --self-heal: write healed steps' new recordings.")
@plugin_option
@config_option
def run(
    paths: tuple[Path, ...],
    driver: str | None,
    target: str | None,
    devices: tuple[str, ...],
    all_devices: bool,
    workers: int,
    shard_split: int | None,
    shard_all: int | None,
    args: tuple[str, ...],
    timeout: float | None,
    fail_fast: bool,
    headed: bool,
    base_url: str | None,
    json_path: Path | None,
    junit_path: Path | None,
    artifacts_dir: Path | None,
    verbose: int,
    quiet: bool,
    self_heal: bool,
    agent: str | None,
    save_recording: bool,
    plugin_args: tuple[str, ...],
    config: Path | None,
) -> int:
    """Replay trails (files, or folders searched for *.trail.yaml and trail.yaml).

    Exit codes: 0 all passed, 1 a trail failed, 2 infrastructure error (browser, device,
    server), 3 misuse (bad arguments, config or trail file).
    """
    from trailblaze.runner.run import run_trails
    from trailblaze.runner.session import RunOptions, new_artifacts_dir

    project = _project(plugin_args, config)
    if (agent or save_recording) and not self_heal:
        raise UsageError("--agent and --save-recording go with --self-heal")
    if self_heal:  # an unknown agent or bad LLM settings fail before a browser starts
        from trailblaze.agents.base import AgentSettings

        project.agents.resolve(project.default_agent_name(agent))(AgentSettings(project.config))
    given = _parse_args(args)
    options = RunOptions(
        paths=_paths(paths),
        driver=driver,
        target=target,
        devices=list(devices),
        all_devices=all_devices,
        workers=workers,
        shard_split=shard_split,
        shard_all=shard_all,
        arg_values={**{k: str(v) for k, v in project.config.project.args.items()}, **given},
        given_args=list(given),
        timeout=timeout,
        fail_fast=fail_fast,
        headed=headed,
        base_url=base_url,
        json_path=json_path,
        junit_path=junit_path,
        artifacts_dir=artifacts_dir or new_artifacts_dir(project.config.root),
        verbosity=-1 if quiet else verbose,
        self_heal=self_heal,
        agent=agent,
        save_recording=save_recording,
    )
    result = run_trails(project, options)
    return int(result.exit_code)


# -- record ------------------------------------------------------------------------------------------


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--driver", metavar="KEY", help="Driver to record on. Default: from config or the trail.")
@click.option("--target", metavar="NAME", help="App target (trailblaze.yaml targets:) for trails that name none.")
@click.option("--device", metavar="ID", help="Device to record on (the driver's default when omitted).")
@click.option("--agent", metavar="NAME", help="Who works out the steps: interactive, openai, browser, or a plugin's.")
@click.option("--rerecord", is_flag=True, help="Record again over existing recordings (replayed; the agent if broken).")
@click.option("--step", "step", metavar="N", help="Record only step N (a number, or 'trailhead').")
@click.option("--dry-run", is_flag=True, help="Print the change to the trail file as a diff; write nothing.")
@click.option("--resume", is_flag=True, help="Continue an interrupted recording from .trailblaze/record/.")
@click.option("--headed", is_flag=True, help="Show the browser window (web), e.g. to watch an LLM work.")
@click.option("--headless", is_flag=True, help="browser agent: no visible window (drive it over CDP, for scripts).")
@click.option(
    "--remote-debugging-port",
    type=click.IntRange(0, 65535),
    metavar="PORT",
    help="web: let other tools drive the browser over CDP on 127.0.0.1:PORT (0 picks a free port).",
)
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE", help="Value for a trail argument (repeatable).")
@click.option("--timeout", type=SECONDS, metavar="SECONDS", help="UI wait (as run).")
@click.option("--base-url", metavar="URL", help="Base URL for '/path' navigation (as run).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write results JSON here.")
@click.option("-v", "--verbose", count=True, help="Show steps (-v) and tool calls (-vv).")
@plugin_option
@config_option
def record(
    paths: tuple[Path, ...],
    driver: str | None,
    target: str | None,
    device: str | None,
    agent: str | None,
    rerecord: bool,
    step: str | None,
    dry_run: bool,
    resume: bool,
    headed: bool,
    headless: bool,
    remote_debugging_port: int | None,
    args: tuple[str, ...],
    timeout: float | None,
    base_url: str | None,
    json_path: Path | None,
    verbose: int,
    plugin_args: tuple[str, ...],
    config: Path | None,
) -> int:
    """Author trails: walk them on a device, let an agent work out the steps that have no
    recording, and write what it executed into the trail file.

    Steps that have a recording for the device are replayed to reach the next step. The
    file keeps its comments, order and other devices' recordings; it is written once, at the
    end, and Ctrl-C leaves it untouched (`--resume` continues). Exit codes as for `run`.
    """
    from trailblaze.runner.record import RecordOptions, record_trails
    from trailblaze.runner.session import RunOptions, new_artifacts_dir

    project = _project(plugin_args, config)
    agent_name = project.default_agent_name(agent)
    agent_class = project.agents.resolve(agent_name)
    given = _parse_args(args)
    options = RunOptions(
        paths=_paths(paths),
        driver=driver,
        target=target,
        devices=[device] if device else [],
        arg_values={**{k: str(v) for k, v in project.config.project.args.items()}, **given},
        given_args=list(given),
        timeout=timeout,
        headed=headed or (agent_class.shows_browser and not headless),
        base_url=base_url,
        json_path=json_path,
        artifacts_dir=new_artifacts_dir(project.config.root),
        verbosity=verbose,
        agent=agent_name,
        remote_debugging_port=remote_debugging_port,
    )
    recording = RecordOptions(agent=agent_name, rerecord=rerecord, step=step, dry_run=dry_run, resume=resume)
    result = record_trails(project, options, recording)
    return int(result.exit_code)


# -- validate ------------------------------------------------------------------------------------------


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--driver", metavar="KEY", help="Check only what this driver would replay.")
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE", help="Value for a trail argument.")
@plugin_option
@config_option
def validate(
    paths: tuple[Path, ...],
    driver: str | None,
    args: tuple[str, ...],
    plugin_args: tuple[str, ...],
    config: Path | None,
) -> int:
    """Check trail files without running them: every check `run` makes before a device opens
    (YAML, structure, drivers, tools and their arguments, recordings, --arg names, URLs), and
    the tools of the project's MCP servers, which are started to list them.

    Reports every problem in every file, then exits 3 if there were any (2 if an MCP server
    would not start).
    """
    from trailblaze.runner.session import RunOptions
    from trailblaze.runner.validate import validate as validate_trails

    project = _project(plugin_args, config)
    given = _parse_args(args)
    options = RunOptions(
        paths=_paths(paths),
        driver=driver,
        arg_values={**{k: str(v) for k, v in project.config.project.args.items()}, **given},
        given_args=list(given),
    )
    trails = validate_trails(project, options)
    noun = "trail" if len(trails) == 1 else "trails"
    click.echo(f"{len(trails)} {noun} valid")
    return 0


# -- mcp -------------------------------------------------------------------------------------------------------


@cli.command("mcp")
@click.option("--http", "use_http", is_flag=True, help="Serve Streamable HTTP at /mcp (default: stdio).")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to listen on.")
@click.option(
    "--port", default=8931, show_default=True, type=click.IntRange(0, 65535), help="HTTP: 0 picks a free one."
)
@click.option(
    "--token",
    envvar="TRAILBLAZE_MCP_TOKEN",
    metavar="TOKEN",
    help="HTTP: require `Authorization: Bearer TOKEN` (or set TRAILBLAZE_MCP_TOKEN).",
)
@click.option(
    "--allow-host", "allowed_hosts", multiple=True, metavar="NAME", help="HTTP: also accept this Host (repeatable)."
)
@click.option(
    "--mode",
    type=click.Choice(["MCP_CLIENT_AS_AGENT", "TRAILBLAZE_AS_AGENT"], case_sensitive=False),
    default="MCP_CLIENT_AS_AGENT",
    show_default=True,
    help="Who is the agent: the client's LLM, or trailblaze's own (step(objective), runPrompt).",
)
@click.option("--driver", metavar="KEY", help="Driver for device(action=CONNECT) and calls before a device is chosen.")
@click.option("--device", metavar="ID", help="Device for device(action=CONNECT) without a deviceId.")
@click.option("--target", metavar="NAME", help="App target (trailblaze.yaml targets:) the device sessions are for.")
@click.option("--headed", is_flag=True, help="Show the browser window (web).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS", help="UI wait (as run).")
@click.option("--base-url", metavar="URL", help="Base URL for '/path' navigation (as run).")
@plugin_option
@config_option
def mcp_command(
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    allowed_hosts: tuple[str, ...],
    mode: str,
    driver: str | None,
    device: str | None,
    target: str | None,
    headed: bool,
    timeout: float | None,
    base_url: str | None,
    plugin_args: tuple[str, ...],
    config: Path | None,
) -> int:
    """Serve MCP so any agent (Claude Code, Cursor, Goose…) can drive a device and save trails.

    The client connects a browser or phone with the `device` tool, acts through the same tools a
    trail records, and `trail(action=SAVE)` writes what it did as a trail file that `trailblaze
    run` replays without an LLM. stdio by default; `--http` serves Streamable HTTP on
    127.0.0.1 (`/mcp`, and `/ping` for health checks).
    """
    from trailblaze.mcpserver.http import is_loopback
    from trailblaze.mcpserver.serve import Transport, run
    from trailblaze.mcpserver.settings import Mode
    from trailblaze.mcpserver.state import Defaults

    if use_http and not is_loopback(host) and not token:
        raise UsageError(
            f"--host {host} lets other machines drive your devices: give --token (or TRAILBLAZE_MCP_TOKEN) too"
        )
    if token is not None and not token.strip():
        raise UsageError("--token is empty")
    project = _project(("no:terminal", *plugin_args), config)
    if driver:
        project.drivers.resolve(driver)
    workspace = project.workspace_for(project.config.trails_dir)
    if target and project.target_config(target, workspace) is None:
        known = sorted({*project.config.project.targets, *(workspace.targets if workspace else ())})
        raise UsageError(f"unknown target {target!r} (targets: {', '.join(known) or 'none are configured'})")
    defaults = Defaults(
        driver=driver,
        device=device,
        target=target or project.config.project.target,
        mode=Mode(mode.upper()),
        headed=headed,
        timeout=timeout,
        base_url=base_url,
    )
    transport = Transport(use_http, host, port, token, list(allowed_hosts))
    return run(project, defaults, transport)


# -- tools, plugins, devices --------------------------------------------------------------------------------


@cli.command()
@click.option("--driver", metavar="KEY", help="Only tools a session on this driver gets.")
@click.option("--target", metavar="NAME", help="With --driver: the app target the session is for.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list with the registry keys.")
@plugin_option
@config_option
def tools(
    driver: str | None, target: str | None, as_json: bool, plugin_args: tuple[str, ...], config: Path | None
) -> int:
    """List the tools trails can use, with their source and flags.

    With --driver, shows what a session on that driver gets: MCP servers that apply to it are
    spawned (or connected), listed and shut down again. Without it, MCP tools are not listed.
    """
    project = _project(plugin_args, config)
    workspace = project.workspace_for()
    registry = project.registry_for(workspace)
    if workspace is not None and workspace.problems:
        raise ErrorList(workspace.problems)
    if target and project.target_config(target, workspace) is None:
        raise UsageError(f"unknown target {target!r}")
    if driver:
        driver_class = project.drivers.resolve(driver)
        if project.has_dynamic_tools:
            import asyncio

            from trailblaze.runner.discovery import session_tools

            registry = asyncio.run(session_tools(project, driver_class.key, target, workspace))
        else:
            registry = registry.for_device(driver_class.key, driver_class.platform)
    elif project.has_dynamic_tools:
        click.echo("note: MCP servers are configured; their tools are listed per session: add --driver KEY", err=True)
    specs = sorted(registry, key=lambda s: (s.source, s.name))
    if as_json:
        import json

        click.echo(json.dumps([s.to_registry() for s in specs], indent=2))
        return 0
    rows = [_tool_row(spec) for spec in specs]
    from rich.console import Console

    console = Console(soft_wrap=False, markup=False, emoji=False)  # descriptions come from servers: text
    if console.is_terminal:
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, pad_edge=False)
        for column in ("tool", "source", "where", "flags", "description"):
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
    else:  # plain, one tool per line, for pipes and CI logs
        widths = [max(len(r[i]) for r in rows) for i in range(4)] if rows else [0] * 4
        for row in rows:
            click.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4])
    per_source: dict[str, int] = {}
    for spec in specs:
        per_source[spec.source] = per_source.get(spec.source, 0) + 1
    click.echo(f"{len(specs)} tools: " + ", ".join(f"{source} {n}" for source, n in per_source.items()))
    return 0


def _tool_row(spec: Any) -> tuple[str, str, str, str, str]:
    meta = spec.metadata
    flags = [
        name
        for name, on in (
            ("llm", meta.exposed_to_llm),
            ("rec", meta.recordable),
            ("deleg", meta.delegating),
            ("verif", meta.verification),
            ("host", meta.requires_host),
        )
        if on
    ]
    where = ", ".join(sorted(meta.drivers or meta.platforms or ["all"]))
    summary = spec.description.splitlines()[0] if spec.description else ""
    return spec.name, spec.source, where, " ".join(flags), summary


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@plugin_option
@config_option
def plugins(as_json: bool, plugin_args: tuple[str, ...], config: Path | None) -> int:
    """List loaded plugins: name, version and the hooks they implement."""
    rows = _project(plugin_args, config).plugins.describe()
    if as_json:
        import json

        click.echo(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        version = f" {row['version']}" if row["version"] else ""
        click.echo(f"{row['name']}{version} ({row['kind']}: {row['module']})")
        click.echo(f"    {', '.join(row['hooks']) or '(no hooks)'}")
    return 0


@cli.command()
@click.option("--driver", metavar="KEY", help="Only this driver's devices.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@plugin_option
@config_option
def devices(driver: str | None, as_json: bool, plugin_args: tuple[str, ...], config: Path | None) -> int:
    """List devices each driver can reach now."""
    import asyncio

    from trailblaze.driver import DriverOptions

    project = _project(plugin_args, config)
    classes = [project.drivers.resolve(driver)] if driver else project.drivers.drivers()
    configured = project.config.project.device
    extra = {"wda_urls": [configured]} if configured and "://" in configured else {}

    async def gather() -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for cls in classes:
            instance = cls(DriverOptions(browser=project.config.project.browser, extra=extra))
            try:
                found = await instance.devices()
            except TrailblazeError as exc:
                rows.append({"driver": cls.key, "platform": cls.platform, "error": str(exc)})
                continue
            rows.extend(
                {**d.to_dict(), "model": d.model, "classifiers": list(d.classifiers), "state": d.state} for d in found
            )
        return rows

    rows = asyncio.run(gather())
    found = {row["driver"] for row in rows}
    empty = [f"{cls.key}: {cls.no_devices}" for cls in classes if cls.key not in found]
    if as_json:
        import json

        click.echo(json.dumps(rows, indent=2))
        for line in empty:
            click.echo(f"note: {line}", err=True)
        return 0
    for line in empty:
        click.echo(line)
    for row in rows:
        if "error" in row:
            click.echo(f"{row['driver']}: {row['error']}")
        else:
            click.echo(
                f"{row['id']}  {row['platform']}  {row['driver']}  {row['width']}x{row['height']}  "
                f"{row['model']}  {row['state']}"
            )
    return 0


# -- init, sample-app --------------------------------------------------------------------------------------


@cli.command()
@click.argument("directory", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
def init(directory: Path, force: bool) -> int:
    """Create trailblaze.yaml and a trails/ folder with an example trail in DIRECTORY."""
    from trailblaze.scaffold import scaffold

    written = scaffold(directory, force=force)
    for path in written:
        click.echo(f"created {path}")
    click.echo(f"\nnext: cd {directory} && trailblaze run")
    return 0


@cli.command("sample-app")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--host", default="127.0.0.1", show_default=True)
def sample_app(port: int, host: str) -> int:
    """Serve the bundled sample web app (what `base_url: sample-app` runs against)."""
    from trailblaze.web.sample_server import SampleAppServer

    try:
        server = SampleAppServer(host, port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    click.echo(f"serving the sample app at {server.url}/ (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


# -- the boundary ----------------------------------------------------------------------------------------------


def _print_error(exc: TrailblazeError) -> None:
    err = sys.stderr
    prefix = click.style("error:", fg="red", bold=True) if err.isatty() else "error:"
    errors = exc.errors if isinstance(exc, ErrorList) else [exc]
    for error in errors:
        for i, line in enumerate(str(error).splitlines() or [""]):
            click.echo(f"{prefix} {line}" if i == 0 else f"       {line}", err=True)
    if len(errors) > 1:
        click.echo(f"{len(errors)} problems", err=True)


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(argv: Sequence[str] | None = None) -> int:
        try:
            return fn(argv)
        except TrailblazeError as exc:
            _print_error(exc)
            return int(exc.exit_code)

    return wrapper


@_guard
def _main(argv: Sequence[str] | None) -> int:
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="trailblaze", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return int(ExitCode.INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        return int(ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        return int(ExitCode.USAGE)
    return result if isinstance(result, int) else 0


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``trailblaze`` command."""
    sys.exit(_main(argv))
