"""What a tool is: its name, input schema, metadata (seed 000's registry model) and implementation.

Tools come from three kinds of source — Python functions (``@trailblaze.tool``), MCP servers
and YAML compositions — and all of them are a :class:`ToolSpec` with a
:class:`ToolImplementation` behind it, so the registry, the resolver and the reports never need
to know where a tool came from.
"""

from __future__ import annotations

import abc
import contextlib
import copy
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

if TYPE_CHECKING:
    from pathlib import Path

    from trailblaze.core.errors import Location
    from trailblaze.device.commands import Commands, DeviceInfo

#: Arguments every tool accepts and ignores: the agent's explanation of why it chose the call.
REASON_KEYS = frozenset({"reason", "reasoning"})
#: set by :func:`trailblaze.tools.authoring.verifies_when` on a tool's function; read where the
#: function becomes a spec (here, so that neither of those two modules imports the other)
VERIFIES_ATTR = "__trailblaze_verifies__"


class ToolDevice(Protocol):
    """What tools may rely on of the driver's device object (``ctx.driver``, a
    :class:`trailblaze.Device`): the tools the generic ``tap``/``assertVisible`` delegate to and
    the URL ``/path`` navigation joins. Driver-specific tools narrow it with ``isinstance``."""

    @property
    def selector_tap_tool(self) -> str: ...

    @property
    def selector_assert_tool(self) -> str: ...

    @property
    def base_url(self) -> str | None: ...


class ToolSessionDriver(Protocol):
    """What tools may read of the session's driver (a :class:`trailblaze.Driver`): the names it
    goes by, as ``driverType`` reports them to scripts written for upstream."""

    @property
    def key(self) -> str: ...

    @property
    def aliases(self) -> tuple[str, ...]: ...


class ToolSession(Protocol):
    """What tools may use of the session a call runs in (``ctx.session``, a
    :class:`trailblaze.Session`): its id, its driver, a place to keep state between calls, the
    stack that closes what a tool opened with the session, and the secret values to mask. The
    tools layer names no session class; a tool that needs the whole session (a trailmap's
    scripted tools start their server in it) checks for :class:`trailblaze.Session` itself."""

    @property
    def id(self) -> str: ...

    @property
    def driver(self) -> ToolSessionDriver: ...

    @property
    def state(self) -> dict[str, Any]: ...

    @property
    def exit_stack(self) -> contextlib.AsyncExitStack: ...

    @property
    def secrets(self) -> set[str]: ...


@dataclass(frozen=True, slots=True)
class ToolMetadata:
    """Seed 000's registry flags. ``platforms``/``drivers`` None means "all"."""

    platforms: frozenset[str] | None = None
    drivers: frozenset[str] | None = None
    groups: tuple[str, ...] = ()
    exposed_to_llm: bool = True
    recordable: bool = True
    delegating: bool = False
    requires_host: bool = False
    verification: bool = False
    requires_context: bool = False
    toolset: str | None = None
    #: a delegating tool whose delegates are executed but not recorded (a YAML tool's
    #: ``is_recordable: false``): replay then runs the tool itself again
    record_delegates: bool = True
    #: False when every group of the tool is off by default (seed 000's ``defaultEnabled``):
    #: agents are offered it only when ``llm.groups`` names one of them
    default_enabled: bool = True
    #: a read-only query (``web_currentUrl``, ``findMatches``): its answer is for the agent
    #: that asked, so a call is never recorded and a replay loses nothing without it
    query: bool = False

    def applies_to(self, driver: str, platform: str) -> bool:
        if self.drivers is not None and driver not in self.drivers:
            return False
        return self.platforms is None or platform in self.platforms

    def to_registry(self) -> dict[str, Any]:
        """The flags under seed 000's camelCase registry keys."""
        return {
            "platforms": sorted(self.platforms) if self.platforms is not None else None,
            "drivers": sorted(self.drivers) if self.drivers is not None else None,
            "groups": list(self.groups),
            "exposedToLlm": self.exposed_to_llm,
            "isRecordable": self.recordable,
            "isDelegating": self.delegating,
            "requiresHost": self.requires_host,
            "isVerification": self.verification,
            "requiresContext": self.requires_context,
            "toolset": self.toolset,
            "defaultEnabled": self.default_enabled,
            "isQuery": self.query,
        }


@dataclass(frozen=True, slots=True)
class Delegate:
    """One tool call a delegating tool asks Trailblaze to make (and record) on its behalf."""

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def coerce(cls, value: Any, source: str) -> Delegate:
        """Accept a Delegate or the wire shape ``{"tool": name, "args": {...}}``."""
        if isinstance(value, Delegate):
            return value
        if isinstance(value, Mapping) and isinstance(value.get("tool"), str):
            extra = set(value) - {"tool", "args"}
            args = value.get("args") or {}
            if not extra and isinstance(args, Mapping):
                return cls(value["tool"], dict(args))
        raise TypeError(
            f"{source} returned {value!r} as a delegate; expected trailblaze.Delegate(tool, args) "
            f'or {{"tool": name, "args": {{...}}}}'
        )


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call as written in a trail or produced by delegation: a name and JSON-like arguments."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    location: Location | None = None
    #: finds the location of a part of the arguments, e.g. ``("nodeSelector", "web")``
    locate: Callable[[Sequence[str | int]], Location] | None = field(default=None, compare=False, repr=False)

    def arg_location(self, key_path: Sequence[str | int]) -> Location | None:
        return self.locate(key_path) if self.locate is not None else self.location

    def with_args(self, args: Mapping[str, Any]) -> ToolCall:
        return replace(self, args=args)


@dataclass(slots=True)
class ToolOutcome:
    """What invoking a tool produced: delegates to run next, or an output."""

    delegates: list[Delegate] | None = None
    output: Any = None


class ToolArgumentError(ValueError):
    """The arguments do not fit the tool's input schema; ``problems`` are ``(field, message)``."""

    def __init__(self, tool: str, problems: Sequence[tuple[str, str]]) -> None:
        self.tool = tool
        self.problems = list(problems)
        details = "; ".join(f"{name}: {msg}" if name else msg for name, msg in self.problems)
        super().__init__(f"invalid arguments for {tool}: {details}")


class ToolImplementation(abc.ABC):
    """How to validate arguments for, and invoke, one tool."""

    @abc.abstractmethod
    def validate(self, args: Mapping[str, Any]) -> Any:
        """Check ``args`` (reason keys already removed); raise :class:`ToolArgumentError`."""

    @abc.abstractmethod
    async def invoke(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
        """Run the tool. ``args`` are the call's arguments after interpolation."""

    def verifies(self, args: Mapping[str, Any]) -> bool:
        """Whether this call only looks though the tool is no verification tool (``mobile_maestro``
        with only assertions), so a ``verify:`` step may make it."""
        return False


T = TypeVar("T")


class Deferred(Generic[T]):
    """A value made when it is first read: see :func:`deferred`."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], T]) -> None:
        self.make = make


def deferred(make: Callable[[], T]) -> T:
    """A :class:`ToolSpec` ``input_schema`` or ``secret_fields`` made by ``make`` when first read.

    A Python tool's input model and JSON Schema are built by pydantic, a few milliseconds a
    tool: made on first read, a command pays only for the tools it shows or calls (``trailblaze
    mcp`` lists a dozen of the ~80 built-in ones). Copies of a spec share ``make``, which should
    cache what it builds."""
    return cast(T, Deferred(make))


class _MadeOnFirstRead:
    """A :class:`ToolSpec` field that may hold a :class:`Deferred` value until it is read."""

    def __init__(self, name: str) -> None:
        self.attribute = f"_{name}"

    def __get__(self, obj: object | None, owner: type) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.attribute]
        if isinstance(value, Deferred):
            value = obj.__dict__[self.attribute] = value.make()
        return value

    def __set__(self, obj: object, value: Any) -> None:
        obj.__dict__[self.attribute] = value


@dataclass
class ToolSpec:
    """One registered tool. ``source`` names the plugin, server or file it came from.

    ``input_schema`` and ``secret_fields`` may be :func:`deferred`: made when first read."""

    name: str
    description: str
    input_schema: dict[str, Any]
    metadata: ToolMetadata
    implementation: ToolImplementation
    source: str = ""
    secret_fields: frozenset[str] = frozenset()
    #: why this tool cannot run here (a Kotlin-only or scripted upstream tool); trails using it
    #: fail validation with this reason
    unavailable: str | None = None
    #: the MCP server's own name and version (seed 000's registry ``serverInfo``), if it said
    server_info: dict[str, str] | None = None

    def validate(self, args: Mapping[str, Any]) -> Any:
        return self.implementation.validate(strip_reason(args))

    def with_source(self, source: str) -> ToolSpec:
        """This tool as registered by ``source`` (what is deferred stays deferred)."""
        copied = copy.copy(self)
        copied.source = source
        return copied

    def to_registry(self) -> dict[str, Any]:
        """The entry ``trailblaze tools --json`` prints (seed 000's registry keys)."""
        meta = self.metadata.to_registry()
        entry = {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "inputSchema": self.input_schema,
            **meta,
        }
        if self.server_info is not None:
            entry["serverInfo"] = self.server_info
        if self.unavailable is not None:
            entry["unavailable"] = self.unavailable
        return entry


# read through _MadeOnFirstRead, set by the dataclass __init__ (which keeps their defaults)
ToolSpec.input_schema = _MadeOnFirstRead("input_schema")  # type: ignore[assignment]
ToolSpec.secret_fields = _MadeOnFirstRead("secret_fields")  # type: ignore[assignment]


def strip_reason(args: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if k not in REASON_KEYS}


@dataclass(slots=True)
class ToolContext:
    """What a running tool knows and can use. Plugin authors receive this as ``ctx``.

    * ``commands`` — the device API (:class:`trailblaze.Commands`); query-only while delegating.
    * ``driver`` — the driver's own device object (a :class:`trailblaze.Device`) for
      driver-specific tools (``ctx.driver.page`` is the Playwright page on ``playwright-native``;
      narrow the type with ``isinstance`` or ``typing.cast`` to use it).
    * ``device`` — id, platform, driver, width, height.
    * ``memory`` — values remembered during the trail (``{{memory.x}}`` in trails).
    * ``session_id`` / ``invocation_id`` — correlate logs and callbacks.
    * ``timeout`` — seconds an action or assertion may wait for the UI in this call.
    * ``trail_path`` / ``base_url`` / ``artifacts_dir`` — where the trail is, what ``/path`` URLs
      join, where snapshots go.
    * ``mark_broken`` — tell the runner the session can no longer be trusted (an MCP server
      died): it closes the session after the current trail (None outside a session).
    * ``app_target`` — the session's app target as upstream's scripted tools read it (id,
      display name, app ids), or None (None outside a session).
    * ``secrets`` — the secret values the session's calls used (``web_fillSecret``, ``${ENV}``):
      mask them in whatever the tool shows or writes (:mod:`trailblaze.device.masking`).
    * ``session`` — the session the call runs in (a :class:`trailblaze.Session`; None outside
      one), for tools that need more of it than the callbacks above: typed :class:`ToolSession`,
      what tools may use of it, so that the tools layer imports nothing above it.
    * ``run_trail`` — run another trail's recordings inside this call (the ``runTrail`` tool);
      the runner sets it, so tools never import the runner.
    * ``run_tool`` — run any tool of the session by name and arguments, validated and resolved
      as a trail's call (``await ctx.run_tool("web_click", {"ref": "css=#go"})``), returning
      what it returned; a failure raises. Inside a delegating tool these calls are recorded
      in its place; inside an executable tool only the tool's own call is. The resolver sets
      it; calls nest at most 16 deep.
    """

    commands: Commands
    driver: ToolDevice
    device: DeviceInfo
    memory: dict[str, Any]
    session_id: str
    invocation_id: str
    tool: ToolSpec
    call: ToolCall
    timeout: float = 10.0
    trail_path: Path | None = None
    base_url: str | None = None
    artifacts_dir: Path | None = None
    mark_broken: Callable[[str], None] | None = None
    app_target: Callable[[], dict[str, Any] | None] | None = None
    secrets: set[str] = field(default_factory=set)
    session: ToolSession | None = None
    run_trail: Callable[[str], Awaitable[str]] | None = None
    run_tool: Callable[[str, Mapping[str, Any]], Awaitable[Any]] | None = None

    @property
    def delegating(self) -> bool:
        return self.tool.metadata.delegating
