"""``trailblaze.yaml``: the project configuration, found by walking up from the working directory.

The core's keys are :class:`ProjectConfig`'s; plugins add their own top-level settings and
sections in ``trailblaze_addoption`` (``parser.addini``, ``parser.add_section``), and the file is
validated against all of them at once, so a plugin's key gets the same ``file:line:col`` errors
and an unknown key is still refused. Keys are accepted in ``snake_case`` and in the seeds'
``camelCase`` (``trails_dir`` or ``trailsDir``, ``mcp_servers`` or ``mcpServers``). Relative
paths in the file resolve against the folder that holds it, so a project behaves the same from
any working directory.

:class:`Config` is what plugins get in ``trailblaze_configure``: the file's values, and the
command line's options (``config.getoption``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from trailblaze.argparsing import NOTSET
from trailblaze.errors import ErrorList, Location, UsageError
from trailblaze.limits import MAX_WAIT_SECONDS
from trailblaze.projectfile import CONFIG_NAME, find_config, plugins_listed_in
from trailblaze.reportfiles import ReportPaths
from trailblaze.validation import describe_errors
from trailblaze.yamlsource import YamlDocument, load_path

if TYPE_CHECKING:
    from trailblaze.argparsing import Parser

__all__ = ["CONFIG_NAME", "SAMPLE_APP", "Config", "ProjectConfig", "find_config", "load_config", "plugins_listed_in"]

#: ``base_url`` value that makes the web driver serve the bundled sample app itself.
SAMPLE_APP = "sample-app"

#: a number of seconds something may wait: more than 0, at most an hour, not NaN or infinite
WaitSeconds = Annotated[float, Field(gt=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False)]


class _Section(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        loc_by_alias=False,
    )


class McpServerConfig(_Section):
    """One MCP server: spawned (``command:`` or ``script:``) or reached over HTTP (``url:``).

    ``env:`` values and ``headers:`` may use ``${VAR}`` to take a value from Trailblaze's own
    environment (tokens stay out of the file). Relative ``script:``/``working_dir:`` paths, and a
    ``command:`` holding a slash, resolve against the folder of the file that declares them.
    """

    name: str | None = Field(default=None, min_length=1)
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    working_dir: str | None = None
    script: str | None = None
    transport: Literal["stdio", "http"] | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_s: WaitSeconds = Field(default=60.0, description="seconds one tools/call may take")
    startup_timeout_s: WaitSeconds = Field(default=30.0, description="seconds to spawn/connect and handshake")

    @model_validator(mode="after")
    def _one_kind(self) -> McpServerConfig:
        kinds = [k for k in ("command", "script", "url") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError("an MCP server needs exactly one of command:, script: or url:")
        if self.url and self.transport not in (None, "http"):
            raise ValueError("url: is for transport: http")
        if (self.command or self.script) and self.transport == "http":
            raise ValueError("transport: http needs url: (Trailblaze connects; it does not spawn)")
        if self.url and (self.args or self.env or self.working_dir):
            raise ValueError("args:, env: and working_dir: are for spawned servers (command: or script:), not url:")
        if self.headers and not self.url:
            raise ValueError("headers: is for transport: http servers (url:)")
        if self.script and self.working_dir:
            raise ValueError("working_dir: is for command: entries; a script: runs in its own folder")
        if self.script and not self.script.endswith((".py", ".ts", ".js", ".mjs", ".cjs", ".mts")):
            raise ValueError("script: must be a .py, .ts or .js file (use command: for anything else)")
        return self

    @property
    def kind(self) -> Literal["stdio", "http"]:
        return "http" if self.url else "stdio"


#: ``mcp_servers:`` as a list of entries, or (seed 000) a mapping from each server's name to its
#: entry. The tags appear in pydantic's error locations and are dropped from messages.
McpServers = Annotated[
    Annotated[list[McpServerConfig], Tag("list[server]")] | Annotated[dict[str, McpServerConfig], Tag("dict[server]")],
    Discriminator(lambda value: "dict[server]" if isinstance(value, dict) else "list[server]"),
]


def server_entries(
    servers: list[McpServerConfig] | dict[str, McpServerConfig],
) -> list[tuple[str | int, McpServerConfig]]:
    """Each server with its key in the file (an index, or its name in the mapping form, which
    is also its ``name:`` unless it sets one)."""
    if isinstance(servers, dict):
        return [(key, s if s.name else s.model_copy(update={"name": key})) for key, s in servers.items()]
    return list(enumerate(servers))


def _check_meta_overlay(meta: dict[str, Any], where: str) -> dict[str, Any]:
    from trailblaze.tools.metadata import check_overlay

    check_overlay(meta, where)
    return meta


class ToolsetConfig(_Section):
    """A curated set of tools (seed 002): optional own servers, a filter and metadata overlays.

    A toolset applies to a session when it is listed in ``tool_sets:`` (at the root or in the
    active target) or is ``always_enabled``, and its ``platforms:``/``drivers:`` include the
    session's. Only then do its ``mcp_servers:`` spawn. ``tools:`` limits which of those
    servers' tools register; ``default_meta:``/``tool_meta:`` add ``trailblaze/*`` metadata the
    servers do not ship themselves (what a server ships wins).
    """

    #: upstream's toolset files name themselves; in trailblaze.yaml the key is the name
    id: str | None = None
    description: str = ""
    platforms: list[str] | None = None
    drivers: list[str] | None = None
    always_enabled: bool = False
    tools: list[str] = Field(default_factory=list)
    mcp_servers: McpServers = Field(default_factory=list)
    default_meta: dict[str, Any] = Field(default_factory=dict)
    tool_meta: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @field_validator("default_meta")
    @classmethod
    def _default_meta(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _check_meta_overlay(value, "default_meta")

    @field_validator("tool_meta")
    @classmethod
    def _tool_meta(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for tool, meta in value.items():
            _check_meta_overlay(meta, f"tool_meta.{tool}")
        return value


#: the platform blocks a target may have (upstream's keys; ``compose`` is its desktop driver's),
#: and the platform of every registered driver (a plugin's driver adds its own)
PLATFORM_KEYS = ("android", "ios", "web", "compose", "desktop")
#: the validation context's key for a callable returning the registered drivers' platforms,
#: called only when a target names a platform outside :data:`PLATFORM_KEYS`
REGISTERED_PLATFORMS = "registered_platforms"


class PlatformConfig(_Section):
    """A target's settings for one platform (upstream's ``PlatformConfig``)."""

    app_ids: list[str] = Field(default_factory=list)
    #: toolsets sessions on this platform use (they gate which tools an agent is offered)
    tool_sets: list[str] = Field(default_factory=list)
    #: tools offered on this platform in addition to its toolsets'
    tools: list[str] = Field(default_factory=list)
    #: tools never offered on this platform
    excluded_tools: list[str] = Field(default_factory=list)
    #: the drivers this block is for (default: every driver of the platform)
    drivers: list[str] | None = None
    base_url: str | None = None
    min_build_version: str | None = None
    icon: str | None = None


def check_base_url(value: str | None) -> str | None:
    """``base_url`` is ``sample-app``, an http(s) or file URL, or a folder (checked to exist
    once the config file's folder is known): anything else fails every navigation later."""
    if value is None or value == SAMPLE_APP or "://" not in value:
        return value
    problem = url_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def base_url_problem(value: str | None, root: Path) -> str | None:
    """Why ``value`` is no ``base_url``: neither a URL, ``sample-app`` nor a folder (relative to
    ``root``) that exists."""
    if value is None or value == SAMPLE_APP or "://" in value:
        return None
    folder = Path(value).expanduser()
    if (folder if folder.is_absolute() else root / folder).is_dir():
        return None
    return (
        f"base_url: {value!r} is neither a URL (http://…, https://…, file://…), {SAMPLE_APP!r} nor a folder that exists"
    )


def url_problem(value: str) -> str | None:
    """Why ``value`` is not a URL a browser can open, or None."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        return f"{value!r} is not a valid URL: {exc}"
    if parts.scheme not in ("http", "https", "file"):
        return f"{value!r} is not an http://, https:// or file:// URL"
    if parts.scheme != "file" and not parts.hostname:
        return f"{value!r} has no host"
    if any(c.isspace() for c in value):
        return f"{value!r} contains spaces"
    return None


class TargetConfig(_Section):
    """An app under test (seed 002's *target*)."""

    display_name: str | None = None
    app_id: str | None = None
    app_ids: list[str] = Field(default_factory=list)
    base_url: str | None = None

    _base_url = field_validator("base_url")(check_base_url)
    mcp_servers: McpServers = Field(default_factory=list)
    tool_sets: list[str] = Field(default_factory=list)
    #: per-platform settings: ``{android: {app_ids: [...], tool_sets: [...]}, web: {...}}``
    platforms: dict[str, PlatformConfig] = Field(default_factory=dict)
    #: guidance for agents working on this app (upstream: the target's ``system_prompt_file``)
    system_prompt: str | None = None

    @field_validator("platforms")
    @classmethod
    def _platform_keys(cls, value: dict[str, PlatformConfig], info: ValidationInfo) -> dict[str, PlatformConfig]:
        unknown = sorted(set(value) - set(PLATFORM_KEYS))
        if not unknown:
            return value
        registered = (info.context or {}).get(REGISTERED_PLATFORMS)
        known = list(dict.fromkeys([*PLATFORM_KEYS, *(registered() if registered is not None else ())]))
        unknown = [key for key in unknown if key not in known]
        if unknown:
            raise ValueError(f"unknown platform(s) {', '.join(unknown)} (known: {', '.join(known)})")
        return value

    def platform_block(self, platform: str, driver_key: str, expand: Any = None) -> PlatformConfig | None:
        """The block for a session on ``platform``/``driver_key``: one naming the driver in its
        ``drivers:``, else the platform's own."""
        for block in self.platforms.values():
            if block.drivers and expand is not None and any(driver_key in expand(d) for d in block.drivers):
                return block
        return self.platforms.get(platform)

    @property
    def web_base_url(self) -> str | None:
        """The URL web sessions of this target start from: ``base_url:``, else the web block's."""
        web = self.platforms.get("web")
        return self.base_url or (web.base_url if web is not None else None)

    @property
    def all_app_ids(self) -> list[str]:
        found = [*([self.app_id] if self.app_id else []), *self.app_ids]
        found += [a for block in self.platforms.values() for a in block.app_ids]
        return list(dict.fromkeys(found))


class ProjectConfig(_Section):
    """The core's keys. Plugins' keys (``base_url``, ``browser``, ``llm``, ``mcp_servers``…) are
    added to a subclass of this model when the file is loaded (see :func:`load_config`)."""

    trails_dir: str = "trails"
    driver: str | None = None
    #: seed 000's ``platform:``: the default driver for that platform when ``driver:`` is not set
    platform: Literal["android", "ios", "web", "ANDROID", "IOS", "WEB"] | None = None
    device: str | None = None
    target: str | None = None
    timeout: WaitSeconds = Field(default=10.0, description="seconds actions and assertions wait for the UI")
    plugins: list[str] = Field(default_factory=list)
    #: tools defined in YAML: paths of ``*.tool.yaml`` files or folders of them, or inline tools
    tools: list[str | dict[str, Any]] = Field(default_factory=list)
    args: dict[str, str | int | float | bool] = Field(default_factory=dict)
    targets: dict[str, TargetConfig] = Field(default_factory=dict)
    toolsets: dict[str, ToolsetConfig] = Field(default_factory=dict)
    #: toolsets every session uses (a target's ``tool_sets`` add to these)
    tool_sets: list[str] = Field(default_factory=list)
    agent: str | None = Field(default=None, description="default agent for `record` and `run --self-heal`")


#: a plugin setting's type for a ``base_url``-like value: checked as :func:`check_base_url` does
BaseUrl = Annotated[str | None, AfterValidator(check_base_url)]


class Config:
    """The loaded configuration, the command line's options, and where they came from.

    ``project`` holds every key of the file (the core's and the plugins'); plugins read theirs
    with :meth:`getini` and :meth:`section`, and options with :meth:`getoption`. ``path`` is
    None without a file.
    """

    def __init__(
        self,
        project: ProjectConfig,
        path: Path | None,
        doc: YamlDocument | None = None,
        *,
        parser: Parser | None = None,
        options: Mapping[str, Any] | None = None,
        command: str | None = None,
        stdout_protocol: str | None = None,
    ) -> None:
        self.project = project
        self.path = path
        #: the parsed file, to point at where something was declared (``doc.location(keys)``)
        self.doc = doc
        self.root = path.parent if path is not None else Path.cwd()
        #: the pluggy plugin manager, set when the project is assembled (as in pytest)
        self.pluginmanager: Any = None
        #: what plugins declared in ``trailblaze_addoption`` (None: nothing was declared)
        self.parser = parser
        #: the command being run (``run``, ``record``, ``validate``, ``mcp``…), None in the library
        self.command = command
        #: the protocol the command speaks on stdout (``trailblaze mcp``: ``"MCP"``), None when stdout
        #: is the reporters': then a reporter writes nothing there (the terminal reporter stays off)
        self.stdout_protocol = stdout_protocol
        #: every declared option's value, by dest: given on the command line, else its default
        self.option = SimpleNamespace(**{**(parser.defaults() if parser is not None else {}), **dict(options or {})})
        #: the files reporters will write, claimed in ``trailblaze_configure`` (never over a file
        #: that is not a report, never two reports to one file: :mod:`trailblaze.reportfiles`)
        self.report_paths = ReportPaths()

    # -- what plugins declared ------------------------------------------------------------------

    def getoption(self, name: str, default: Any = NOTSET) -> Any:
        """An option's value by dest (``base_url``) or name (``--base-url``). Options apply to
        some commands only; for the others this is the option's default. An option nobody
        declared is ``default`` when one is given, else a ValueError (as in pytest)."""
        found = self.parser.find(name) if self.parser is not None else None
        dest = found.dest if found is not None else name.lstrip("-").replace("-", "_")
        if hasattr(self.option, dest):
            return getattr(self.option, dest)
        if default is not NOTSET:
            return default
        raise ValueError(f"no option named {name!r} (no plugin declared it in trailblaze_addoption)")

    def getini(self, name: str) -> Any:
        """A top-level setting of ``trailblaze.yaml`` declared with ``parser.addini``: the file's
        value, else the declared default."""
        if self.parser is None or name not in self.parser.settings:
            raise ValueError(f"no setting named {name!r} (no plugin declared it with parser.addini)")
        return getattr(self.project, name)

    def section(self, name: str) -> Any:
        """A section declared with ``parser.add_section``: the validated model, or the model's
        defaults when the file has no such key (a model with required fields then is an error
        saying what to add)."""
        section = self.parser.sections.get(name) if self.parser is not None else None
        if section is None:
            raise ValueError(f"no section named {name!r} (no plugin declared it with parser.add_section)")
        value = getattr(self.project, name)
        if value is not None:
            return value
        from pydantic import ValidationError

        try:
            return section.model()
        except ValidationError:
            required = ", ".join(n for n, f in section.model.model_fields.items() if f.is_required())
            raise UsageError(
                f"trailblaze.yaml needs a {name}: section (with {required}) for plugin {section.owner}",
                self.location(()),
            ) from None

    def declares(self, key: str) -> bool:
        """Whether the file sets ``key`` (by its snake_case or camelCase name)."""
        return key in self.project.model_fields_set

    def with_options(self, **values: Any) -> Config:
        """A copy whose options ``values`` are changed (the file stays the same): for one client
        of ``trailblaze mcp`` that wants a visible browser, say."""
        copy = Config(
            self.project,
            self.path,
            self.doc,
            parser=self.parser,
            command=self.command,
            stdout_protocol=self.stdout_protocol,
        )
        copy.option = SimpleNamespace(**{**vars(self.option), **values})
        copy.pluginmanager = self.pluginmanager
        return copy

    # -- the file ---------------------------------------------------------------------------------

    def base_url(self, value: str | None) -> str | None:
        """A ``base_url`` as the browser needs it: a folder becomes its ``file://`` URL (relative
        to this file's folder); URLs and ``sample-app`` stay as they are."""
        if value is None or value == SAMPLE_APP or "://" in value:
            return value
        return self.resolve(value).resolve().as_uri() + "/"

    def resolve(self, relative: str) -> Path:
        """A path from the config file, made absolute against the file's folder."""
        p = Path(relative).expanduser()
        return p if p.is_absolute() else self.root / p

    @property
    def trails_dir(self) -> Path:
        return self.resolve(self.project.trails_dir)

    def location(self, key_path: tuple[str | int, ...]) -> Location:
        """Where ``key_path`` (e.g. ``("mcp_servers", 0)``) is in the file, as ``file:line:col``."""
        if self.doc is None:
            return Location(str(self.path) if self.path else CONFIG_NAME)
        return self.doc.location(key_path)

    def __repr__(self) -> str:
        return f"Config(path={self.path})"


def load_config(
    path: Path | None = None,
    parser: Parser | None = None,
    *,
    discover: bool = True,
    options: Mapping[str, Any] | None = None,
    command: str | None = None,
    stdout_protocol: str | None = None,
    platforms: Callable[[], Iterable[str]] | None = None,
) -> Config:
    """Load ``path``, or the discovered ``trailblaze.yaml``, or defaults when there is none.

    ``parser`` holds what plugins declared: their settings and sections are validated with the
    core's keys; ``options`` are the command line's values for its options; ``platforms``
    gives the registered drivers' platforms, asked only when a target names one trailblaze
    does not know itself (collecting drivers imports them)."""
    if path is None and discover:
        path = find_config()
    model = file_model(parser)
    if path is None:
        return Config(model(), None, parser=parser, options=options, command=command, stdout_protocol=stdout_protocol)
    if not os.path.lexists(path):  # a broken link or a link loop is there: reading it says which
        raise UsageError("config file not found", Location(str(path)))
    doc = load_path(path)
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise UsageError("trailblaze.yaml must be a mapping of settings", doc.location())
    try:
        project = model.model_validate(data, context={REGISTERED_PLATFORMS: platforms} if platforms else None)
    except ValidationError as exc:
        raise ErrorList(describe_errors(exc, doc=doc, model=model)) from None
    problems = _reference_problems(project, doc, path.parent)
    if problems:
        raise ErrorList(problems)
    return Config(project, path, doc, parser=parser, options=options, command=command, stdout_protocol=stdout_protocol)


def file_model(parser: Parser | None) -> type[ProjectConfig]:
    """The model of the whole file: the core's keys plus every plugin's settings and sections.
    A plugin key that is also a core key is an error naming the plugin."""
    if parser is None or not (parser.settings or parser.sections):
        return ProjectConfig
    from pydantic import create_model

    fields: dict[str, Any] = {}
    for name, setting in parser.settings.items():
        fields[name] = (setting.type, setting.default)
    for name, section in parser.sections.items():
        fields[name] = (section.model | None, None)
    taken = sorted(set(fields) & set(ProjectConfig.model_fields))
    if taken:
        owners = {
            **{n: s.owner for n, s in parser.settings.items()},
            **{n: s.owner for n, s in parser.sections.items()},
        }
        raise UsageError(
            "; ".join(
                f"{owners[name]} declares trailblaze.yaml key {name!r}, which is trailblaze's own" for name in taken
            )
        )
    model: type[ProjectConfig] = create_model("TrailblazeYaml", __base__=ProjectConfig, **fields)
    return model


def _reference_problems(project: ProjectConfig, doc: YamlDocument, root: Path) -> list[UsageError]:
    """Names that point at nothing: ``target:`` and ``tool_sets:`` entries, and a target's
    ``base_url`` that is neither a URL nor a folder."""
    problems: list[UsageError] = []
    for name, t in project.targets.items():
        problem = base_url_problem(t.base_url, root)
        if problem is not None:
            problems.append(UsageError(problem, doc.location(("targets", name, "base_url"))))
    if project.target is not None and project.targets and project.target not in project.targets:
        known = ", ".join(sorted(project.targets))
        problems.append(
            UsageError(f"target: {project.target!r} is not defined in targets: ({known})", doc.location(("target",)))
        )
    from trailblaze.toolsets import builtin_toolsets

    lists: list[tuple[tuple[str | int, ...], list[str]]] = [(("tool_sets",), project.tool_sets)]
    lists += [(("targets", name, "tool_sets"), t.tool_sets) for name, t in project.targets.items()]
    lists += [
        (("targets", name, "platforms", key, "tool_sets"), block.tool_sets)
        for name, t in project.targets.items()
        for key, block in t.platforms.items()
    ]
    for key_path, names in lists:
        for i, name in enumerate(names):
            if name not in project.toolsets and name not in builtin_toolsets():
                known = ", ".join(sorted({*project.toolsets, *builtin_toolsets()}))
                problems.append(
                    UsageError(f"tool_sets: unknown toolset {name!r} (toolsets: {known})", doc.location((*key_path, i)))
                )
    return problems
