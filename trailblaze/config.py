"""``trailblaze.yaml``: the project configuration, found by walking up from the working directory.

Keys are accepted in ``snake_case`` and in the seeds' ``camelCase`` (``trails_dir`` or
``trailsDir``, ``mcp_servers`` or ``mcpServers``); unknown keys are rejected with their
location. Relative paths in the file resolve against the folder that holds it, so a project
behaves the same from any working directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from trailblaze.errors import ErrorList, Location, UsageError
from trailblaze.projectfile import CONFIG_NAME, find_config, plugins_listed_in
from trailblaze.validation import describe_errors
from trailblaze.yamlsource import load_path

__all__ = ["CONFIG_NAME", "SAMPLE_APP", "Config", "ProjectConfig", "find_config", "load_config", "plugins_listed_in"]

#: ``base_url`` value that makes the web driver serve the bundled sample app itself.
SAMPLE_APP = "sample-app"


class _Section(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        loc_by_alias=False,
    )


class McpServerConfig(_Section):
    """One MCP server: spawned (``command:`` or ``script:``) or reached over HTTP (``url:``)."""

    name: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    working_dir: str | None = None
    script: str | None = None
    transport: Literal["stdio", "http"] | None = None
    url: str | None = None
    timeout_s: float = Field(default=60.0, gt=0)
    startup_timeout_s: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _one_kind(self) -> McpServerConfig:
        kinds = [k for k in ("command", "script", "url") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError("an MCP server needs exactly one of command:, script: or url:")
        if self.url and self.transport not in (None, "http"):
            raise ValueError("url: is for transport: http")
        if (self.command or self.script) and self.transport == "http":
            raise ValueError("transport: http needs url: (Trailblaze connects; it does not spawn)")
        return self


class ToolsetConfig(_Section):
    """A curated set of tools (seed 002): optional own servers, a filter and metadata overlays."""

    description: str = ""
    platforms: list[str] | None = None
    drivers: list[str] | None = None
    always_enabled: bool = False
    tools: list[str] = Field(default_factory=list)
    mcp_servers: list[McpServerConfig] = Field(default_factory=list)
    default_meta: dict[str, Any] = Field(default_factory=dict)
    tool_meta: dict[str, dict[str, Any]] = Field(default_factory=dict)


class TargetConfig(_Section):
    """An app under test (seed 002's *target*)."""

    display_name: str | None = None
    app_id: str | None = None
    app_ids: list[str] = Field(default_factory=list)
    base_url: str | None = None
    mcp_servers: list[McpServerConfig] = Field(default_factory=list)
    tool_sets: list[str] = Field(default_factory=list)


class ProjectConfig(_Section):
    trails_dir: str = "trails"
    driver: str | None = None
    device: str | None = None
    target: str | None = None
    base_url: str | None = None
    timeout: float = Field(default=10.0, gt=0, description="seconds actions and assertions wait for the UI")
    settle_timeout: float = Field(
        default=2.0, ge=0, description="mobile: seconds an action waits for the screen to stop changing (0: off)"
    )
    headless: bool = True
    browser: str | None = Field(default=None, description="path of a Chromium executable")
    plugins: list[str] = Field(default_factory=list)
    args: dict[str, str | int | float | bool] = Field(default_factory=dict)
    targets: dict[str, TargetConfig] = Field(default_factory=dict)
    mcp_servers: list[McpServerConfig] = Field(default_factory=list)
    toolsets: dict[str, ToolsetConfig] = Field(default_factory=dict)


class Config:
    """The loaded configuration plus where it came from (``path`` is None without a file)."""

    def __init__(self, project: ProjectConfig, path: Path | None) -> None:
        self.project = project
        self.path = path
        self.root = path.parent if path is not None else Path.cwd()
        #: the pluggy plugin manager, set when the project is assembled (as in pytest)
        self.pluginmanager: Any = None

    def resolve(self, relative: str) -> Path:
        """A path from the config file, made absolute against the file's folder."""
        p = Path(relative).expanduser()
        return p if p.is_absolute() else self.root / p

    @property
    def trails_dir(self) -> Path:
        return self.resolve(self.project.trails_dir)

    def __repr__(self) -> str:
        return f"Config(path={self.path})"


def load_config(path: Path | None = None, *, discover: bool = True) -> Config:
    """Load ``path``, or the discovered ``trailblaze.yaml``, or defaults when there is none."""
    if path is None and discover:
        path = find_config()
    if path is None:
        return Config(ProjectConfig(), None)
    if not path.exists():
        raise UsageError("config file not found", Location(str(path)))
    doc = load_path(path)
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise UsageError("trailblaze.yaml must be a mapping of settings", doc.location())
    try:
        project = ProjectConfig.model_validate(data)
    except ValidationError as exc:
        raise ErrorList(describe_errors(exc, doc=doc, model=ProjectConfig)) from None
    return Config(project, path)
