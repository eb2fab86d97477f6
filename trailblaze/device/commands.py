"""The device API every tool sees as ``ctx.commands`` (seed 000's TrailblazeCommands, snake_case).

Three kinds of method, and the kind matters:

* **actions** change the device (``tap``, ``input_text``, ``navigate``…);
* **queries** look and never raise for "not found" (``is_visible``, ``get_element_count``…);
* **assertions** look and raise :class:`~trailblaze.ToolFailure` when the condition does not hold.

A delegating tool may use queries only: it must *return* the actions it wants as delegates, so
that Trailblaze performs and records them. :class:`QueryOnlyCommands` enforces that. The same
interface backs the remote client SDK (``trailblaze.mcpclient.sdk``), so keep it one interface: every
method takes and returns JSON-friendly values.

Each driver implements this class for one device (``web`` through Playwright, ``android``
through uiautomator2, ``ios`` through WebDriverAgent). The defaults below build queries and
assertions from :meth:`Commands.view_hierarchy` and :meth:`Commands.find`, so a driver must at
least provide those two plus the actions it supports.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from trailblaze.core.errors import ToolFailure

if TYPE_CHECKING:
    from trailblaze.device.selectors import NodeSelector

CommandKind = Literal["action", "query", "assertion"]
_F = TypeVar("_F", bound=Callable[..., Awaitable[Any]])


def _kind(kind: CommandKind) -> Callable[[_F], _F]:
    def mark(fn: _F) -> _F:
        fn.__trailblaze_command__ = kind  # type: ignore[attr-defined]
        return fn

    return mark


action = _kind("action")
query = _kind("query")
assertion = _kind("assertion")


def command_kind(cls: type, name: str) -> CommandKind | None:
    """The kind of public command ``name`` on ``cls``, or None if it is not a command."""
    for klass in cls.__mro__:
        fn = klass.__dict__.get(name)
        if fn is not None:
            kind: CommandKind | None = getattr(fn, "__trailblaze_command__", None)
            if kind is not None:
                return kind
    return None


def command_names(cls: type) -> dict[str, CommandKind]:
    names: dict[str, CommandKind] = {}
    for klass in reversed(cls.__mro__):
        for name, fn in klass.__dict__.items():
            kind = getattr(fn, "__trailblaze_command__", None)
            if kind is not None and not name.startswith("_"):
                names[name] = kind
    return names


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What a tool may know about its device without asking it (seed 000's static context)."""

    id: str
    platform: str  # "web" | "android" | "ios"
    driver: str  # driver key, e.g. "playwright-native"
    width: int = 0
    height: int = 0
    model: str | None = None
    classifiers: tuple[str, ...] = ()
    #: "available", or why not (adb's "offline"/"unauthorized", "unreachable")
    state: str = "available"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "platform": self.platform,
            "driver": self.driver,
            "width": self.width,
            "height": self.height,
        }


@dataclass(slots=True)
class Bounds:
    left: int
    top: int
    right: int
    bottom: int

    @property
    def center(self) -> tuple[int, int]:
        return (self.left + self.right) // 2, (self.top + self.bottom) // 2

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top


@dataclass(slots=True, eq=False)
class ViewNode:
    """One element of the screen model shared by all drivers.

    ``text`` is the visible text (web: the accessible name), ``id`` the resource id /
    accessibility identifier / DOM id, ``class_name`` the widget class or ARIA role,
    ``description`` the content description / accessibility label. ``ref`` is an ephemeral
    handle valid for the snapshot it came from (web: Playwright's ``aria-ref``).
    """

    text: str | None = None
    id: str | None = None
    class_name: str | None = None
    description: str | None = None
    hint: str | None = None
    bounds: Bounds | None = None
    enabled: bool = True
    checked: bool | None = None
    selected: bool = False
    focused: bool = False
    clickable: bool = False
    scrollable: bool = False
    password: bool = False
    visible: bool = True
    ref: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    children: list[ViewNode] = field(default_factory=list)
    parent: ViewNode | None = field(default=None, repr=False)

    def walk(self) -> Iterator[ViewNode]:
        """This node and all its descendants, depth first, document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def texts(self) -> list[str]:
        return [t for n in self.walk() for t in (n.text, n.description) if t]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in ("text", "id", "class_name", "description", "hint", "ref"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.bounds is not None:
            b = self.bounds
            out["bounds"] = [b.left, b.top, b.right, b.bottom]
        for key in ("checked", "selected", "focused", "clickable", "scrollable", "password"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if not self.enabled:
            out["enabled"] = False
        if self.children:
            out["children"] = [c.to_dict() for c in self.children]
        return out

    def outline(self, limit: int = 40) -> str:
        """A compact, human-readable list of what is on screen (for error messages). A list's
        options are counted, not listed (``combobox 'Plan' (3 options)``): a country picker's
        200 options would push everything else out of the message."""
        lines: list[str] = []
        for node in self.walk():
            if node.class_name in _OPTION_ROLES:
                continue
            label = node.text or node.description or node.id
            if not label:
                continue
            kind = node.class_name or "node"
            options = sum(1 for n in node.walk() if n.class_name in _OPTION_ROLES) if kind in _LIST_ROLES else 0
            lines.append(f"{kind} {label!r}" + (f" ({options} options)" if options else ""))
            if len(lines) >= limit:
                lines.append("…")
                break
        return "; ".join(lines) if lines else "(nothing with text on screen)"


#: roles of a list's choices, and of the lists holding them (ARIA's, as the web driver names nodes)
_OPTION_ROLES = frozenset({"option"})
_LIST_ROLES = frozenset({"combobox", "listbox"})


@dataclass(slots=True)
class ScreenState:
    """A picture of the device at one moment: screenshot (PNG or JPEG bytes) and hierarchy."""

    screenshot: bytes | None
    hierarchy: ViewNode
    width: int
    height: int
    url: str | None = None
    image_format: str = "png"


class Commands:
    """The device API. See the module docstring for the action/query/assertion contract."""

    device: DeviceInfo
    default_timeout: float = 10.0
    poll_interval: float = 0.1

    @property
    def platform(self) -> str:
        return self.device.platform

    # -- the primitives a driver provides -------------------------------------------------

    async def find(
        self, *, text: str | None = None, id: str | None = None, selector: NodeSelector | None = None
    ) -> list[Any]:
        """Elements matching the criteria now (driver-specific handles), no waiting."""
        raise NotImplementedError(f"{type(self).__name__} cannot find elements")

    # -- actions -----------------------------------------------------------------------------

    @action
    async def tap(
        self,
        text: str | None = None,
        id: str | None = None,
        index: int | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
    ) -> None:
        raise NotImplementedError(self._unsupported("tap"))

    @action
    async def input_text(self, text: str) -> None:
        raise NotImplementedError(self._unsupported("input_text"))

    @action
    async def launch_app(self, app_id: str, mode: str | None = None) -> None:
        raise NotImplementedError(self._unsupported("launch_app"))

    @action
    async def stop_app(self, app_id: str) -> None:
        raise NotImplementedError(self._unsupported("stop_app"))

    @action
    async def clear_app_data(self, app_id: str) -> None:
        raise NotImplementedError(self._unsupported("clear_app_data"))

    @action
    async def press_back(self) -> None:
        raise NotImplementedError(self._unsupported("press_back"))

    @action
    async def press_key(self, key: str) -> None:
        raise NotImplementedError(self._unsupported("press_key"))

    @action
    async def swipe(self, direction: str = "UP", duration_ms: int | None = None) -> None:
        raise NotImplementedError(self._unsupported("swipe"))

    @action
    async def scroll(self, direction: str = "DOWN", amount: int | None = None) -> None:
        raise NotImplementedError(self._unsupported("scroll"))

    @action
    async def navigate(self, url: str) -> None:
        raise NotImplementedError(self._unsupported("navigate"))

    @action
    async def fill(self, selector: str, value: str, timeout_ms: int | None = None) -> None:
        """Replace the content of the field ``selector`` finds with ``value`` (web: a Playwright
        selector such as ``#email`` or ``css=input[name=q]``)."""
        raise NotImplementedError(self._unsupported("fill"))

    @action
    async def evaluate_js(self, script: str, arg: Any = None) -> Any:
        """Run JavaScript in the page and return its JSON result: an expression, or a function
        called with ``arg``. An action, because a script may change the page."""
        raise NotImplementedError(self._unsupported("evaluate_js"))

    @action
    async def pinch(self, scale: float, duration_ms: int | None = None) -> None:
        """Two fingers around the centre of the screen: apart for ``scale`` > 1 (zoom in),
        together for ``scale`` < 1 (zoom out); the distance between them ends ``scale`` times
        what it started as."""
        raise NotImplementedError(self._unsupported("pinch"))

    # -- queries (never raise for "not found") -----------------------------------------------

    @query
    async def view_hierarchy(self) -> ViewNode:
        raise NotImplementedError(self._unsupported("view_hierarchy"))

    @query
    async def capture_screen(self) -> ScreenState:
        raise NotImplementedError(self._unsupported("capture_screen"))

    @query
    async def is_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> bool:
        """True when a matching element is visible; with ``timeout_ms``, waits up to that long."""
        return await self._poll(lambda: self._count(text, id, selector), (timeout_ms or 0) / 1000) > 0

    @query
    async def has_text(self, text: str) -> bool:
        return await self.is_visible(text=text)

    @query
    async def get_element_count(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
    ) -> int:
        return await self._count(text, id, selector)

    @query
    async def get_element_text(
        self, id: str | None = None, selector: NodeSelector | dict[str, Any] | None = None
    ) -> str | None:
        raise NotImplementedError(self._unsupported("get_element_text"))

    @query
    async def selector_for_ref(self, ref: str) -> dict[str, Any] | None:
        """A stable ``nodeSelector`` for the element an ephemeral ref points at (None: no such ref)."""
        raise NotImplementedError(self._unsupported("selector_for_ref"))

    # -- assertions (raise ToolFailure) ------------------------------------------------------

    @assertion
    async def assert_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        await self.wait_until_visible(text=text, id=id, selector=selector, timeout_ms=timeout_ms)

    @assertion
    async def wait_until_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        timeout = self.default_timeout if timeout_ms is None else timeout_ms / 1000
        if await self._poll(lambda: self._count(text, id, selector), timeout) > 0:
            return
        from trailblaze.device.nearest import screen_hint, wanted_texts

        node_selector = as_node_selector(selector)
        looked_for = {"text": text, "id": id, "selector": node_selector and node_selector.model_dump(exclude_none=True)}
        hint = screen_hint(wanted_texts(looked_for), await self.view_hierarchy())
        raise ToolFailure(f"{describe_target(text, id, selector)} not visible after {timeout:g}s; {hint}")

    @assertion
    async def wait_for_selector(self, selector: str, timeout_ms: int | None = None, state: str = "visible") -> None:
        """Wait until the element ``selector`` finds is in ``state`` (``visible``, ``hidden``,
        ``attached``, ``detached``); fail after ``timeout_ms`` (default: the call's timeout)."""
        raise NotImplementedError(self._unsupported("wait_for_selector"))

    # -- helpers -----------------------------------------------------------------------------

    async def _count(self, text: str | None, id: str | None, selector: NodeSelector | dict[str, Any] | None) -> int:
        return len(await self.find(text=text, id=id, selector=as_node_selector(selector)))

    async def _poll(self, probe: Callable[[], Awaitable[int]], timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while True:
            found = await probe()
            if found or time.monotonic() >= deadline:
                return found
            await asyncio.sleep(self.poll_interval)

    def _unsupported(self, name: str) -> str:
        return f"{name} is not supported by the {self.device.driver} driver"


def as_node_selector(selector: NodeSelector | dict[str, Any] | None) -> NodeSelector | None:
    from trailblaze.device.selectors import NodeSelector

    if selector is None or isinstance(selector, NodeSelector):
        return selector
    return NodeSelector.model_validate(selector)


def describe_target(
    text: str | None = None, id: str | None = None, selector: NodeSelector | dict[str, Any] | None = None
) -> str:
    parts = []
    if text is not None:
        parts.append(f"text {text!r}")
    if id is not None:
        parts.append(f"id {id!r}")
    if selector is not None:
        parts.append(f"selector ({as_node_selector(selector).describe()})")  # type: ignore[union-attr]
    return "element with " + " and ".join(parts) if parts else "element"


class QueryOnlyCommands:
    """``ctx.commands`` for a delegating tool: queries and assertions pass, actions are refused."""

    def __init__(self, commands: Commands, tool_name: str) -> None:
        self._commands = commands
        self._tool_name = tool_name

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._commands, name)
        if command_kind(type(self._commands), name) == "action":
            tool = self._tool_name

            async def refused(*args: Any, **kwargs: Any) -> Any:
                raise DelegationViolation(
                    f"delegating tool {tool!r} called the action {name}() through ctx.commands; "
                    f"a delegating tool may only query the device and must return the actions as "
                    f"delegates (trailblaze.Delegate) so Trailblaze performs and records them"
                )

            return refused
        return value


class DelegationViolation(Exception):
    """A delegating tool tried to act on the device instead of returning delegates."""


class BlockingCommands:
    """``ctx.commands`` for a plain ``def`` tool, which runs in a worker thread.

    Each async command is run on the engine's event loop and waited for, so sync tool code
    calls ``ctx.commands.tap(text="OK")`` without ``await``.
    """

    def __init__(self, commands: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._commands = commands
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._commands, name)
        if not inspect.iscoroutinefunction(value):
            return value

        def blocking(*args: Any, **kwargs: Any) -> Any:
            return asyncio.run_coroutine_threadsafe(value(*args, **kwargs), self._loop).result()

        return blocking
