"""The screen of a hierarchy-and-coordinates device, read and waited for.

:class:`PollingDevice` declares the few blocking primitives each platform provides (``dump``,
``tap_at``, ``swipe_between``, ``type_text``…) and runs them on the device's
:class:`DeviceWorker` thread; :class:`~trailblaze.drivers.mobile.device.MobileDevice` builds the
Commands API on it. Waiting, the way a Maestro or Playwright user expects it:

* **Polling.** Actions and assertions fetch the hierarchy, evaluate everything the call needs
  against that one snapshot (target, anchors, index), and repeat every ``poll_interval`` until
  the target is there or the timeout passes. A failure says what *was* on screen.
* **Settling.** After every action the device fetches hierarchies back to back until two in a
  row are identical (bounded by ``settle_timeout``; 0 turns it off): animations and transitions
  finish before the next step looks. There are no fixed sleeps.
* **Reuse.** The settled snapshot is the first poll of whatever comes next, as long as nothing
  acted on the device since and it is younger than ``snapshot_ttl``, so a tap after a tap costs
  one hierarchy fetch less. ``view_hierarchy`` always fetches afresh. A document identical
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
from trailblaze.device.commands import DeviceInfo, ViewNode
from trailblaze.drivers.mobile.gestures import Fingers
from trailblaze.drivers.mobile.matching import Screen, Selector, as_selector, describe
from trailblaze.drivers.mobile.worker import DeviceWorker

T = TypeVar("T")


@dataclass(slots=True)
class Snapshot:
    raw: str
    screen: Screen
    taken: float


class PollingDevice(Device):
    """A device whose screen is a hierarchy of nodes with bounds. Subclasses provide the blocking
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
        """Press one of :data:`~trailblaze.drivers.mobile.device.KEYS`."""
        raise NotImplementedError

    def dismiss_keyboard(self) -> bool:
        """Hide the on-screen keyboard if it is shown; whether it was."""
        raise NotImplementedError

    def start_app(self, app_id: str, mode: str, timeout: float, arguments: dict[str, Any] | None = None) -> None:
        """Launch ``app_id`` (``mode``: one of
        :data:`~trailblaze.drivers.mobile.device.LAUNCH_MODES`) and wait until it is in front;
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
        settled: tuple[T, Snapshot | None] = await self.call(self._act_and_settle, fn, args)
        result, snapshot = settled
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
        Returns the probe's result (None on timeout) and the last screen it looked at. A wait
        with a timeout looks at a fresh screen at least once: the first look may be at the
        screen kept from the last action, and may itself outlast the timeout (the first
        case-insensitive match of a process builds its tables)."""
        deadline = time.monotonic() + timeout
        screen = await self.screen()
        first = True
        while True:
            found = probe(screen)
            if found is not None or (time.monotonic() >= deadline and not (first and timeout > 0)):
                return found, screen
            first = False
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
            what = describe(target, text, id)
            raise ToolFailure(f"no element matches {what} (waited {timeout:g}s); {screen.hint(target, text, id)}")
        return node
