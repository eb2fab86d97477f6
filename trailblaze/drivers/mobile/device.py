"""A device whose screen is a hierarchy of nodes with bounds, acted on by coordinates.

Android (uiautomator2) and iOS (WebDriverAgent) work the same way from Trailblaze's side: fetch
the hierarchy, find the node a selector means (:mod:`trailblaze.drivers.mobile.matching`), touch its centre. This
class implements the :class:`~trailblaze.Commands` API once on top of a few blocking primitives
each platform provides (``dump``, ``tap_at``, ``swipe_between``, ``type_text``…).

Waiting, the way a Maestro or Playwright user expects it:

* **Polling.** Actions and assertions fetch the hierarchy, evaluate everything the call needs
  against that one snapshot (target, anchors, index), and repeat every ``poll_interval`` until
  the target is there or the timeout passes. A failure says what *was* on screen.
* **Settling.** After every action the device fetches hierarchies back to back until two in a
  row are identical (bounded by ``settle_timeout``; 0 turns it off): animations and transitions
  finish before the next step looks. There are no fixed sleeps.
* **Reuse.** The settled snapshot is the first poll of whatever comes next, as long as nothing
  acted on the device since and it is younger than ``snapshot_ttl``, so a tap after a tap costs
  one hierarchy fetch less. :meth:`view_hierarchy` always fetches afresh. A document identical
  to the last one parsed is not parsed again (the tree is a snapshot: treat it as read-only).

Client calls run on the device's :class:`DeviceWorker` thread; errors from the client library
(the connection dropped, the device went away) become :class:`InfrastructureError` (exit 2)
naming the device, while "the element is not there" is a :class:`ToolFailure` (the step fails).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from trailblaze.api.driver import Device
from trailblaze.core.errors import InfrastructureError, ToolFailure, TrailblazeError
from trailblaze.core.limits import MAX_GESTURE_MS
from trailblaze.device.commands import DeviceInfo, ScreenState, ViewNode, action, assertion, query
from trailblaze.device.selectors import NodeSelector, text_matches
from trailblaze.drivers.mobile.matching import Screen, Selector, as_selector, describe, text_selector
from trailblaze.drivers.mobile.worker import DeviceWorker

T = TypeVar("T")
Point = tuple[int, int]
#: where two fingers are
Fingers = tuple[Point, Point]

KEYS = ("BACK", "ENTER", "HOME", "BACKSPACE", "TAB", "ESCAPE")
DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
LAUNCH_MODES = ("REINSTALL", "RESUME", "FORCE_RESTART")
#: how far a swipe travels, as a fraction of the screen (or from the element it starts on)
SWIPE_SPAN = 0.4
LONG_PRESS_MS = 1000
#: the distance between a pinch's fingers when they are furthest apart, as a fraction of the
#: screen's shorter side
PINCH_SPAN = 0.6
#: how far a pinch may scale: beyond this the fingers would start or end on top of each other
PINCH_LIMITS = (0.05, 20.0)


@dataclass(slots=True)
class Snapshot:
    raw: str
    screen: Screen
    taken: float


class MobileDevice(Device):
    """Commands for a hierarchy-and-coordinates device. Subclasses provide the blocking
    primitives in the "platform" section; everything here runs them on :attr:`worker`."""

    platform_name: ClassVar[str]
    poll_interval: float = 0.1
    #: seconds a snapshot stays usable as the first poll of the next call (if nothing acted)
    snapshot_ttl: float = 0.5

    def __init__(self, info: DeviceInfo, worker: DeviceWorker, *, timeout: float, settle_timeout: float) -> None:
        self.device = info
        self.worker = worker
        self.default_timeout = timeout
        self.settle_timeout = settle_timeout
        self._snapshot: Snapshot | None = None
        self._parsed: tuple[str, Screen] | None = None  # the last document parsed (worker thread only)
        self._ref_screen: Screen | None = None
        self._closed = False
        #: what Maestro's ``copyTextFrom`` copied last (``pasteText`` types it)
        self.copied_text: str | None = None

    # -- platform: blocking primitives (run on the worker thread) -----------------------------------

    def dump(self) -> str:
        """The raw hierarchy document, exactly as the client returns it."""
        raise NotImplementedError

    def parse(self, raw: str) -> ViewNode:
        raise NotImplementedError

    def tap_at(self, x: int, y: int, duration_ms: int | None) -> None:
        raise NotImplementedError

    def swipe_between(self, start: tuple[int, int], end: tuple[int, int], duration_ms: int) -> None:
        raise NotImplementedError

    def pinch_between(self, start: Fingers, end: Fingers, duration_ms: int) -> None:
        """Move two fingers at once from the ``start`` points to the ``end`` points."""
        raise NotImplementedError(f"two-finger gestures are not supported on {self.device.platform} here")

    def type_text(self, text: str) -> None:
        raise NotImplementedError

    def erase(self, count: int | None, current: str | None) -> None:
        """Delete ``count`` characters before the cursor (None: the whole field, whose text is
        ``current`` when known)."""
        raise NotImplementedError

    def press(self, key: str) -> None:
        """Press one of :data:`KEYS`."""
        raise NotImplementedError

    def dismiss_keyboard(self) -> bool:
        """Hide the on-screen keyboard if it is shown; whether it was."""
        raise NotImplementedError

    def start_app(self, app_id: str, mode: str, timeout: float, arguments: dict[str, Any] | None = None) -> None:
        """Launch ``app_id`` (mode: one of :data:`LAUNCH_MODES`) and wait until it is in front;
        ``arguments`` are launch arguments (Android: intent extras; iOS: launch arguments)."""
        raise NotImplementedError

    def set_permissions(self, app_id: str, permissions: dict[str, str]) -> None:
        """Grant (``allow``) or revoke (``deny``/``unset``) app permissions; ``all`` means every
        permission the app asks for."""
        raise NotImplementedError(f"setting app permissions is not supported on {self.device.platform}")

    def airplane_mode(self, enabled: bool | None) -> bool:
        """Turn airplane mode on or off (None: toggle it); whether it is on afterwards."""
        raise NotImplementedError(f"airplane mode cannot be switched on {self.device.platform} here")

    def set_clipboard_text(self, text: str) -> None:
        raise NotImplementedError(f"the clipboard is not reachable on {self.device.platform} here")

    def clipboard_text(self) -> str:
        raise NotImplementedError(f"the clipboard is not reachable on {self.device.platform} here")

    def terminate_app(self, app_id: str) -> None:
        raise NotImplementedError

    def wipe_app(self, app_id: str) -> None:
        raise NotImplementedError

    def open_link(self, url: str) -> None:
        raise NotImplementedError

    def screenshot(self) -> tuple[bytes, str]:
        """Image bytes and their format ("png" or "jpeg")."""
        raise NotImplementedError

    def release(self) -> None:
        """Let go of the device's client (on the worker thread)."""

    def client_errors(self) -> tuple[type[BaseException], ...]:
        """Exceptions of the client library that mean the device or its connection failed."""
        return (OSError,)

    # -- running client calls ------------------------------------------------------------------------

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking client call on the device's thread; client failures become
        :class:`InfrastructureError` naming the device."""
        if self._closed:
            raise InfrastructureError(f"{self._name()} is closed")
        try:
            return await self.worker.run(fn, *args)
        except (TrailblazeError, ToolFailure, NotImplementedError):
            raise
        except self.client_errors() as exc:
            raise InfrastructureError(f"{self._name()}: {self.explain(exc)}") from None

    def explain(self, exc: BaseException) -> str:
        """One line about a client error (subclasses recognise "device gone" and the like)."""
        text = " ".join(str(exc).split())
        return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

    def _name(self) -> str:
        return f"{self.device.platform} device {self.device.id}"

    async def act(self, fn: Callable[..., T], *args: Any) -> T:
        """Run an action, then let the screen settle; keep the settled hierarchy for the next poll."""
        self._snapshot = None
        result, snapshot = await self.call(self._act_and_settle, fn, args)
        if snapshot is not None:
            self._snapshot = snapshot
        return result

    def _act_and_settle(self, fn: Callable[..., T], args: tuple[Any, ...]) -> tuple[T, Snapshot | None]:
        result = fn(*args)
        return result, self._settle()

    def _settle(self) -> Snapshot | None:
        """Fetch hierarchies until two in a row are equal, at most ``settle_timeout`` seconds."""
        if self.settle_timeout <= 0:
            return None
        deadline = time.monotonic() + self.settle_timeout
        previous = self.dump()
        while True:
            current = self.dump()
            if current == previous or time.monotonic() >= deadline:
                break
            previous = current
        return self._snapshot_of(current)

    def _fetch(self) -> Snapshot:
        return self._snapshot_of(self.dump())

    def _snapshot_of(self, raw: str) -> Snapshot:
        """The snapshot of a document; an unchanged screen is not parsed again."""
        parsed = self._parsed
        if parsed is not None and parsed[0] == raw:
            screen = parsed[1]
        else:
            screen = Screen(self.parse(raw), self.device.platform)
            self._parsed = (raw, screen)
        return Snapshot(raw, screen, time.monotonic())

    # -- polling --------------------------------------------------------------------------------------

    def _usable_snapshot(self) -> Snapshot | None:
        kept = self._snapshot
        if kept is not None and time.monotonic() - kept.taken <= self.snapshot_ttl:
            return kept
        return None

    async def screen(self, *, fresh: bool = False) -> Screen:
        """The current screen: the kept snapshot when it is still usable, else a new fetch."""
        kept = None if fresh else self._usable_snapshot()
        if kept is not None:
            return kept.screen
        snapshot = await self.call(self._fetch)
        self._snapshot = snapshot
        return snapshot.screen

    async def wait_for(self, probe: Callable[[Screen], T | None], timeout: float) -> tuple[T | None, Screen]:
        """Poll until ``probe`` returns something other than None, or ``timeout`` seconds pass.
        Returns the probe's result (None on timeout) and the last screen it looked at."""
        deadline = time.monotonic() + timeout
        screen = await self.screen()
        while True:
            found = probe(screen)
            if found is not None or time.monotonic() >= deadline:
                return found, screen
            await asyncio.sleep(self.poll_interval)
            screen = await self.screen(fresh=True)

    def seconds(self, timeout_ms: int | None) -> float:
        return self.default_timeout if timeout_ms is None else max(0.0, timeout_ms / 1000)

    async def locate(
        self,
        selector: Selector | dict[str, Any] | None = None,
        *,
        text: str | None = None,
        id: str | None = None,
        timeout_ms: int | None = None,
    ) -> ViewNode:
        """Wait for the node an action on this target acts on; fail saying what was on screen."""
        target = as_selector(selector)
        timeout = self.seconds(timeout_ms)
        node, screen = await self.wait_for(lambda s: s.target(target, text, id), timeout)
        if node is None:
            raise ToolFailure(
                f"no element matches {describe(target, text, id)} (waited {timeout:g}s); on screen: {screen.outline()}"
            )
        return node

    # -- Commands: actions ------------------------------------------------------------------------------

    @action
    async def tap(
        self,
        text: str | None = None,
        id: str | None = None,
        index: int | None = None,
        selector: Selector | dict[str, Any] | None = None,
        *,
        long_press: bool = False,
        relative_point: tuple[float, float] = (0.5, 0.5),
        timeout_ms: int | None = None,
    ) -> None:
        """Tap the element (by selector, or text/id with an optional index) at its centre, or at
        ``relative_point`` (fractions of its width and height)."""
        if selector is None and index is not None:
            selector, text, id = text_selector(text, id, index), None, None
        await self.tap_element(
            as_selector(selector),
            text=text,
            id=id,
            long_press=long_press,
            relative_point=relative_point,
            timeout_ms=timeout_ms,
        )

    @action
    async def tap_element(
        self,
        target: Selector | None,
        *,
        text: str | None = None,
        id: str | None = None,
        long_press: bool = False,
        relative_point: tuple[float, float] = (0.5, 0.5),
        timeout_ms: int | None = None,
    ) -> ViewNode:
        """:meth:`tap`, returning the node tapped. When the element is on screen already,
        finding and tapping it (and settling) is one trip to the device's thread; otherwise it
        is polled for first."""
        duration = LONG_PRESS_MS if long_press else None
        kept = self._usable_snapshot()
        self._snapshot = None
        node, snapshot = await self.call(self._tap_if_there, target, text, id, kept, relative_point, duration)
        if node is None:
            self._snapshot = snapshot
            node = await self.locate(target, text=text, id=id, timeout_ms=timeout_ms)
            x, y = point_in(node, relative_point)
            await self.act(self.tap_at, x, y, duration)
        else:
            self._snapshot = snapshot
        return node

    def _tap_if_there(
        self,
        target: Selector | None,
        text: str | None,
        id: str | None,
        kept: Snapshot | None,
        relative_point: tuple[float, float],
        duration: int | None,
    ) -> tuple[ViewNode | None, Snapshot | None]:
        """On the worker: find the target in the kept or a new snapshot; if it is there, tap it
        and settle. Returns the node (None: not there) and the snapshot to keep."""
        snapshot = kept or self._fetch()
        node = snapshot.screen.target(target, text, id)
        if node is None:
            return None, snapshot
        x, y = point_in(node, relative_point)
        self.tap_at(x, y, duration)
        return node, self._settle()

    @action
    async def tap_point(self, x: int, y: int, long_press: bool = False) -> None:
        """Tap screen coordinates (pixels on Android, points on iOS)."""
        width, height = self.device.width, self.device.height
        if x < 0 or y < 0 or (width and x >= width) or (height and y >= height):
            raise ToolFailure(f"point ({x}, {y}) is outside the screen ({width}x{height})")
        await self.act(self.tap_at, x, y, LONG_PRESS_MS if long_press else None)

    @action
    async def input_text(self, text: str) -> None:
        """Type into the focused field."""
        await self.act(self.type_text, text)

    @action
    async def erase_text(self, count: int | None = None) -> None:
        """Delete ``count`` characters in the focused field (None: all of them)."""
        if count is not None and count < 0:
            raise ToolFailure(f"cannot erase {count} characters")
        screen = await self.screen()
        focused = next((n for n in screen.nodes if n.focused and n.text is not None), None)
        await self.act(self.erase, count, focused.text if focused is not None else None)

    @action
    async def hide_keyboard(self) -> bool:
        return await self.act(self.dismiss_keyboard)

    @action
    async def press_back(self) -> None:
        await self.act(self.press, "BACK")

    @action
    async def press_home(self) -> None:
        await self.act(self.press, "HOME")

    @action
    async def press_key(self, key: str) -> None:
        name = key.strip().upper()
        if name not in KEYS:
            raise ToolFailure(f"unknown key {key!r} (known: {', '.join(KEYS)})")
        await self.act(self.press, name)

    @action
    async def swipe(
        self,
        direction: str = "UP",
        duration_ms: int | None = None,
        *,
        start: ViewNode | None = None,
    ) -> None:
        """Swipe the finger in ``direction`` (UP moves the content up), across the middle of
        the screen or starting on the ``start`` element."""
        begin, end = self.swipe_path(direction, start)
        await self.act(self.swipe_between, begin, end, duration_ms or 300)

    @action
    async def scroll(self, direction: str = "DOWN", amount: int | None = None) -> None:
        """Scroll the content so that what is further ``direction`` comes into view."""
        await self.swipe(opposite(direction))

    @action
    async def pinch(self, scale: float, duration_ms: int | None = None) -> None:
        if duration_ms is not None and not 0 <= duration_ms <= MAX_GESTURE_MS:
            raise ValueError(f"duration_ms must be from 0 to {MAX_GESTURE_MS} (got {duration_ms})")
        start, end = self.pinch_path(scale)
        await self.act(self.pinch_between, start, end, duration_ms or 500)

    @action
    async def navigate(self, url: str) -> None:
        await self.open_url(url)

    @action
    async def open_url(self, url: str) -> None:
        """Open a deep link or web URL the way the system would."""
        await self.act(self.open_link, url)

    @action
    async def launch_app(
        self,
        app_id: str,
        mode: str | None = None,
        *,
        arguments: dict[str, Any] | None = None,
        permissions: dict[str, str] | None = None,
    ) -> None:
        """Launch an app and wait until it is in front. REINSTALL (the default) clears its data
        first, FORCE_RESTART stops it first, RESUME brings it back as it was. ``permissions``
        (``{"android.permission.CAMERA": "allow"}``, ``{"all": "deny"}``) are set before it
        starts; ``arguments`` go to the app (Android: intent extras; iOS: launch arguments)."""
        launch_mode = (mode or "REINSTALL").upper()
        if launch_mode not in LAUNCH_MODES:
            raise ToolFailure(f"unknown launch mode {mode!r} (known: {', '.join(LAUNCH_MODES)})")
        if permissions:
            if launch_mode == "REINSTALL":  # clearing data resets permissions: clear first
                await self.act(self.wipe_app, app_id)
                launch_mode = "FORCE_RESTART"
            await self.call(self.set_permissions, app_id, permissions)
        await self.act(self.start_app, app_id, launch_mode, self.default_timeout, arguments)

    @action
    async def set_airplane_mode(self, enabled: bool | None) -> bool:
        """Airplane mode on (True) or off (False), or toggled (None); whether it is on now."""
        return await self.act(self.airplane_mode, enabled)

    @action
    async def set_clipboard(self, text: str) -> None:
        await self.call(self.set_clipboard_text, text)

    @query
    async def get_clipboard(self) -> str:
        return await self.call(self.clipboard_text)

    @action
    async def wait_until_still(self, timeout: float) -> bool:
        """Wait until two hierarchies in a row are the same (animations have ended), at most
        ``timeout`` seconds; whether the screen got still."""

        def settle() -> tuple[bool, Snapshot]:
            deadline = time.monotonic() + timeout
            previous = self.dump()
            while True:
                current = self.dump()
                if current == previous:
                    return True, self._snapshot_of(current)
                if time.monotonic() >= deadline:
                    return False, self._snapshot_of(current)
                previous = current

        self._snapshot = None
        still, snapshot = await self.call(settle)
        self._snapshot = snapshot
        return still

    @action
    async def stop_app(self, app_id: str) -> None:
        await self.act(self.terminate_app, app_id)

    @action
    async def clear_app_data(self, app_id: str) -> None:
        await self.act(self.wipe_app, app_id)

    @action
    async def scroll_until_visible(
        self,
        selector: Selector | dict[str, Any],
        direction: str = "DOWN",
        timeout_ms: int | None = None,
        max_swipes: int = 20,
    ) -> ViewNode:
        """Scroll in ``direction`` until the selector matches; fail at the end of the content
        (a swipe that changes nothing), after ``max_swipes`` swipes, or at the timeout. While
        nothing on screen can scroll (the app is still starting), it waits instead of swiping."""
        target = as_selector(selector)
        deadline = time.monotonic() + self.seconds(timeout_ms)
        screen = await self.screen()
        swipes = 0
        while True:
            node = screen.target(target)
            if node is not None:
                return node
            if time.monotonic() >= deadline or swipes >= max_swipes:
                break
            if not any(n.scrollable for n in screen.nodes):  # nothing to scroll (yet): wait for the screen
                await asyncio.sleep(self.poll_interval)
                screen = await self.screen(fresh=True)
                continue
            before = self._snapshot.raw if self._snapshot is not None else None
            await self.scroll(direction)
            swipes += 1
            screen = await self.screen()
            if before is not None and self._snapshot is not None and self._snapshot.raw == before:
                raise ToolFailure(
                    f"scrolled {direction.lower()} to the end without finding {describe(target)}; "
                    f"on screen: {screen.outline()}"
                )
        raise ToolFailure(
            f"{describe(target)} not found after scrolling {direction.lower()}; on screen: {screen.outline()}"
        )

    # -- Commands: queries --------------------------------------------------------------------------------

    async def find(
        self, *, text: str | None = None, id: str | None = None, selector: NodeSelector | None = None
    ) -> list[Any]:
        screen = await self.screen(fresh=True)
        return screen.find(as_selector(selector), text, id)

    @query
    async def view_hierarchy(self) -> ViewNode:
        screen = await self.screen(fresh=True)
        self._ref_screen = screen
        return screen.root

    @query
    async def capture_screen(self) -> ScreenState:
        image, kind = await self.call(self.screenshot)
        root = await self.view_hierarchy()
        return ScreenState(image, root, self.device.width, self.device.height, image_format=kind)

    @query
    async def is_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: Selector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> bool:
        target = as_selector(selector)
        found, _ = await self.wait_for(lambda s: True if s.find(target, text, id) else None, (timeout_ms or 0) / 1000)
        return bool(found)

    @query
    async def get_element_count(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: Selector | dict[str, Any] | None = None,
    ) -> int:
        return (await self.screen(fresh=True)).count(as_selector(selector), text, id)

    @query
    async def get_element_text(
        self, id: str | None = None, selector: Selector | dict[str, Any] | None = None
    ) -> str | None:
        """The text (or, failing that, the accessibility text) of the element, waiting for it
        up to the timeout; None if it never appears."""
        target = as_selector(selector)
        node, _ = await self.wait_for(lambda s: s.target(target, None, id), self.default_timeout)
        if node is None:
            return None
        return node.text if node.text is not None else node.description

    @query
    async def selector_for_ref(self, ref: str) -> dict[str, Any] | None:
        """A stable ``nodeSelector`` for a ref from the last :meth:`view_hierarchy` (refs are
        ``n12``-style and valid for that snapshot only)."""
        screen = self._ref_screen or await self.screen(fresh=True)
        node = screen.node_for_ref(ref)
        if node is None or node.bounds is None:
            return None
        return screen.stable_selector(node)

    # -- Commands: assertions -------------------------------------------------------------------------------

    @assertion
    async def assert_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: Selector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
        *,
        expected_text: str | None = None,
    ) -> None:
        """Wait until the element is visible (and, with ``expected_text``, shows that text)."""
        await self.wait_until_visible(text, id, selector, timeout_ms, expected_text=expected_text)

    @assertion
    async def wait_until_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: Selector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
        *,
        expected_text: str | None = None,
    ) -> None:
        target = as_selector(selector)
        timeout = self.seconds(timeout_ms)

        def probe(screen: Screen) -> ViewNode | None:
            node = screen.target(target, text, id)
            if node is None or expected_text is None:
                return node
            shown = [v for v in (node.text, node.description) if v]
            return node if any(text_matches(expected_text, v) for v in shown) else None

        node, screen = await self.wait_for(probe, timeout)
        if node is not None:
            return
        what = describe(target, text, id)
        if expected_text is not None:
            seen = screen.target(target, text, id)
            if seen is not None:
                raise ToolFailure(
                    f"{what} shows {seen.text or seen.description!r}, expected {expected_text!r} (waited {timeout:g}s)"
                )
        raise ToolFailure(f"{what} is not visible (waited {timeout:g}s); on screen: {screen.outline()}")

    @assertion
    async def assert_not_visible(
        self,
        text: str | None = None,
        id: str | None = None,
        selector: Selector | dict[str, Any] | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        """Wait until nothing matches; fail if something still does at the timeout."""
        target = as_selector(selector)
        timeout = self.seconds(timeout_ms)
        gone, screen = await self.wait_for(lambda s: None if s.find(target, text, id) else True, timeout)
        if gone:
            return
        still = screen.find(target, text, id)
        shown = ", ".join(repr(n.text or n.description or n.id or n.class_name) for n in still[:5])
        raise ToolFailure(f"{describe(target, text, id)} is still visible after {timeout:g}s: {shown}")

    # -- lifecycle -----------------------------------------------------------------------------------------

    async def close(self) -> None:
        if self._closed:
            return
        try:
            await self.worker.run(self.release)
        except Exception:  # closing must not hide the run's own outcome
            pass
        finally:
            self._closed = True
            self.worker.close()

    # -- geometry ----------------------------------------------------------------------------------------------

    def swipe_path(self, direction: str, start: ViewNode | None) -> tuple[tuple[int, int], tuple[int, int]]:
        name = direction.upper()
        if name not in DIRECTIONS:
            raise ToolFailure(f"unknown direction {direction!r} (known: {', '.join(DIRECTIONS)})")
        width, height = self.device.width, self.device.height
        if start is not None:
            x, y = point_in(start, (0.5, 0.5))
        else:
            x, y = width // 2, height // 2
        dx = {"LEFT": -1, "RIGHT": 1}.get(name, 0) * int(width * SWIPE_SPAN)
        dy = {"UP": -1, "DOWN": 1}.get(name, 0) * int(height * SWIPE_SPAN)
        if start is None:  # centre the gesture on the screen
            x, y = x - dx // 2, y - dy // 2
        end = (clamp(x + dx, width), clamp(y + dy, height))
        return (clamp(x, width), clamp(y, height)), end

    def pinch_path(self, scale: float) -> tuple[Fingers, Fingers]:
        """Where a pinch's two fingers start and end: on a horizontal line through the centre of
        the screen, the wider pair :data:`PINCH_SPAN` of the shorter side apart."""
        low, high = PINCH_LIMITS
        if not (low <= scale <= high) or scale == 1:
            raise ValueError(f"scale must be between {low:g} and {high:g} and not 1 (got {scale:g})")
        width, height = self.device.width, self.device.height
        wide = PINCH_SPAN * min(width, height)
        start_distance, end_distance = (wide / scale, wide) if scale > 1 else (wide, wide * scale)
        x, y = width // 2, height // 2

        def fingers(distance: float) -> Fingers:
            half = int(distance / 2)
            return (x - half, y), (x + half, y)

        return fingers(start_distance), fingers(end_distance)


def point_in(node: ViewNode, relative: tuple[float, float]) -> tuple[int, int]:
    b = node.bounds
    if b is None:
        raise ToolFailure(f"{node.class_name or 'element'} has no position on screen")
    fx, fy = relative
    return b.left + int(b.width * fx), b.top + int(b.height * fy)


def clamp(value: int, size: int) -> int:
    if size <= 0:
        return max(0, value)
    return min(max(1, value), size - 2)


def opposite(direction: str) -> str:
    return {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}.get(direction.upper(), direction)


def parse_relative_point(text: str) -> tuple[float, float]:
    """``"50%,50%"`` (upstream's relativePoint) as fractions."""
    try:
        x, y = (part.strip().rstrip("%") for part in text.split(","))
        fx, fy = float(x) / 100, float(y) / 100
    except ValueError:
        raise ToolFailure(f"relativePoint {text!r} is not 'X%,Y%'") from None
    if not (0 <= fx <= 1 and 0 <= fy <= 1):
        raise ToolFailure(f"relativePoint {text!r} is outside the element (0%..100%)")
    return fx, fy
