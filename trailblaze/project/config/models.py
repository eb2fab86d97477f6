"""The models of ``trailblaze.yaml``'s core keys: toolsets, targets and their platform blocks,
and :class:`ProjectConfig`, the file as a whole before plugins add their keys (at the top level,
and in each entry of ``targets:`` and ``toolsets:``: the ``mcp_toolsets`` plugin's
``mcp_servers:``, say)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)
from pydantic.alias_generators import to_camel

from trailblaze.core.limits import MAX_WAIT_SECONDS
from trailblaze.project.config.urls import check_base_url

#: a number of seconds something may wait: more than 0, at most an hour, not NaN or infinite
WaitSeconds = Annotated[float, Field(gt=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False)]


class SettingsModel(BaseModel):
    """The base of the core's blocks, for a plugin's model that reads as they do: unknown keys
    refused, every key also taken in camelCase (``startup_timeout_s`` or ``startupTimeoutS``)."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        loc_by_alias=False,
    )


def _check_meta_overlay(meta: dict[str, Any], where: str) -> dict[str, Any]:
    from trailblaze.tools.metadata import check_overlay

    check_overlay(meta, where)
    return meta


class ToolsetConfig(SettingsModel):
    """A curated set of tools (seed 002): optional own servers, a filter and metadata overlays.

    A toolset applies to a session when it is listed in ``tool_sets:`` (at the root or in the
    active target) or is ``always_enabled``, and its ``platforms:``/``drivers:`` include the
    session's. Only then do its ``mcp_servers:`` spawn. ``tools:`` limits which of those
    servers' tools register; ``default_meta:``/``tool_meta:`` add ``trailblaze/*`` metadata the
    servers do not ship themselves (what a server ships wins).
    """

    #: upstream's toolset files name themselves; in trailblaze.yaml the key is the name
    id: str | None = Field(default=None, description="upstream's toolset files name themselves; here the key does")
    description: str = Field(default="", description="what the toolset's tools are for")
    platforms: list[str] | None = Field(
        default=None, description="the platforms whose sessions it applies to (android, ios, web); default: every one"
    )
    drivers: list[str] | None = Field(
        default=None, description="the drivers whose sessions it applies to (keys, upstream's names, or a platform)"
    )
    always_enabled: bool = Field(default=False, description="applies to every session, listed in tool_sets or not")
    tools: list[str] = Field(
        default_factory=list,
        description="the tools it holds; with servers of its own, which of their tools register",
    )
    default_meta: dict[str, Any] = Field(
        default_factory=dict,
        description="trailblaze/* metadata for every tool of the toolset (what a server ships wins)",
    )
    tool_meta: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="trailblaze/* metadata by tool name, over default_meta (the server's wins)"
    )

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


class PlatformConfig(SettingsModel):
    """A target's settings for one platform (upstream's ``PlatformConfig``)."""

    app_ids: list[str] = Field(default_factory=list, description="the app's ids on this platform (package, bundle id)")
    tool_sets: list[str] = Field(
        default_factory=list,
        description="toolsets sessions on this platform use (they gate which tools an agent is offered)",
    )
    tools: list[str] = Field(default_factory=list, description="tools offered on this platform besides its toolsets'")
    excluded_tools: list[str] = Field(default_factory=list, description="tools never offered on this platform")
    drivers: list[str] | None = Field(
        default=None, description="the drivers this block is for (default: every driver of the platform)"
    )
    base_url: str | None = Field(default=None, description="web: the URL '/path' URLs join, when the target has none")
    min_build_version: str | None = Field(default=None, description="upstream's; kept, not used")
    icon: str | None = Field(default=None, description="upstream's; kept, not used")


class TargetConfig(SettingsModel):
    """An app under test (seed 002's *target*)."""

    display_name: str | None = Field(default=None, description="the app's name, for people and agents")
    app_id: str | None = Field(default=None, description="the app's id (an Android package, an iOS bundle id)")
    app_ids: list[str] = Field(
        default_factory=list, description="more of the app's ids (other builds, other platforms)"
    )
    base_url: str | None = Field(default=None, description="web: the URL '/path' URLs join in this target's sessions")

    _base_url = field_validator("base_url")(check_base_url)
    tool_sets: list[str] = Field(default_factory=list, description="toolsets this target's sessions use")
    platforms: dict[str, PlatformConfig] = Field(
        default_factory=dict,
        description="settings by platform: {android: {app_ids: [...], tool_sets: [...]}, web: {...}}",
    )
    system_prompt: str | None = Field(
        default=None, description="guidance for agents working on this app (upstream's system_prompt_file)"
    )

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


class ProjectConfig(SettingsModel):
    """The core's keys. Plugins' keys (``base_url``, ``browser``, ``llm``, ``mcp_servers``…) are
    added to a subclass of this model when the file is loaded (see :func:`load_config`), and
    their keys of targets and toolsets to subclasses of :class:`TargetConfig` and
    :class:`ToolsetConfig`."""

    trails_dir: str = Field(default="trails", description="what `trailblaze run` runs when given no paths")
    driver: str | None = Field(
        default=None,
        description="the driver trails run on (--driver wins); unset: platform:, else a trail's config.devices, "
        "else web",
    )
    platform: Literal["android", "ios", "web", "ANDROID", "IOS", "WEB"] | None = Field(
        default=None, description="the default driver by its platform, when driver: is not set"
    )
    device: str | None = Field(default=None, description="the default device id (--device wins)")
    target: str | None = Field(
        default=None, description="the app target of trails that name none (a trail's config.target and --target win)"
    )
    timeout: WaitSeconds = Field(default=10.0, description="seconds actions and assertions wait for the UI")
    plugins: list[str] = Field(default_factory=list, description="plugin modules to load, as -p does")
    tools: list[str | dict[str, Any]] = Field(
        default_factory=list,
        description="tools defined in YAML: *.tool.yaml files, folders of them, or tools written inline",
    )
    args: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="default --arg values, by the trails' argument names"
    )
    targets: dict[str, TargetConfig] = Field(default_factory=dict, description="the apps under test, by name")
    toolsets: dict[str, ToolsetConfig] = Field(
        default_factory=dict, description="named tool lists, or curated MCP servers with metadata overlays"
    )
    tool_sets: list[str] = Field(
        default_factory=list, description="toolsets every session uses (a target's tool_sets add to these)"
    )
    agent: str | None = Field(default=None, description="default agent for `record` and `run --self-heal`")
