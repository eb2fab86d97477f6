"""The loaded configuration plugins receive in ``trailblaze_configure``: the file's values, the
command line's options (``config.getoption``), settings and sections plugins declared."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from trailblaze.core.argparsing import NOTSET
from trailblaze.core.errors import Location, UsageError
from trailblaze.core.reportfiles import ReportPaths
from trailblaze.core.yamlsource import YamlDocument
from trailblaze.project.config.models import ProjectConfig
from trailblaze.project.projectfile import CONFIG_NAME

if TYPE_CHECKING:
    import pluggy

    from trailblaze.core.argparsing import Parser


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
        self._pluginmanager: pluggy.PluginManager | None = None
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
        #: that is not a report, never two reports to one file: :mod:`trailblaze.core.reportfiles`)
        self.report_paths = ReportPaths()

    @property
    def pluginmanager(self) -> pluggy.PluginManager:
        """The plugin manager (as pytest's ``config.pluginmanager``): register an object as a
        plugin with ``config.pluginmanager.register(obj, name)``. Set when the project is
        assembled; a Config made on its own has none."""
        if self._pluginmanager is None:
            raise RuntimeError("this Config has no plugin manager: it was not loaded as part of a project")
        return self._pluginmanager

    @pluginmanager.setter
    def pluginmanager(self, pluginmanager: pluggy.PluginManager) -> None:
        self._pluginmanager = pluginmanager

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

    def block_model(self, within: str) -> type[Any]:
        """The model of each entry of ``targets:`` or ``toolsets:`` in this file: the core's,
        with the keys plugins declared in it (``parser.addini(…, within=…)``), for entries read
        from elsewhere (a workspace's toolset files) to take the same keys."""
        from typing import get_args

        annotation = type(self.project).model_fields[within].annotation
        model: type[Any] = get_args(annotation)[1]
        return model

    def brings_tools(self, block: Any = None, within: str | None = None) -> bool:
        """Whether ``block`` (an entry of ``within``; None: the top level) sets a key that
        brings tools of its own (``parser.addini(…, brings_tools=True)``: MCP servers)."""
        from trailblaze.project.config.checks import sets_tool_keys

        return sets_tool_keys(self.parser, self.project if block is None else block, within)

    @property
    def named_urls(self) -> list[str]:
        """The names a ``base_url`` may be besides URLs and folders (``parser.add_named_url``)."""
        return list(self.parser.named_urls) if self.parser is not None else []

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
        copy._pluginmanager = self._pluginmanager
        return copy

    # -- the file ---------------------------------------------------------------------------------

    def base_url(self, value: str | None) -> str | None:
        """A ``base_url`` as the browser needs it: a folder becomes its ``file://`` URL (relative
        to this file's folder); URLs and declared names (the web driver's ``sample-app``) stay
        as they are."""
        if value is None or "://" in value or value in self.named_urls:
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
