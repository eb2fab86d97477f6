"""The session tools' arguments: pydantic models (``extra="forbid"``) and the JSON Schemas made from them.

Names and arguments are upstream's (``trailblaze-server/.../mcp/newtools/``), so a prompt written
for upstream's server works here. Enum-valued arguments are JSON Schema ``enum``\\ s with every
value listed inline (no ``$ref``), which is what a client's LLM reads best; values are accepted
in any case (``web`` for ``WEB``), as a model would write them.
"""

from __future__ import annotations

import enum
import functools
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema, field_validator, model_validator

from trailblaze.core.validation import describe_errors
from trailblaze.mcpserver.categories import Category, Profile
from trailblaze.mcpserver.settings import ViewHierarchyVerbosity


class DeviceAction(enum.StrEnum):
    LIST = "LIST"
    CONNECT = "CONNECT"
    ANDROID = "ANDROID"
    IOS = "IOS"
    WEB = "WEB"
    INFO = "INFO"


class DeviceDetail(enum.StrEnum):
    SUMMARY = "SUMMARY"
    APPS = "APPS"
    FULL = "FULL"


class TrailAction(enum.StrEnum):
    START = "START"
    SAVE = "SAVE"
    RUN = "RUN"
    LIST = "LIST"
    END = "END"


class SessionAction(enum.StrEnum):
    START = "START"
    STOP = "STOP"
    SAVE = "SAVE"
    INFO = "INFO"
    LIST = "LIST"
    ARTIFACTS = "ARTIFACTS"


class ConfigAction(enum.StrEnum):
    GET = "GET"
    SET = "SET"
    LIST = "LIST"


class ToolboxAction(enum.StrEnum):
    LIST = "LIST"
    ENABLE = "ENABLE"
    DISABLE = "DISABLE"
    PROFILE = "PROFILE"
    RELOAD = "RELOAD"


class Hint(enum.StrEnum):
    """What kind of step ``step(hint=…)`` takes (seed 004): ``VERIFY`` checks with read-only tools
    and records a ``verify:`` step; ``NAVIGATION`` narrows trailblaze's agent to the interaction
    and navigation tools (launch, URLs, back, scrolling)."""

    VERIFY = "VERIFY"
    NAVIGATION = "NAVIGATION"


class TrailEditAction(enum.StrEnum):
    GET = "GET"
    INSERT = "INSERT"
    REPLACE = "REPLACE"
    DELETE = "DELETE"
    MOVE = "MOVE"
    CLEAR_RECORDING = "CLEAR_RECORDING"


class StepType(enum.StrEnum):
    STEP = "STEP"
    VERIFY = "VERIFY"


class LogcatAction(enum.StrEnum):
    QUERY = "QUERY"
    ASSERT = "ASSERT"


class Platform(enum.StrEnum):
    ANDROID = "ANDROID"
    IOS = "IOS"
    WEB = "WEB"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=False)

    @field_validator("*", mode="before")
    @classmethod
    def _enum_any_case(cls, value: Any) -> Any:
        """``web`` means ``WEB``: models write enum values in every case."""
        if isinstance(value, str) and value.strip() and value.strip().upper() != value:
            upper = value.strip().upper()
            if upper in _ENUM_VALUES:
                return upper
        return value


class DeviceArgs(_Args):
    """Connect a device, list devices, or describe the connected one."""

    action: DeviceAction = Field(description="LIST, CONNECT (deviceId), ANDROID, IOS, WEB, or INFO")
    deviceId: str | None = Field(None, description="Device id for CONNECT (and ANDROID/IOS), as device(LIST) shows")
    detail: DeviceDetail = Field(DeviceDetail.SUMMARY, description="For INFO: SUMMARY, APPS or FULL")
    headless: bool | None = Field(None, description="For WEB: false shows the browser window (default headless)")
    testName: str | None = Field(None, description="A name for the recording this connection starts")


class StepArgs(_Args):
    """One step toward the objective, recorded as a trail step."""

    objective: str = Field(description="The step in plain language; it becomes the recorded step's text")
    context: str | None = Field(None, description="Background from earlier steps (for trailblaze's agent)")
    hint: Hint | None = Field(
        None,
        description="VERIFY checks an assertion with read-only tools (passed true/false); NAVIGATION gives "
        "trailblaze's agent only interaction and navigation tools",
    )
    #: offered as text (what clients send best); a list of calls is accepted too
    tools: Annotated[str | list[Any] | None, WithJsonSchema({"type": "string"})] = Field(
        None,
        description="Tool calls to run directly, no LLM: YAML as in a trail's recording, e.g. "
        "'- web_click: {ref: e12}\\n- web_type: {ref: e13, text: Ada}'",
    )
    categories: list[Category] | None = Field(
        None,
        description="Tool categories trailblaze's agent starts with (TRAILBLAZE_AS_AGENT); it can enable more of "
        "these and the session's own with its toolbox. Default: every category",
    )
    fast: bool = Field(False, description="Leave out the screenshot (the text summary stays)")
    screenshot: bool = Field(False, description="Save a screenshot after the step and return it")
    snapshotDetails: str | None = Field(None, description="Accepted for compatibility; the summary is always compact")

    @field_validator("hint", mode="before")
    @classmethod
    def _known_hint(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str) or value.strip().upper() not in Hint.__members__:
            raise ValueError(f"unknown hint {value!r}: use one of {', '.join(Hint)}, or leave it out")
        return Hint(value.strip().upper())


class AskArgs(_Args):
    """Ask about the screen (never recorded)."""

    question: str = Field(description="What you want to know about the current screen")
    screenshot: bool = Field(False, description="Include a screenshot")
    includeScreenshot: bool = Field(False, description="Same as screenshot (upstream's name)")
    viewHierarchy: ViewHierarchyVerbosity | None = Field(
        None, description="Include the view hierarchy: MINIMAL, STANDARD or FULL"
    )


class TrailArgs(_Args):
    """Save the session as a trail, run a trail, list trails."""

    action: TrailAction = Field(description="START, SAVE, RUN, LIST or END")
    name: str | None = Field(None, description="Trail name (START, SAVE, RUN by name)")
    file: str | None = Field(None, description="Trail file path (RUN)")
    filter: str | None = Field(None, description="LIST: only trails whose path or title contains this")
    page: int | None = Field(None, ge=1, description="LIST: page number, 20 trails per page (from 1)")
    platform: Platform | None = Field(None, description="START/RUN: connect a device of this platform first")
    device: str | None = Field(None, description="START/RUN: the device id to connect")


class SessionArgs(_Args):
    """The recording session."""

    action: SessionAction = Field(description="START, STOP, SAVE, INFO, LIST or ARTIFACTS")
    title: str | None = Field(None, description="Title (START, SAVE, STOP with save)")
    id: str | None = Field(None, description="Recording id for INFO and ARTIFACTS (default: the current one)")
    save: bool = Field(False, description="STOP: save as a trail first")
    limit: int | None = Field(None, ge=1, description="LIST: at most this many")


class ConfigArgs(_Args):
    """Read or change the session's settings."""

    action: ConfigAction = Field(description="GET, SET or LIST")
    key: str | None = Field(None, description="The setting (GET one, SET)")
    value: str | None = Field(None, description="The new value (SET)")


class ToolboxArgs(_Args):
    """The device tools on offer, by category."""

    action: ToolboxAction = Field(ToolboxAction.LIST, description="LIST, ENABLE, DISABLE, PROFILE or RELOAD")
    categories: list[Category] | None = Field(None, description="ENABLE/DISABLE: these categories")
    profile: Profile | None = Field(None, description="PROFILE: the profile to offer")
    name: str | None = Field(None, description="LIST: only this tool, with its parameters")
    search: str | None = Field(None, description="LIST: tools whose name or description contains this")
    detail: bool | None = Field(None, description="LIST: include each tool's parameters")
    target: str | None = Field(None, description="Accepted for compatibility: tools are the connected session's")
    platform: str | None = Field(None, description="Accepted for compatibility: tools are the connected device's")


class MetricsScope(enum.StrEnum):
    SESSION = "SESSION"
    ALL = "ALL"


class GetAgentMetricsArgs(_Args):
    """How trailblaze's agent has done: this session's runs and the server's."""


class ClearAgentMetricsArgs(_Args):
    """Start the agent metrics over."""

    scope: MetricsScope = Field(
        MetricsScope.ALL, description="ALL (default): every count of the server; SESSION: this session's runs only"
    )


class TrailEditArgs(_Args):
    """Edit the session's recorded steps (``trailEdit``); ``operation`` is upstream's name for ``action``."""

    action: TrailEditAction = Field(description="GET, INSERT, REPLACE, DELETE, MOVE or CLEAR_RECORDING")
    index: int | None = Field(
        None, description="The step (from 0, as GET numbers them): REPLACE, DELETE, MOVE, CLEAR_RECORDING"
    )
    position: int | None = Field(None, description="INSERT: where (0 first, -1 or none last); MOVE: the new index")
    count: int | None = Field(None, ge=1, description="DELETE, CLEAR_RECORDING: this many steps from index (default 1)")
    prompt: str | None = Field(None, min_length=1, description="INSERT, REPLACE: the step's text")
    stepType: StepType | None = Field(None, description="INSERT, REPLACE: STEP or VERIFY")
    name: str | None = Field(None, description="The recording's title, if you name it (upstream's argument)")

    @model_validator(mode="before")
    @classmethod
    def _upstream_operation(cls, data: Any) -> Any:
        """Upstream calls ``action`` ``operation``: a prompt written for upstream works here."""
        if isinstance(data, dict) and "operation" in data:
            data = dict(data)
            operation = data.pop("operation")
            if data.setdefault("action", operation) != operation:
                raise ValueError("give action or operation (upstream's name for it), not both")
        return data


class LogcatArgs(_Args):
    """Search or assert on the Android device's log since it was connected (``logcat``)."""

    action: LogcatAction = Field(description="QUERY lists matching lines; ASSERT says passed true/false")
    pattern: str = Field(min_length=1, description="A regex (Java syntax) a line must contain a match of")
    tag: str | None = Field(None, description="Only lines with this log tag (e.g. ActivityManager, OkHttp)")
    limit: int | None = Field(None, ge=1, le=1000, description="QUERY: at most this many lines (default 50)")
    message: str | None = Field(None, description="ASSERT: what you are checking, for the reply")


class RunPromptArgs(_Args):
    """Steps in plain language for trailblaze's agent (TRAILBLAZE_AS_AGENT)."""

    steps: list[str] | None = Field(None, description="The steps, in order; prefer few")
    prompt: str | None = Field(None, description="One step, when there is only one")


_ENUM_VALUES = frozenset(
    member.value
    for kind in (
        DeviceAction,
        DeviceDetail,
        TrailAction,
        SessionAction,
        Hint,
        TrailEditAction,
        StepType,
        LogcatAction,
        ConfigAction,
        ToolboxAction,
        Platform,
        Category,
        Profile,
        ViewHierarchyVerbosity,
    )
    for member in kind
)


def parse(model: type[_Args], arguments: dict[str, Any] | None) -> Any:
    """``arguments`` as ``model``; a wrong one raises ``ValueError`` with one line per problem."""
    from trailblaze.tools.agentschema import parse_json_arguments

    try:
        return model.model_validate(parse_json_arguments(_schema_of(model), arguments or {}))
    except ValidationError as exc:
        raise ValueError("; ".join(str(e) for e in describe_errors(exc, model=model))) from None


def schema(model: type[_Args]) -> dict[str, Any]:
    """The model's JSON Schema with ``$ref``\\ s inlined and pydantic's titles left out."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = defs[node["$ref"].rsplit("/", 1)[-1]]
                merged = {**inline(target), **{k: v for k, v in node.items() if k != "$ref"}}
                return {k: v for k, v in merged.items() if k != "title"}
            return {k: inline(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    out = inline(raw)
    out.pop("description", None)
    return dict(out)


#: each model's schema, made once (for reading JSON text arguments; never handed out)
_schema_of = functools.cache(schema)
