"""A device whose screen is a hierarchy of nodes with bounds, acted on by coordinates.

Android (uiautomator2) and iOS (WebDriverAgent) work the same way from Trailblaze's side: fetch
the hierarchy, find the node a selector means (:mod:`trailblaze.drivers.mobile.matching`), touch its centre. This
class implements the :class:`~trailblaze.Commands` API once on top of the blocking primitives
each platform provides and the polling and settling of :mod:`trailblaze.drivers.mobile.polling`;
where a gesture goes is :mod:`trailblaze.drivers.mobile.gestures`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from trailblaze.core.errors import ToolFailure
from trailblaze.core.limits import MAX_GESTURE_MS
from trailblaze.device.commands import ScreenState, ViewNode, action, assertion, query
from trailblaze.device.selectors import NodeSelector, text_matches
from trailblaze.drivers.mobile.gestures import LONG_PRESS_MS, opposite, pinch_path, point_in, swipe_path
from trailblaze.drivers.mobile.matching import Screen, Selector, as_selector, describe, text_selector
from trailblaze.drivers.mobile.polling import PollingDevice, Snapshot

KEYS = ("BACK", "ENTER", "HOME", "BACKSPACE", "TAB", "ESCAPE")
LAUNCH_MODES = ("REINSTALL", "RESUME", "FORCE_RESTART")


class MobileDevice(PollingDevice):
    """Commands for a hierarchy-and-coordinates device, on the primitives and the polling of
    :class:`PollingDevice`."""

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
        begin, end = swipe_path(direction, start, self.device.width, self.device.height)
        await self.act(self.swipe_between, begin, end, duration_ms or 300)

    @action
    async def scroll(self, direction: str = "DOWN", amount: int | None = None) -> None:
        """Scroll the content so that what is further ``direction`` comes into view."""
        await self.swipe(opposite(direction))

    @action
    async def pinch(self, scale: float, duration_ms: int | None = None) -> None:
        if duration_ms is not None and not 0 <= duration_ms <= MAX_GESTURE_MS:
            raise ValueError(f"duration_ms must be from 0 to {MAX_GESTURE_MS} (got {duration_ms})")
        start, end = pinch_path(scale, self.device.width, self.device.height)
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
                    f"scrolled {direction.lower()} to the end without finding {describe(target)}; {screen.hint(target)}"
                )
        raise ToolFailure(f"{describe(target)} not found after scrolling {direction.lower()}; {screen.hint(target)}")

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
        raise ToolFailure(f"{what} is not visible (waited {timeout:g}s); {screen.hint(target, text, id)}")

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
