"""What plugins declare in ``trailblaze_addoption(parser)``: command-line options, settings and
sections of ``trailblaze.yaml``.

The names are pytest's, so a plugin author already knows them::

    @trailblaze.hookimpl
    def trailblaze_addoption(parser):
        group = parser.getgroup("reporting")
        group.addoption("--html", metavar="FILE", type=pathlib.Path, help="Write an HTML report here.")
        parser.addini("html_title", help="Title of the HTML report.", type=str, default="trailblaze")
        parser.add_section("html", HtmlSettings)

and reads them back in ``trailblaze_configure(config)`` with ``config.getoption("html")``,
``config.getini("html_title")`` and ``config.section("html")``.

Options apply to ``trailblaze run`` and ``trailblaze record`` unless ``commands=`` names others
(``trailblaze mcp`` takes ``--headed``, say). Their values are not parsed here: the command line
(click) turns each :class:`Option` into a parameter of the commands it applies to, so this module
stays free of click and cheap to import.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.core.errors import UsageError

#: the commands an option applies to when its plugin does not say
DEFAULT_COMMANDS = frozenset({"run", "record"})
#: ``action=`` values, as argparse names them
ACTIONS = frozenset({"store", "store_true", "store_false", "count", "append"})
_ATTRIBUTES = frozenset(
    {"dest", "help", "default", "metavar", "type", "action", "is_flag", "multiple", "choices", "commands", "flag_value"}
)
NOTSET: Any = object()


@dataclass(frozen=True, slots=True)
class Option:
    """One command-line option a plugin declared."""

    names: tuple[str, ...]
    dest: str
    action: str = "store"
    help: str = ""
    default: Any = None
    metavar: str | None = None
    type: Any = None
    choices: tuple[str, ...] | None = None
    commands: frozenset[str] = DEFAULT_COMMANDS
    #: the value of an option given without one (``--html`` alone: the default report path);
    #: None: the option needs a value
    flag_value: Any = None
    group: str = "general"
    #: the module that declared it (named in conflicts)
    owner: str = ""

    @property
    def is_flag(self) -> bool:
        return self.action in ("store_true", "store_false")

    @property
    def multiple(self) -> bool:
        return self.action == "append"

    def value_when_absent(self) -> Any:
        """What ``config.getoption`` returns when the option was not given (or the command does
        not take it): its default, else False for a flag, 0 for a count, [] for a list."""
        if self.default is not None:
            return list(self.default) if self.multiple else self.default
        return {"store_true": False, "store_false": True, "count": 0, "append": []}.get(self.action)


#: the core's blocks a plugin may add a key to (``parser.addini(…, within=…)``): each entry of
#: ``targets:`` (an app under test) and of ``toolsets:`` (a named set of tools)
BLOCKS = ("targets", "toolsets")


@dataclass(frozen=True, slots=True)
class Setting:
    """A key of ``trailblaze.yaml`` holding one value (``parser.addini``): at the top level, or
    in each block of one of the core's mappings (``within="targets"``)."""

    name: str
    help: str
    #: what pydantic validates the value as (``str``, ``bool``, ``float | None``, a model…)
    type: Any
    default: Any
    owner: str = ""
    #: the core's mapping whose every entry takes this key (:data:`BLOCKS`); None: the top level
    within: str | None = None
    #: the key brings tools of its own (MCP servers): they may put themselves in a toolset by
    #: name, so a ``tool_sets:`` name no file defines is not an error where it is set, and a
    #: toolset that sets it filters those tools rather than listing tools of its own
    brings_tools: bool = False


@dataclass(frozen=True, slots=True)
class Section:
    """A top-level mapping of ``trailblaze.yaml`` validated by a plugin's pydantic model: the
    model itself, or where it is (``"package.module:Model"``), imported on first use of
    :attr:`model` — when a file sets the section, ``config.section(name)`` is read or the schema
    is built — so a command whose project leaves the section out does not import it."""

    name: str
    #: the model, or ``"package.module:Model"``
    declared: type[Any] | str
    help: str = ""
    owner: str = ""

    @property
    def model(self) -> type[Any]:
        """The pydantic model (imported and checked now when it was declared by name)."""
        if isinstance(self.declared, str):
            return _section_model(self.name, _import_model(self.declared, self.name, self.owner), self.owner)
        return self.declared

    @property
    def deferred(self) -> bool:
        """The model was declared by name (:attr:`model` imports it)."""
        return isinstance(self.declared, str)


@dataclass(frozen=True, slots=True)
class NamedUrl:
    """A name a ``base_url`` may be instead of a URL or a folder (``parser.add_named_url``)."""

    name: str
    help: str
    owner: str = ""


@dataclass(slots=True)
class OptionGroup:
    """Options shown together under a heading in ``--help`` (pytest's ``OptionGroup``)."""

    name: str
    description: str
    parser: Parser
    options: list[Option] = field(default_factory=list)

    def addoption(self, *names: str, **attrs: Any) -> Option:
        """Declare an option, e.g. ``addoption("--junit", metavar="FILE", help=…)``.

        ``names`` are ``--long`` and ``-s`` forms. Attributes: ``dest`` (default: the first long
        name, dashes made underscores), ``help``, ``default``, ``metavar``, ``type`` (a callable
        such as ``int`` or ``pathlib.Path``, or a ``click.ParamType``), ``action`` (``store``,
        ``store_true``, ``store_false``, ``count``, ``append``) or its click spellings
        ``is_flag=True`` / ``multiple=True``, ``choices``, ``commands`` (default ``run`` and
        ``record``) and ``flag_value``: the value of an option given without one (``--html``
        alone, ``--html=PATH`` for another), as click's ``flag_value``. A name another plugin
        declared for the same command is an error."""
        option = _make_option(names, attrs, group=self.name, owner=_caller_module())
        self.parser.add(option)
        self.options.append(option)
        return option


class Parser:
    """Collects what ``trailblaze_addoption`` implementations declare."""

    def __init__(self) -> None:
        self._groups: dict[str, OptionGroup] = {}
        self._options: list[Option] = []
        self._settings: dict[str, Setting] = {}
        self._sections: dict[str, Section] = {}
        self._block_settings: dict[str, dict[str, Setting]] = {block: {} for block in BLOCKS}
        self._named_urls: dict[str, NamedUrl] = {}
        self._trailmaps: dict[str, Path] = {}
        self._trailmap_owners: dict[str, str] = {}

    # -- declaring ---------------------------------------------------------------------------------

    def getgroup(self, name: str, description: str = "") -> OptionGroup:
        """The group ``name``, created on first use (its description is the ``--help`` heading)."""
        group = self._groups.get(name)
        if group is None:
            group = self._groups[name] = OptionGroup(name, description or name, self)
        elif description and group.description == group.name:
            group.description = description
        return group

    def addoption(self, *names: str, **attrs: Any) -> Option:
        """Declare an option in the ``general`` group (see :meth:`OptionGroup.addoption`)."""
        option = _make_option(names, attrs, group="general", owner=_caller_module())
        self.add(option)
        self.getgroup("general").options.append(option)
        return option

    def addini(
        self,
        name: str,
        help: str,
        type: Any = str,
        default: Any = None,
        *,
        within: str | None = None,
        brings_tools: bool = False,
    ) -> Setting:
        """Declare a top-level setting of ``trailblaze.yaml`` (``browser: /usr/bin/chromium``).
        ``type`` is what pydantic validates the value as; a wrong value is an error with its
        ``file:line:col``. Read it with ``config.getini(name)``.

        ``within="targets"`` (or ``"toolsets"``) declares the key in every entry of that
        mapping instead (``targets: {shop: {name: …}}``): read it on the entry,
        ``config.project.targets["shop"].name``. ``brings_tools=True`` says the key brings
        tools of its own that may fill a toolset by name (:attr:`Setting.brings_tools`)."""
        owner = _caller_module()
        if within is not None and within not in BLOCKS:
            raise TypeError(f"addini({name!r}, within={within!r}) from {owner}: within is one of {', '.join(BLOCKS)}")
        setting = Setting(name, help, type, default, owner, within, brings_tools)
        if within is None:
            self._claim(name, owner)
            self._settings[name] = setting
            return setting
        previous = self._block_settings[within].get(name)
        if previous is not None:
            raise UsageError(
                f"trailblaze.yaml key {within}.*.{name} is declared twice: "
                f"by {previous.owner or '?'} and by {owner or '?'}"
            )
        self._block_settings[within][name] = setting
        return setting

    def add_named_url(self, name: str, help: str) -> NamedUrl:
        """Declare a name a ``base_url`` may be instead of a URL or a folder (the web driver's
        ``sample-app``, which serves its bundled app): ``trailblaze.yaml`` takes it wherever a
        ``base_url`` goes, and ``config.base_url(name)`` leaves it as it is for the driver."""
        owner = _caller_module()
        previous = self._named_urls.get(name)
        if previous is not None:
            raise UsageError(
                f"base_url name {name!r} is declared twice: by {previous.owner or '?'} and by {owner or '?'}"
            )
        named = self._named_urls[name] = NamedUrl(name, help, owner)
        return named

    def add_trailmap(self, folder: Path) -> None:
        """Declare a trailmap the plugin ships (upstream's layout: ``trailmap.yaml``, ``tools/``,
        ``toolsets/``), named by its folder: its toolsets are names ``tool_sets:`` may use, and
        an upstream workspace may depend on it (``dependencies:``) or name it as a target. Its
        tool files are the plugin's to register (``trailblaze_register_tools``)."""
        owner = _caller_module()
        name = folder.name
        previous = self._trailmap_owners.get(name)
        if previous is not None and self._trailmaps[name] != folder:
            raise UsageError(f"trailmap {name!r} is declared twice: by {previous or '?'} and by {owner or '?'}")
        self._trailmaps[name] = folder
        self._trailmap_owners[name] = owner

    def add_section(self, name: str, model: type[Any] | str, help: str = "") -> Section:
        """Declare a section of ``trailblaze.yaml``: the mapping under ``name:`` is validated by
        ``model`` (a pydantic model that forbids unknown keys). Read it with
        ``config.section(name)``: the validated model, or the model's defaults when the file
        has no such key.

        ``model`` may be where the model is, ``"package.module:Model"``, instead of the model:
        its module is then imported only when it is needed (a file that sets the section,
        ``config.section(name)``, ``trailblaze schema``), so every command that does not use
        the section starts without it."""
        owner = _caller_module()
        if isinstance(model, str):
            module, _, attribute = model.partition(":")
            if not (module and attribute) or not all(part.isidentifier() for part in (*module.split("."), attribute)):
                raise TypeError(
                    f"add_section({name!r}, {model!r}) from {owner}: give the model, or where it is as "
                    f"'package.module:Model'"
                )
        else:
            _section_model(name, model, owner)
        self._claim(name, owner)
        section = self._sections[name] = Section(name, model, help, owner)
        return section

    def add(self, option: Option) -> None:
        """Register ``option``; a name or dest another option has for one of its commands is an error."""
        for other in self._options:
            if not option.commands & other.commands:
                continue
            clash = set(option.names) & set(other.names)
            if clash or option.dest == other.dest:
                what = ", ".join(sorted(clash)) if clash else f"dest {option.dest!r}"
                raise UsageError(
                    f"option {what} is declared twice: by {other.owner or '?'} and by {option.owner or '?'} "
                    f"(block one of them with -p no:NAME)"
                )
        self._options.append(option)

    def _claim(self, key: str, owner: str) -> None:
        previous = self._sections.get(key) or self._settings.get(key)
        if previous is not None:
            raise UsageError(
                f"trailblaze.yaml key {key!r} is declared twice: by {previous.owner or '?'} and by {owner or '?'}"
            )

    # -- reading ------------------------------------------------------------------------------------

    @property
    def options(self) -> list[Option]:
        return list(self._options)

    @property
    def groups(self) -> list[OptionGroup]:
        return list(self._groups.values())

    @property
    def settings(self) -> dict[str, Setting]:
        return dict(self._settings)

    @property
    def sections(self) -> dict[str, Section]:
        return dict(self._sections)

    def block_settings(self, within: str) -> dict[str, Setting]:
        """The keys plugins declared in each entry of the core's mapping ``within``."""
        return dict(self._block_settings[within])

    @property
    def named_urls(self) -> dict[str, NamedUrl]:
        return dict(self._named_urls)

    @property
    def trailmaps(self) -> dict[str, Path]:
        """The trailmaps plugins ship (``add_trailmap``), by name."""
        return dict(self._trailmaps)

    def options_for(self, command: str) -> list[Option]:
        return [o for o in self._options if command in o.commands]

    def commands(self) -> frozenset[str]:
        """Every command some option applies to."""
        return frozenset(c for o in self._options for c in o.commands)

    def defaults(self) -> dict[str, Any]:
        """Every option's value when it is not given, by dest."""
        return {o.dest: o.value_when_absent() for o in self._options}

    def find(self, name: str) -> Option | None:
        """The option with this dest or option string (``"base_url"`` or ``"--base-url"``)."""
        return next((o for o in self._options if name == o.dest or name in o.names), None)


def _make_option(names: Iterable[str], attrs: dict[str, Any], *, group: str, owner: str) -> Option:
    names = tuple(names)
    unknown = sorted(set(attrs) - _ATTRIBUTES)
    if unknown:
        raise TypeError(f"addoption{names} from {owner}: unknown attribute(s) {', '.join(unknown)}")
    if not names:
        raise TypeError(f"addoption() from {owner}: give at least one option name")
    for name in names:
        if not (name.startswith("--") and len(name) > 2) and not (len(name) == 2 and name[0] == "-" and name[1] != "-"):
            raise TypeError(f"addoption{names} from {owner}: {name!r} is not an option name (--long or -s)")
    action = attrs.get("action", "store")
    if attrs.get("is_flag"):
        action = "store_true" if attrs.get("action") is None else action
    if attrs.get("multiple"):
        action = "append"
    if action not in ACTIONS:
        raise TypeError(f"addoption{names} from {owner}: action {action!r} is not one of {', '.join(sorted(ACTIONS))}")
    longs = [n for n in names if n.startswith("--")]
    dest = attrs.get("dest") or (longs[0][2:] if longs else names[0][1:]).replace("-", "_")
    choices = attrs.get("choices")
    if attrs.get("flag_value") is not None and action != "store":
        raise TypeError(f"addoption{names} from {owner}: flag_value is for options that take a value")
    return Option(
        names=names,
        dest=dest,
        action=action,
        help=attrs.get("help", ""),
        default=attrs.get("default"),
        metavar=attrs.get("metavar"),
        type=attrs.get("type"),
        choices=tuple(choices) if choices is not None else None,
        commands=frozenset(attrs.get("commands") or DEFAULT_COMMANDS),
        flag_value=attrs.get("flag_value"),
        group=group,
        owner=owner,
    )


def _import_model(where: str, name: str, owner: str) -> Any:
    """The object at ``"package.module:Model"`` (a section's model declared by name)."""
    import importlib

    module, _, attribute = where.partition(":")
    try:
        return getattr(importlib.import_module(module), attribute)
    except AttributeError:
        raise TypeError(f"add_section({name!r}, {where!r}) from {owner}: {module} has no {attribute}") from None


def _section_model(name: str, model: Any, owner: str) -> type[Any]:
    """``model``, once it is shown to be a pydantic model that refuses unknown keys."""
    from pydantic import BaseModel  # a section's plugin has imported it already

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"add_section({name!r}, …) from {owner}: the model must be a pydantic model")
    if model.model_config.get("extra") != "forbid":
        raise TypeError(
            f"add_section({name!r}, {model.__name__}) from {owner}: the model must refuse unknown keys "
            f'(model_config = ConfigDict(extra="forbid")), so a misspelt key is an error'
        )
    return model


def _caller_module() -> str:
    """The module that called the public method (named when two plugins declare one name)."""
    frame = sys._getframe(2)
    return str(frame.f_globals.get("__name__", "?"))
