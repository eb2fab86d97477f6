"""Commands on the project: they take the options plugins declare for them (``--help`` shows them
under their groups' headings), ``-p`` and ``-c``. ``project_command`` makes one, for trailblaze's
own commands and for a plugin's (``trailblaze_register_commands``)."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Option, Parser

PLUGIN_HELP = "Load plugin module NAME; `-p no:NAME` blocks a plugin (built-in or installed)."
CONFIG_HELP = "Use this trailblaze.yaml instead of searching up from the working directory."


class ProjectCommand(click.Command):
    """A command that takes the options plugins declare for it, shown in ``--help`` under the
    headings of their groups."""

    #: the ``--help`` heading of each plugin option, by dest
    groups: dict[str, str]
    #: the protocol this command speaks on stdout (``mcp``: MCP), None when stdout is the
    #: reporters': plugins see it as ``config.stdout_protocol`` and keep off stdout
    stdout_protocol: str | None = None
    #: options whose value is optional (``--html [PATH]``), by name: the value given alone
    optional_values: dict[str, str]
    #: what the command's own arguments are, to tell them from a value meant for such an option
    operands: Operands

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
        attached = _attach_optional_values(
            args, getattr(self, "optional_values", {}), getattr(self, "operands", TRAIL_PATHS)
        )
        return super().parse_args(ctx, attached)

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


@dataclass(frozen=True, slots=True)
class Operands:
    """A command's own arguments, as an argument after an option whose value is optional may be
    one of them: what one is called in a message, and the endings that mark one."""

    #: ``a trail path``
    noun: str
    #: a path ending so is one of them, whether or not it exists (``.yaml``: a trail)
    suffixes: tuple[str, ...]


TRAIL_PATHS = Operands("a trail path", (".yaml", ".yml"))


def _attach_optional_values(
    args: Sequence[str], optional: dict[str, str], operands: Operands = TRAIL_PATHS
) -> list[str]:
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
            if _meant_as_value(following, operands):
                raise click.UsageError(
                    f"{arg} {following}: {arg} takes a value only as {arg}={following}; after a space, "
                    f"{following} would be {operands.noun}"
                )
            result.append(f"{arg}={optional[arg]}")
        else:
            result.append(arg)
        i += 1
    return result


class FiniteFloat(click.FloatRange):
    """A number within the range given that is finite. click's ``FLOAT`` takes ``nan`` and
    ``inf``, and ``nan`` passes every bound of a ``FloatRange`` (it compares false with all of
    them): ``mcp --idle-timeout nan`` got to the server and failed there (exit 4)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = 0.0  # not a number at all: click says so
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(value, param, ctx)


def _finite(kind: Any) -> Any:
    """``kind``, with a number that may have a fraction made finite (:class:`FiniteFloat`): a
    plugin's option of ``type=float`` or ``click.FloatRange`` refuses ``nan`` and ``inf`` as the
    built-in options do."""
    if kind is float or kind is click.FLOAT:
        return FiniteFloat()
    if isinstance(kind, click.FloatRange) and not isinstance(kind, FiniteFloat):
        return FiniteFloat(kind.min, kind.max, min_open=kind.min_open, max_open=kind.max_open, clamp=kind.clamp)
    return kind


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
            attrs["type"] = _finite(option.type)
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


def _meant_as_value(arg: str, operands: Operands) -> bool:
    """An argument that is none of the command's own, so after ``--html`` it can only be meant
    as its value: a page (``out.html``), or a path that neither exists nor ends as theirs do
    (a trail's ``.yaml``)."""
    import os

    if not arg or arg.startswith("-"):
        return False
    if arg.lower().endswith((".html", ".htm")):
        return True
    return not os.path.lexists(arg) and not arg.endswith(operands.suffixes)


def examples(*lines: str) -> str:
    """A command's ``--help`` epilog: example command lines, kept as written (``\\b``)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


def project_command(
    name: str | None = None, *, operands: Operands = TRAIL_PATHS, **attrs: Any
) -> Callable[[Callable[..., Any]], ProjectCommand]:
    """A command on the project: it takes ``-p``, ``-c`` and the options plugins declare for it
    (``commands=("NAME",)``), which arrive in its ``**options``; its body gets the project with
    :func:`trailblaze.cli.current_project`. ``operands`` says what its own arguments are (trail
    paths unless told), for the message of ``--html VALUE``. A plugin adds one in
    ``trailblaze_register_commands`` (``cli.add_command(command)``), as the built-in ``mcp``
    and ``merge-reports`` are added."""

    def decorate(fn: Callable[..., Any]) -> ProjectCommand:
        fn = click.option("-c", "--config", type=click.Path(dir_okay=False, path_type=Path), help=CONFIG_HELP)(fn)
        fn = click.option("-p", "plugin_args", multiple=True, metavar="NAME", help=PLUGIN_HELP)(fn)
        command = click.command(name, cls=ProjectCommand, **attrs)(fn)
        assert isinstance(command, ProjectCommand)
        command.operands = operands
        return command

    return decorate


def with_paths(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The trail files and folders ``run``, ``record`` and ``validate`` take."""
    from trailblaze.cli.completion import trail_paths

    return click.argument("paths", nargs=-1, type=click.Path(path_type=Path), shell_complete=trail_paths)(fn)
