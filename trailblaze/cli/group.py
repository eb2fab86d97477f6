"""The ``trailblaze`` group: trailblaze's own commands, and the commands plugins add through
``trailblaze_register_commands`` (``mcp``, ``sample-app``, ``merge-reports`` and ``show-report``
are built-in plugins' commands, added that way)."""

from __future__ import annotations

from pathlib import Path

import click

from trailblaze import __version__
from trailblaze.cli.commands import CONFIG_HELP, PLUGIN_HELP, ProjectCommand, _given, examples
from trailblaze.cli.state import State, _state
from trailblaze.core.errors import TrailblazeError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class TrailblazeGroup(click.Group):
    """A group whose commands get the options plugins declare, and that asks plugins for
    commands of their own — each only when it has to."""

    _commands_loaded = False
    _plugin_error: TrailblazeError | None = None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        state = _state(ctx)
        given_early = bool(args) and not self._commands_loaded and super().get_command(ctx, args[0]) is None
        if given_early:
            # a plugin's command (`mcp`): finding it builds the plugin manager, so the `-p`/`-c`
            # after its name must count before that
            _take_given(state, args[1:])
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, ProjectCommand):
            if not given_early:
                _take_given(state, rest)
            if name == "run":  # plugins start what the run will need while it is planned
                _start_early(state, args)
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


def _start_early(state: State, args: list[str]) -> None:
    from trailblaze.cli import early

    try:
        plugins = state.plugins()
    except TrailblazeError:
        return  # the command reports it
    early.start(plugins, args)


def _take_given(state: State, args: list[str]) -> None:
    """The plugins (``-p``) and trailblaze.yaml (``-c``) given after a command's name."""
    state.plugin_args += list(_given(args, "-p"))
    config = next(iter(_given(args, "-c", "--config")), None)
    if config is not None:
        state.config_path = Path(config)


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


def _add_own_commands(group: click.Group) -> None:
    from trailblaze.cli.doctor import doctor
    from trailblaze.cli.init import init
    from trailblaze.cli.listing import devices, plugins, schema, tools
    from trailblaze.cli.sdk import sdk
    from trailblaze.cli.trails import record, run, validate

    for command in (run, record, validate, tools, plugins, devices, schema, init, sdk, doctor):
        group.add_command(command)


_add_own_commands(cli)
