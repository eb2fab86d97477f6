"""The ``trailblaze`` command line: it parses, and calls the library (``trailblaze.runner``).

Options are not written here: the runner's own (:mod:`trailblaze.plugins.main`), the reporters'
(``--json``, ``--junit``, ``-v``) and the drivers' (``--headed``, ``--base-url``) are declared by
plugins in ``trailblaze_addoption`` and become click options when a command that takes them is
resolved — after the plugin manager is built from ``-p`` and ``-c`` (looked for anywhere on the
command line, as pytest does), before click parses. ``trailblaze --version`` and ``--help`` load
no plugin option, so they start as quickly as ``pytest --version``. Plugins add commands through
``trailblaze_register_commands``.

Expected errors are :class:`~trailblaze.errors.TrailblazeError` and become one readable message
and an exit code at the single boundary in :func:`main`; anything else is an internal error
(exit 4) whose traceback goes to a log file (:mod:`trailblaze.crashlog`).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from trailblaze import __version__
from trailblaze.errors import ErrorList, ExitCode, TrailblazeError
from trailblaze.limits import MAX_WORKERS

if TYPE_CHECKING:
    from trailblaze.argparsing import Option, Parser
    from trailblaze.pluginmanager import Plugins
    from trailblaze.runner.project import Project

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def examples(*lines: str) -> str:
    """A command's ``--help`` epilog: example command lines, kept as written (``\\b``)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


PLUGIN_HELP = "Load plugin module NAME; `-p no:NAME` blocks a plugin (built-in or installed)."
CONFIG_HELP = "Use this trailblaze.yaml instead of searching up from the working directory."


class State:
    """Per-invocation state: the plugins (built once, when the first command needs them), what
    they declared, and the project."""

    def __init__(self, plugin_args: Sequence[str], config: Path | None) -> None:
        self.plugin_args = list(plugin_args)
        self.config_path = config
        self._plugins: Plugins | None = None
        self._parser: Parser | None = None
        self._project: Project | None = None

    def config_file(self) -> Path | None:
        from trailblaze.projectfile import find_config

        return self.config_path or find_config()

    def plugins(self) -> Plugins:
        if self._plugins is None:
            from trailblaze.pluginmanager import get_plugin_manager
            from trailblaze.projectfile import plugins_listed_in

            path = self.config_file()
            listed = plugins_listed_in(path) if path is not None and path.exists() else []
            self._plugins = get_plugin_manager(self.plugin_args, listed)
        return self._plugins

    def parser(self) -> Parser:
        if self._parser is None:
            from trailblaze.pluginmanager import collect_options

            self._parser = collect_options(self.plugins())
        return self._parser

    def project(self, command: str, options: dict[str, Any]) -> Project:
        if self._project is None:
            from trailblaze.runner.project import load_project

            self._project = load_project(
                self.config_file(),
                plugins=self.plugins(),
                parser=self.parser(),
                options=options,
                command=command,
            )
        return self._project

    def close(self) -> None:
        if self._project is not None:
            self._project.unconfigure()


def _state(ctx: click.Context | None = None) -> State:
    ctx = ctx or click.get_current_context()
    state = ctx.find_object(State)
    if state is None:
        root = ctx.find_root()
        state = root.obj = State(root.params.get("plugin_args") or (), root.params.get("config"))
        root.call_on_close(state.close)
    return state


def _project(command: str, options: dict[str, Any]) -> Project:
    return _state().project(command, options)


# -- options from plugins ------------------------------------------------------------------------------------


class ProjectCommand(click.Command):
    """A command that takes the options plugins declare for it, shown in ``--help`` under the
    headings of their groups."""

    #: the ``--help`` heading of each plugin option, by dest
    groups: dict[str, str]
    #: plugins this command never loads (``mcp``: the terminal reporter, as stdout is the protocol's)
    blocked_plugins: tuple[str, ...] = ()
    #: options whose value is optional (``--html [PATH]``), by name: the value given alone
    optional_values: dict[str, str]

    def with_options(self, parser: Parser) -> ProjectCommand:
        """A copy of this command with the options ``parser`` holds for it."""
        command = copy.copy(self)
        options = parser.options_for(self.name or "")
        command.params = [*self.params, *(_click_option(o) for o in options)]
        headings = {g.name: g.description for g in parser.groups}
        command.groups = {o.dest: headings.get(o.group, o.group) for o in options}
        command.optional_values = {n: str(o.flag_value) for o in options if o.flag_value is not None for n in o.names}
        return command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _attach_optional_values(args, getattr(self, "optional_values", {})))

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        groups = getattr(self, "groups", {})
        sections: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            if not isinstance(param, click.Option):
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                sections.setdefault(groups.get(param.name or "", "Options"), []).append(record)
        for heading in ("Options", *(h for h in sections if h != "Options")):
            if sections.get(heading):
                with formatter.section(heading):
                    formatter.write_dl(sections[heading])


def _attach_optional_values(args: Sequence[str], optional: dict[str, str]) -> list[str]:
    """``--html`` given alone is ``--html=<its default>``: an option whose value is optional
    takes one only when attached (``--html=out.html``), as GNU getopt's optional arguments do,
    so the argument after it is never swallowed (``run --html trails/x.trail.yaml`` runs that
    trail, and does not write the report over it). An argument after it that can only be
    meant as its value (``--html out.html``) is a usage error that says how to write it."""
    result: list[str] = []
    items = list(args)
    i = 0
    while i < len(items):
        arg = items[i]
        if arg == "--":
            return result + items[i:]
        following = items[i + 1] if i + 1 < len(items) else ""
        if arg in optional and following == "-":  # stdout, never a trail: the option says what it makes of it
            result.append(f"{arg}=-")
            i += 1
        elif arg in optional:
            if _meant_as_value(following):
                raise click.UsageError(
                    f"{arg} {following}: {arg} takes a value only as {arg}={following}; after a space, "
                    f"{following} would be a trail path"
                )
            result.append(f"{arg}={optional[arg]}")
        else:
            result.append(arg)
        i += 1
    return result


def _click_option(option: Option) -> click.Option:
    attrs: dict[str, Any] = {"help": option.help.replace("%(default)s", str(option.default))}
    if option.metavar:
        attrs["metavar"] = option.metavar
    if option.action == "count":
        attrs.update(count=True, default=option.default or 0)
    elif option.is_flag:
        attrs.update(is_flag=True, default=option.action == "store_false", flag_value=option.action == "store_true")
    else:
        attrs.update(multiple=option.multiple, default=option.default)
        if option.flag_value is not None:
            attrs.update(is_flag=False, flag_value=option.flag_value)
        if option.choices is not None:
            attrs["type"] = click.Choice(option.choices)
        elif option.type is not None:
            attrs["type"] = option.type
    return click.Option([*option.names, option.dest], **attrs)


def _given(args: Sequence[str], short: str, long: str | None = None) -> Iterator[str]:
    """The values of ``-p``/``-c`` among a command's arguments, before click parses them (the
    plugins they name decide which options the command has)."""
    items = list(args)
    for i, arg in enumerate(items):
        if arg == "--":
            return
        if arg in (short, long):
            if i + 1 < len(items):
                yield items[i + 1]
        elif long is not None and arg.startswith(long + "="):
            yield arg[len(long) + 1 :]
        elif arg.startswith(short) and not arg.startswith("--") and len(arg) > 2:
            yield arg[2:].removeprefix("=")


def _meant_as_value(arg: str) -> bool:
    """An argument that is no trail path, so after ``--html`` it can only be meant as its value:
    a page (``out.html``), or a path that neither exists nor names a YAML file."""
    import os

    if not arg or arg.startswith("-"):
        return False
    if arg.lower().endswith((".html", ".htm")):
        return True
    return not os.path.lexists(arg) and not arg.endswith((".yaml", ".yml"))


class TrailblazeGroup(click.Group):
    """A group whose commands get the options plugins declare, and that asks plugins for
    commands of their own — each only when it has to."""

    _commands_loaded = False
    _plugin_error: TrailblazeError | None = None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, ProjectCommand):
            state = _state(ctx)
            state.plugin_args += [*(f"no:{blocked}" for blocked in command.blocked_plugins), *_given(rest, "-p")]
            config = next(iter(_given(rest, "-c", "--config")), None)
            if config is not None:
                state.config_path = Path(config)
            command = command.with_options(state.parser())
        return name, command, rest

    def _load_plugin_commands(self, ctx: click.Context) -> None:
        """Ask plugins for commands. Only the plugin manager is built (not what plugins declare
        nor the project), so `trailblaze --help` stays as quick as `pytest --version`."""
        if self._commands_loaded:
            return
        self._commands_loaded = True
        try:
            plugins = _state(ctx).plugins()
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


def project_command(name: str | None = None, **attrs: Any) -> Callable[[Callable[..., Any]], ProjectCommand]:
    """A command on the project: it takes plugins' options, ``-p`` and ``-c``."""

    def decorate(fn: Callable[..., Any]) -> ProjectCommand:
        fn = click.option("-c", "--config", type=click.Path(dir_okay=False, path_type=Path), help=CONFIG_HELP)(fn)
        fn = click.option("-p", "plugin_args", multiple=True, metavar="NAME", help=PLUGIN_HELP)(fn)
        command = cli.command(name, cls=ProjectCommand, **attrs)(fn)
        assert isinstance(command, ProjectCommand)
        return command

    return decorate


def with_paths(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The trail files and folders ``run``, ``record`` and ``validate`` take."""
    from trailblaze.completion import trail_paths

    return click.argument("paths", nargs=-1, type=click.Path(path_type=Path), shell_complete=trail_paths)(fn)


@click.group(
    cls=TrailblazeGroup,
    context_settings=CONTEXT_SETTINGS,
    epilog=examples("trailblaze init", "trailblaze run", "trailblaze tools web_click", "trailblaze run --help"),
)
@click.version_option(__version__, "-V", "--version", prog_name="trailblaze", message="%(prog)s %(version)s")
@click.option(  # eager, so `trailblaze -p myplugin --help` lists the plugin's commands
    "-p", "plugin_args", multiple=True, metavar="NAME", is_eager=True, help=PLUGIN_HELP
)
@click.option("-c", "--config", type=click.Path(dir_okay=False, path_type=Path), is_eager=True, help=CONFIG_HELP)
@click.pass_context
def cli(ctx: click.Context, plugin_args: tuple[str, ...], config: Path | None) -> None:
    """Replay UI test trails deterministically on web, Android and iOS.

    Trails are YAML files of steps, each with a recording of tool calls. `trailblaze run`
    replays them; tools come from plugins and MCP servers.
    """
    _state(ctx)


# -- run, record, validate -----------------------------------------------------------------------------


@project_command(
    epilog=examples(
        "trailblaze run",
        "trailblaze run trails/login.trail.yaml --headed",
        "trailblaze run -k checkout --workers 4 --html",
        "trailblaze run --base-url http://localhost:3000 --json results.json --junit results.xml",
    )
)
@with_paths
def run(paths: tuple[Path, ...], plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Replay trails (files, or folders searched for *.trail.yaml and trail.yaml).

    Exit codes: 0 all passed, 1 a trail failed, 2 infrastructure error (browser, device,
    server), 3 misuse (bad arguments, config or trail file), 4 internal error.
    """
    from trailblaze.runner.options import run_options
    from trailblaze.runner.run import run_trails

    project = _project("run", options)
    if project.config.getoption("list_only", False):
        from trailblaze.runner.plan import prepare
        from trailblaze.selection import print_listing

        # the plan as the run would have it, after --shard and plugins' trailblaze_modify_plan
        print_listing(prepare(project, run_options(project.config, paths, artifacts=False), select=True))
        return 0
    return int(run_trails(project, run_options(project.config, paths)).exit_code)


@project_command(
    epilog=examples(
        "trailblaze record trails/new-flow.trail.yaml --agent interactive",
        "trailblaze record trails/login.trail.yaml --step 3 --dry-run",
        "trailblaze record trails/login.trail.yaml --resume",
    )
)
@with_paths
def record(paths: tuple[Path, ...], plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Author trails: walk them on a device, let an agent work out the steps that have no
    recording, and write what it executed into the trail file.

    Steps that have a recording for the device are replayed to reach the next step. The
    file keeps its comments, order and other devices' recordings; it is written once, at the
    end, and Ctrl-C leaves it untouched (`--resume` continues). Exit codes as for `run`.
    """
    from trailblaze.runner.options import run_options
    from trailblaze.runner.record import record_options, record_trails

    project = _project("record", options)
    run_opts = run_options(project.config, paths)
    return int(record_trails(project, run_opts, record_options(project, run_opts)).exit_code)


@project_command(epilog=examples("trailblaze validate", "trailblaze validate trails/login.trail.yaml --driver android"))
@with_paths
def validate(paths: tuple[Path, ...], plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Check trail files without running them: every check `run` makes before a device opens
    (YAML, structure, drivers, tools and their arguments, recordings, --arg names, URLs), and
    the tools of the project's MCP servers, which are started to list them.

    Reports every problem in every file, then exits 3 if there were any (2 if an MCP server
    would not start).
    """
    from trailblaze.runner.options import run_options
    from trailblaze.runner.validate import validate as validate_trails

    project = _project("validate", options)
    trails = validate_trails(project, run_options(project.config, paths, artifacts=False))
    click.echo(f"{len(trails)} {'trail' if len(trails) == 1 else 'trails'} valid")
    return 0


# -- mcp -------------------------------------------------------------------------------------------------------


@project_command(
    "mcp",
    epilog=examples(
        "trailblaze mcp", 'trailblaze mcp --http --port 8931 --token "$TOKEN"', "trailblaze mcp --profile ALL"
    ),
)
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
    "--idle-timeout",
    default=1800,
    show_default=True,
    type=click.FloatRange(min=1, max=7 * 24 * 3600),
    metavar="SECONDS",
    help="HTTP: end a session (and close its device) after this long without a request.",
)
@click.option(
    "--max-sessions",
    default=8,
    show_default=True,
    type=click.IntRange(min=1, max=MAX_WORKERS),
    metavar="N",
    help="HTTP: at most N sessions hold a device (a browser, a phone) at once; one more is refused with a message.",
)
@click.option(
    "--mode",
    type=click.Choice(["MCP_CLIENT_AS_AGENT", "TRAILBLAZE_AS_AGENT"], case_sensitive=False),
    default="MCP_CLIENT_AS_AGENT",
    show_default=True,
    help="Who is the agent: the client's LLM, or trailblaze's own (step(objective), runPrompt).",
)
@click.option(
    "--profile",
    type=click.Choice(["MINIMAL", "DEFAULT", "STANDARD", "TESTING", "ALL"], case_sensitive=False),
    default="DEFAULT",
    show_default=True,
    help="The device tools listed at first (toolbox changes them): DEFAULT is CORE_INTERACTION + OBSERVATION.",
)
def mcp_command(
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    allowed_hosts: tuple[str, ...],
    idle_timeout: float,
    max_sessions: int,
    mode: str,
    profile: str,
    plugin_args: tuple[str, ...],
    config: Path | None,
    **options: Any,
) -> int:
    """Serve MCP so any agent (Claude Code, Cursor, Goose…) can drive a device and save trails.

    The client connects a browser or phone with the `device` tool, acts through the same tools a
    trail records, and `trail(action=SAVE)` writes what it did as a trail file that `trailblaze
    run` replays without an LLM. stdio by default; `--http` serves Streamable HTTP on
    127.0.0.1 (`/mcp`, and `/ping` for health checks).
    """
    from trailblaze.mcpserver.serve import Transport, check_transport, run
    from trailblaze.mcpserver.state import defaults_from

    transport = Transport(use_http, host, port, token, list(allowed_hosts), idle_timeout)
    check_transport(transport)
    project = _project("mcp", options)
    return run(project, defaults_from(project, mode, profile, max_sessions), transport)


mcp_command.blocked_plugins = ("terminal",)  # stdout belongs to the protocol


# -- tools, plugins, devices --------------------------------------------------------------------------------


@project_command(
    epilog=examples("trailblaze tools", "trailblaze tools web_click", "trailblaze tools --driver android --json")
)
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list with the registry keys.")
def tools(name: str | None, as_json: bool, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """List the tools trails can use, with their source and flags; with NAME, show that tool:
    its description, each argument (type, default, description) and an example call.

    With --driver, shows what a session on that driver gets: MCP servers that apply to it are
    spawned (or connected), listed and shut down again. Without it, MCP tools are not listed.
    """
    from trailblaze import display
    from trailblaze.runner.listing import list_tools

    project = _project("tools", options)
    listing = list_tools(project, project.config.getoption("driver"), project.config.getoption("target"))
    for note in listing.notes:
        click.echo(f"note: {note}", err=True)
    if name is not None:
        from trailblaze.tools.registry import ToolRegistry

        display.print_tool(ToolRegistry(listing.specs).require(name), as_json=as_json)
        return 0
    display.print_tools(listing.specs, as_json=as_json)
    return 0


@project_command(epilog=examples("trailblaze plugins", "trailblaze plugins --json"))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plugins(as_json: bool, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """List loaded plugins: name, version and the hooks they implement."""
    from trailblaze import display

    display.print_plugins(_project("plugins", options).plugins.describe(), as_json=as_json)
    return 0


@project_command(epilog=examples("trailblaze devices", "trailblaze devices --driver android --json"))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def devices(as_json: bool, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """List devices each driver can reach now."""
    import asyncio

    from trailblaze import display
    from trailblaze.runner.listing import list_devices

    project = _project("devices", options)
    listing = asyncio.run(list_devices(project, project.config.getoption("driver")))
    display.print_devices(listing.rows, listing.empty, as_json=as_json)
    return 0


@project_command(
    epilog=examples("trailblaze schema > trail.schema.json", "trailblaze schema config > trailblaze.schema.json")
)
@click.argument("kind", type=click.Choice(["trail", "config"]), default="trail")
def schema(kind: str, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Print a JSON Schema (draft 2020-12) for trail files (every tool's arguments included) or
    for trailblaze.yaml (plugins' settings and sections included), for editors:
    `# yaml-language-server: $schema=trail.schema.json` at the top of a file."""
    import json

    from trailblaze.schema import config_schema, trail_schema

    project = _project("schema", options)
    if kind == "config":
        document = config_schema(project.config.parser)
    else:
        document = trail_schema(project.registry_for(project.workspace_for()))
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))
    return 0


# -- init, sample-app --------------------------------------------------------------------------------------


@cli.command(epilog=examples("trailblaze init", "trailblaze init my-tests && cd my-tests && trailblaze run"))
@click.argument("directory", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
def init(directory: Path, force: bool) -> int:
    """Create trailblaze.yaml and a trails/ folder with an example trail in DIRECTORY, and
    have its .gitignore leave out what runs write (.trailblaze/, trailblaze-report/)."""
    from trailblaze.scaffold import ignore_what_runs_leave, scaffold

    for path in scaffold(directory, force=force):
        click.echo(f"created {path}")
    existed = (directory / ".gitignore").exists()
    ignored = ignore_what_runs_leave(directory)
    if ignored is not None:
        path, lines = ignored
        click.echo(f"added {', '.join(lines)} to {path}" if existed else f"created {path}")
    click.echo(f"\nnext: cd {directory} && trailblaze run")
    return 0


@cli.command("sample-app", epilog=examples("trailblaze sample-app --port 8000"))
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--host", default="127.0.0.1", show_default=True)
def sample_app(port: int, host: str) -> int:
    """Serve the bundled sample web app (what `base_url: sample-app` runs against)."""
    from trailblaze.web.sample_server import serve

    return serve(host, port, click.echo)


@cli.command(
    "merge-reports",
    epilog=examples("trailblaze merge-reports shard-*/results.json --json results.json --html report.html"),
)
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the merged JSON here."
)
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Write JUnit XML here.")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), help="Write an HTML report here.")
def merge_reports(inputs: tuple[Path, ...], json_path: Path | None, junit: Path | None, html: Path | None) -> int:
    """Merge the results of CI shards (`run --shard I/N --json F`) into one report, as if one
    run had run every trail. INPUTS are results JSON files or folders holding them (shards'
    downloaded artifacts). A trail several shards ran counts once (failed, then passed:
    flaky). Exits as that one run would have: 0, 1, 2 or 130; 3 for a missing or bad input.
    """
    from trailblaze.mergereports import claim_outputs, load_inputs, merge, write_reports

    claim_outputs(json_path=json_path, junit=junit, html=html)
    merged = merge(load_inputs(inputs))
    from trailblaze.limits import one_line

    for warning in merged.warnings:  # they quote the shards' JSON: one line each, whatever it holds
        click.echo(f"warning: {one_line(warning)}", err=True)
    write_reports(merged, json_path=json_path, junit=junit, html=html)
    summary = merged.document["summary"]
    counts = ", ".join(f"{summary[s]} {s}" for s in ("passed", "flaky", "failed", "error", "skipped") if summary[s])
    click.echo(f"merged {len(merged.shards)} report(s): {len(merged.document['trails'])} trails ({counts or 'none'})")
    return merged.exit_code


# -- the boundary ----------------------------------------------------------------------------------------------


def _print_error(exc: TrailblazeError) -> None:
    err = sys.stderr
    prefix = click.style("error:", fg="red", bold=True) if err.isatty() else "error:"
    errors = exc.shown if isinstance(exc, ErrorList) else [exc]
    from trailblaze.limits import inert_line, printable

    for error in errors:
        for i, line in enumerate(printable(str(error)).split("\n")):
            click.echo(f"{prefix} {line}" if i == 0 else inert_line(f"       {line}"), err=True)
    if isinstance(exc, ErrorList) and exc.more:
        click.echo(exc.more_line, err=True)
    total = len(exc.errors) if isinstance(exc, ErrorList) else 1
    if total > 1:
        click.echo(f"{total} problems", err=True)


def _internal_error(exc: Exception, argv: Sequence[str]) -> int:
    """A bug (ours or a plugin's): one line, the traceback in a log file, exit 4."""
    from trailblaze.crashlog import write_crash_log
    from trailblaze.projectfile import find_config

    config = find_config()
    log = write_crash_log(exc, argv, config.parent if config is not None else None)
    where = f"; the traceback is in {log}" if log is not None else ""
    from trailblaze.limits import printable

    click.echo(printable(f"internal error: {type(exc).__name__}: {exc}{where}"), err=True)
    return int(ExitCode.INTERNAL)


def _main(argv: Sequence[str] | None) -> int:
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        result = cli.main(args=args, prog_name="trailblaze", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return int(ExitCode.INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        return int(ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        return int(ExitCode.USAGE)
    except TrailblazeError as exc:
        _print_error(exc)
        return int(exc.exit_code)
    except Exception as exc:
        return _internal_error(exc, args)
    return result if isinstance(result, int) else 0


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``trailblaze`` command."""
    sys.exit(_main(argv))
