"""What one ``trailblaze`` invocation holds: the plugins (built once, when the first command
needs them), what they declared, and the project a command works on."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser
    from trailblaze.pluginmanager import Plugins
    from trailblaze.runner.project import Project


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
        from trailblaze.project.projectfile import find_config

        return self.config_path or find_config()

    def plugins(self) -> Plugins:
        if self._plugins is None:
            from trailblaze.pluginmanager import get_plugin_manager
            from trailblaze.project.projectfile import plugins_listed_in

            path = self.config_file()
            listed = plugins_listed_in(path) if path is not None and path.exists() else []
            self._plugins = get_plugin_manager(self.plugin_args, listed)
        return self._plugins

    def parser(self) -> Parser:
        if self._parser is None:
            from trailblaze.pluginmanager import collect_options

            self._parser = collect_options(self.plugins())
        return self._parser

    def project(self, command: str, options: dict[str, Any], stdout_protocol: str | None = None) -> Project:
        if self._project is None:
            from trailblaze.runner.project import load_project

            self._project = load_project(
                self.config_file(),
                plugins=self.plugins(),
                parser=self.parser(),
                options=options,
                command=command,
                stdout_protocol=stdout_protocol,
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


def current_project(options: dict[str, Any]) -> Project:
    """The project of the command being run — for a plugin's command made with
    :func:`~trailblaze.cli.commands.project_command`: ``options`` are its ``**options`` (the
    values of the options plugins declared for it), read back with ``config.getoption``."""
    ctx = click.get_current_context()
    return _project(ctx.command.name or ctx.info_name or "", options)


def _project(command: str, options: dict[str, Any]) -> Project:
    """The project the running command works on (its own stdout protocol, if any, in the config)."""
    ctx = click.get_current_context()
    return _state(ctx).project(command, options, getattr(ctx.command, "stdout_protocol", None))
