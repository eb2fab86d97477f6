"""The web driver's device: one browser context and page per trail, and the device commands
(actions, assertions, queries) on it, with Playwright's errors turned into tool failures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import tempfile
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urljoin

from trailblaze.api.driver import Device
from trailblaze.core.errors import InfrastructureError, ToolFailure, UsageError
from trailblaze.core.limits import MAX_WAIT_SECONDS, one_line
from trailblaze.device.commands import (
    DeviceInfo,
    ScreenState,
    ViewNode,
    action,
    as_node_selector,
    assertion,
    query,
)
from trailblaze.device.selectors import NodeSelector
from trailblaze.drivers.web import aria, elements, locators, stable
from trailblaze.drivers.web.browser import VIEWPORT

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Locator, Page

    from trailblaze.drivers.web.elements import PageElement
    from trailblaze.trail.model import Step, Trail

#: the web driver's key (``PlaywrightDriver.key``), which its devices report
DRIVER_KEY = "playwright-native"
#: ``--trace``: a Playwright trace per trail — always, never, kept only when the trail failed, or
#: recorded on a trail's first ``--retries`` retry only (Playwright Test's default)
TRACE_MODES = ("on", "off", "retain-on-failure", "on-first-retry")
#: console messages kept per trail (the newest; a chatty page must not fill the memory)
CONSOLE_LIMIT = 1000
#: what ``wait_for_selector`` may wait for (Playwright's element states)
SELECTOR_STATES = ("attached", "detached", "visible", "hidden")
#: seconds a page has to run ``0`` when a call on it timed out: a page that cannot is stuck
PAGE_PROBE_S = 1.0
#: what get_element_text reads of an element: a field's value, else its text
_TEXT_OR_VALUE = "e => ('value' in e && typeof e.value === 'string' && e.tagName !== 'BUTTON') ? e.value : e.innerText"
#: how many devices are in a trail, per browser: a device alone in its browser opens the next
#: trail's context while it runs (:meth:`WebDevice.start_trail`); beside other trails (``run
#: --workers 4``) the cores are busy with theirs, and a context opened for a trail that never
#: comes is work for nothing
_IN_TRAIL: weakref.WeakKeyDictionary[Browser, int] = weakref.WeakKeyDictionary()


class WebDevice(Device):
    """One browser "device": a fresh context and page per trail."""

    selector_tap_tool: ClassVar[str] = "web_click"
    selector_assert_tool: ClassVar[str] = "web_verifyElementVisible"

    def __init__(self, browser: Browser, base_url: str | None, timeout: float, trace: str = "off") -> None:
        self.browser = browser
        #: one of :data:`TRACE_MODES`
        self.trace = trace
        #: a trace of the current context is being recorded
        self.tracing = False
        #: which run of the current trail this is (0 the first, 1 the first retry): set by the
        #: web plugin when a trail starts, for ``on-first-retry``
        self.attempt = 0
        #: what the trail's pages wrote to the console, and their uncaught errors
        self.console: deque[str] = deque(maxlen=CONSOLE_LIMIT)
        self.base_url = base_url
        self.default_timeout = timeout
        self.device = DeviceInfo(
            id="chromium",
            platform="web",
            driver=DRIVER_KEY,
            width=VIEWPORT["width"],
            height=VIEWPORT["height"],
            model=f"Chromium {browser.version}",
            classifiers=("web",),
        )
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        #: trails this device has started: from the second on, each trail's start also opens the
        #: next one's context (:meth:`_open_spare`), so a device that runs one trail makes none
        self._trails_started = 0
        #: between start_trail and end_trail (counted in :data:`_IN_TRAIL`)
        self._in_trail = False
        #: whether a trail is likely to follow the one starting: a runner that knows none will
        #: (the pytest plugin, for a worker's last item) clears it, and no context is opened ahead
        self.more_trails = True
        #: the next trail's context and page, being opened while the current trail runs
        self._spare: asyncio.Task[tuple[BrowserContext, Page]] | None = None
        #: the contexts of finished trails, closing while the next trail runs
        self._closing: set[asyncio.Task[None]] = set()
        self._snapshot: ViewNode | None = None
        #: the page-elements list of the last snapshot: what its refs name
        self._elements: dict[str, PageElement] = {}
        #: every request the trail's pages sent: (URL, body as text), for web_assertNetworkEvent
        self.requests: list[tuple[str, str]] = []
        #: the page stopped answering (a script that does not return): nothing more is asked of it
        self.stuck = False

    @property
    def page(self) -> Page:
        if self._page is None:
            raise InfrastructureError("no page is open (the browser context was closed)")
        return self._page

    @property
    def timeout_ms(self) -> float:
        return self.default_timeout * 1000

    async def answers(self) -> bool:
        """Whether the page's script still runs anything: a call that timed out on a page stuck
        in ``while (true) {}`` (or in one dialog after another) waited for nothing, and every
        further look at the page — the message's outline, the failure's screenshot — would wait
        its own timeout too. The answer is kept as :attr:`stuck` for the evidence of the step."""
        if self._page is None:
            return True
        try:
            await asyncio.wait_for(self._page.evaluate("0"), PAGE_PROBE_S)
        except TimeoutError:
            self.stuck = True
        except Exception:  # closed, crashed: not stuck, and the caller's own error says so
            self.stuck = False
        else:
            self.stuck = False
        return not self.stuck

    async def start_trail(self, trail: Trail) -> None:
        await self._new_page(trail.title)
        self._trails_started += 1
        if not self._in_trail:
            self._in_trail = True
            _IN_TRAIL[self.browser] = _IN_TRAIL.get(self.browser, 0) + 1
        if self.more_trails and self._trails_started > 1 and self._spare is None and _IN_TRAIL[self.browser] == 1:
            self._spare = asyncio.ensure_future(self._open_context())

    async def _new_page(self, title: str | None = None) -> None:
        await self.end_trail(None)
        self.stuck = False
        self._context, self._page = await self._fresh_context()
        self.requests = []
        self.console.clear()
        if self.trace in ("on", "retain-on-failure") or (self.trace == "on-first-retry" and self.attempt == 1):
            # DOM snapshots show every action in the trace viewer; the screencast (screenshots=True)
            # cost ~10% of a passing run (benchmarks/run.py evidence)
            await self._context.tracing.start(screenshots=False, snapshots=True, title=title)
            self.tracing = True

    async def _fresh_context(self) -> tuple[BrowserContext, Page]:
        """A context and page no trail has used: the spare opened while the last trail ran, when
        there is one and it opened, else one opened now (whose failure is the one reported)."""
        spare = self._spare
        if spare is not None:
            await asyncio.wait([spare])
            self._spare = None
            if not spare.cancelled() and spare.exception() is None:
                return spare.result()
        return await self._open_context()

    async def _open_context(self) -> tuple[BrowserContext, Page]:
        """A new context with its page, listened to from the start: a page costs the browser a
        renderer process (about 30 ms, six times the context), so the next trail's is opened
        while the current trail runs (docs/performance.md, "Against the peers")."""
        context = await self.browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
        self._listen(context)
        try:
            page = await context.new_page()
        except BaseException:
            self._close_later(context)
            raise
        return context, page

    def _listen(self, context: BrowserContext) -> None:
        """Record what ``context``'s pages send and print while it is the current trail's (a
        spare says nothing of the trail running while it waits)."""

        def while_current(record: Callable[[Any], None]) -> Callable[[Any], None]:
            def listener(event: Any) -> None:
                if self._context is context:
                    record(event)

            return listener

        context.on("request", while_current(self._record_request))
        context.on("console", while_current(self._record_console))
        context.on("weberror", while_current(self._record_page_error))

    async def start_step(self, step: Step, title: str) -> None:
        """Group the step's actions in the trace, so the trace viewer reads like the trail."""
        if self.tracing and self._context is not None:
            await self._tracing_call(self._context.tracing.group, one_line(title)[:200])

    async def end_step(self, step: Step) -> None:
        if self.tracing and self._context is not None:
            await self._tracing_call(self._context.tracing.group_end)

    async def _tracing_call(self, call: Any, *args: Any) -> None:
        """A trace group is evidence: a browser that has gone away fails the step's own calls,
        not this."""
        from playwright.async_api import Error

        with contextlib.suppress(Error):
            await call(*args)

    def _record_console(self, message: Any) -> None:
        where = message.location or {}
        at = f" ({where.get('url')}:{where.get('lineNumber')})" if where.get("url") else ""
        self.console.append(f"[{message.type}] {message.text}{at}")

    def _record_page_error(self, web_error: Any) -> None:
        self.console.append(f"[pageerror] {web_error.error}")

    async def stop_trace(self, path: Path | None) -> bool:
        """End the trace of the current context: write it to ``path`` (a ``trace.zip`` that
        ``playwright show-trace`` opens), or drop it when ``path`` is None. True if written."""
        if not self.tracing or self._context is None:
            return False
        self.tracing = False
        if path is None:
            await self._context.tracing.stop()
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        # into a file of its own beside ``path``, then renamed over it: a link left at ``path``
        # is replaced, never written through, and a cut zip never passes for the trace
        fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        os.close(fd)
        try:
            await self._context.tracing.stop(path=partial)
            os.replace(partial, path)
        finally:
            Path(partial).unlink(missing_ok=True)
        return True

    def _record_request(self, request: Any) -> None:
        body = request.post_data_buffer
        self.requests.append((request.url, body.decode("utf-8", errors="replace") if body else ""))

    async def end_trail(self, trail: Trail | None) -> None:
        if self._in_trail and trail is not None:
            self._in_trail = False
            _IN_TRAIL[self.browser] -= 1
        context, self._context, self._page, self._snapshot = self._context, None, None, None
        self._elements = {}
        self.tracing = False  # a trace not stopped by now is dropped with its context
        if context is not None:
            self._close_later(context)

    def _close_later(self, context: BrowserContext) -> None:
        """Close ``context`` while the next trail starts (:meth:`close` waits for it): its
        pages are gone from the trail's view at once, and nothing waits for the browser."""
        task = asyncio.ensure_future(_close(context))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        if self._in_trail:  # a trail whose device state was kept (record, mcp) ends with its session
            self._in_trail = False
            _IN_TRAIL[self.browser] -= 1
        await self.end_trail(None)
        spare, self._spare = self._spare, None
        if spare is not None:
            await asyncio.wait([spare])  # not cancelled: a context half made would stay in the browser
            if not spare.cancelled() and spare.exception() is None:
                self._close_later(spare.result()[0])
        if self._closing:
            await asyncio.wait(set(self._closing))

    # -- URLs -----------------------------------------------------------------------------------

    def absolute_url(self, url: str, trail_path: Path | None = None) -> str:
        """``/path`` joins ``base_url``; other relative URLs are files next to the trail when that file
        exists, else in the working directory (as upstream: its scripted tools pass paths from the
        repository's root, ``./examples/…/index.html``); when neither exists, next to the trail."""
        if "://" in url or url.startswith(("about:", "data:", "file:")):
            return url
        if url.startswith("/"):
            if not self.base_url:
                raise UsageError(
                    f"{url!r} is relative to base_url, but no base_url is configured (base_url: in trailblaze.yaml, "
                    "or --base-url)"
                )
            return urljoin(self.base_url.rstrip("/") + "/", url.lstrip("/"))
        beside = (trail_path.parent if trail_path is not None else Path.cwd()) / url
        if not beside.exists() and (Path.cwd() / url).exists():
            beside = Path.cwd() / url
        return beside.resolve().as_uri()

    # -- locating ---------------------------------------------------------------------------------

    async def locate(
        self,
        selector: NodeSelector | dict[str, Any] | None = None,
        ref: str | None = None,
        timeout: float | None = None,
    ) -> Locator:
        return await locators.resolve(
            self.page, as_node_selector(selector), ref, self.default_timeout if timeout is None else timeout
        )

    def _text_or_id(self, text: str | None, id: str | None) -> Locator:
        page = self.page
        if text is not None and id is not None:
            return self._by_id(id).and_(locators.by_text(page, text))
        if id is not None:
            return self._by_id(id)
        if text is not None:
            return locators.by_text(page, text)
        raise ToolFailure("give text, id or a selector")

    def _by_id(self, id: str) -> Locator:
        quoted = id.replace("\\", "\\\\").replace('"', '\\"')
        return self.page.locator(f'[id="{quoted}"], [data-testid="{quoted}"]')

    async def _target(
        self, text: str | None, id: str | None, selector: NodeSelector | dict[str, Any] | None
    ) -> Locator:
        if selector is not None:
            return await self.locate(selector)
        return self._text_or_id(text, id)

    # -- Commands: actions ----------------------------------------------------------------------------

    @action
    async def tap(
        self,
        text: str | None = None,
        id: str | None = None,
        index: int | None = None,
        selector: NodeSelector | dict[str, Any] | None = None,
    ) -> None:
        locator = await self._target(text, id, selector)
        if index is not None:
            locator = locator.nth(index)
        await locator.click(timeout=self.timeout_ms)

    @action
    async def input_text(self, text: str) -> None:
        await self.page.keyboard.type(text)

    @action
    async def press_back(self) -> None:
        await self.page.go_back()

    @action
    async def press_key(self, key: str) -> None:
        await self.page.keyboard.press(key)

    @action
    async def swipe(self, direction: str = "UP", duration_ms: int | None = None) -> None:
        # swiping up moves the content up: the page scrolls down
        opposite = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}
        await self.scroll(opposite.get(direction.upper(), "DOWN"))

    @action
    async def scroll(self, direction: str = "DOWN", amount: int | None = None) -> None:
        dx, dy = scroll_delta(direction, amount or 500)
        await self.page.evaluate("([dx, dy]) => window.scrollBy(dx, dy)", [dx, dy])

    @action
    async def navigate(self, url: str) -> None:
        await self.page.goto(self.absolute_url(url), timeout=self.timeout_ms)

    @action
    async def launch_app(self, app_id: str, mode: str | None = None) -> None:
        """On the web an "app" is a URL: open it (REINSTALL also starts a fresh context)."""
        if (mode or "").upper() == "REINSTALL":
            await self._new_page()
        await self.navigate(app_id)

    @action
    async def fill(self, selector: str, value: str, timeout_ms: int | None = None) -> None:
        timeout = self._seconds(timeout_ms)
        async with self._selecting(f"fill {selector!r}", selector, timeout):
            await self.page.locator(selector).fill(value, timeout=timeout * 1000)

    @action
    async def evaluate_js(self, script: str, arg: Any = None) -> Any:
        from playwright.async_api import Error

        timeout = self.default_timeout
        try:
            result = await asyncio.wait_for(self.page.evaluate(script, arg), timeout)
        except TimeoutError:
            raise ToolFailure(f"evaluate_js: the script did not finish within {timeout:g}s") from None
        except Error as exc:
            raise ToolFailure(f"evaluate_js: {_first_line(exc)}") from None
        try:
            json.dumps(result)
        except (TypeError, ValueError):  # a Date, a NaN inside a structure: its Python form
            return repr(result)
        return result

    # -- Commands: assertions ---------------------------------------------------------------------------

    @assertion
    async def wait_for_selector(self, selector: str, timeout_ms: int | None = None, state: str = "visible") -> None:
        if state not in SELECTOR_STATES:
            raise ValueError(f"state must be one of {', '.join(SELECTOR_STATES)}, got {state!r}")
        timeout = self._seconds(timeout_ms)
        async with self._selecting(f"{selector!r} {state}", selector, timeout):
            await self.page.wait_for_selector(selector, state=state, timeout=timeout * 1000)  # type: ignore[arg-type]

    def _seconds(self, timeout_ms: int | None) -> float:
        """A command's wait: ``timeout_ms: 0`` looks once (Playwright's 0 would wait for ever)."""
        if timeout_ms is None:
            return self.default_timeout
        if not 0 <= timeout_ms <= MAX_WAIT_SECONDS * 1000:
            raise ValueError(f"timeout_ms must be from 0 to {MAX_WAIT_SECONDS * 1000} (got {timeout_ms})")
        return max(timeout_ms, 1) / 1000

    @contextlib.asynccontextmanager
    async def _selecting(self, what: str, selector: str, timeout: float) -> AsyncIterator[None]:
        """Playwright's errors for a selector string: a bad selector is the caller's mistake
        (ValueError), no element in time or several where one is needed fail the check (saying
        what on the page reads most like the selector)."""
        from playwright.async_api import Error

        from trailblaze.device.nearest import screen_hint

        try:
            yield
        except Error as exc:
            message = _first_line(exc)
            if _is_timeout(exc):
                hint = screen_hint([selector], await self.view_hierarchy())
                raise ToolFailure(f"{what}: not within {timeout:g}s; {hint}") from None
            if "strict mode violation" in message:
                raise ToolFailure(f"{what}: the selector matches several elements; make it unique") from None
            if "while parsing" in message:  # Playwright could not read the selector
                raise ValueError(f"{what}: {message}") from None
            raise ToolFailure(f"{what}: {message}") from None

    # -- Commands: queries -------------------------------------------------------------------------------

    async def find(
        self, *, text: str | None = None, id: str | None = None, selector: NodeSelector | None = None
    ) -> list[Any]:
        try:
            locator = await self.locate(selector, timeout=0) if selector is not None else self._text_or_id(text, id)
            return await locator.filter(visible=True).all()
        except ToolFailure:
            return []

    async def _parsed(self) -> None:
        """Wait (up to the default timeout) until the page's document is parsed. An action that
        navigates returns once the new document has committed, when it may still be empty; a
        page that never finishes is read as it stands."""
        from playwright.async_api import Error

        try:
            await self.page.wait_for_load_state("domcontentloaded", timeout=self.timeout_ms)
        except Error as exc:
            if not _is_timeout(exc):
                raise

    @query
    async def view_hierarchy(self) -> ViewNode:
        """The page as an ARIA tree; its refs are upstream's page-elements ids (``e5``), and
        Playwright's handles (``f1e3``) for what is inside frames, which upstream does not list."""
        await self._parsed()
        text, self._elements = await locators.read_page(self.page)
        self._snapshot = aria.parse_snapshot(text)
        return self._snapshot

    @query
    async def capture_screen(self) -> ScreenState:
        await self._parsed()
        shot = await self.page.screenshot(type="png")
        hierarchy = await self.view_hierarchy()
        size = self.page.viewport_size or VIEWPORT
        return ScreenState(shot, hierarchy, size["width"], size["height"], url=self.page.url)

    @query
    async def get_element_text(
        self, id: str | None = None, selector: NodeSelector | dict[str, Any] | None = None
    ) -> str | None:
        try:
            element = (await self._target(None, id, selector)).first
            # one call reads an element that is there (a locator's evaluate is three: wait for it,
            # read it, let go of it); only one that is not there yet is waited for
            shown: list[str | None] = await element.evaluate_all(f"elements => elements.map({_TEXT_OR_VALUE})")
            value = shown[0] if shown else await element.evaluate(_TEXT_OR_VALUE, timeout=self.timeout_ms)
        except ToolFailure:
            return None
        except Exception as exc:
            if _is_timeout(exc):
                return None
            raise
        return value.strip() if value is not None else None

    @query
    async def selector_for_ref(self, ref: str) -> dict[str, Any] | None:
        """The selector to record for ``ref`` (:mod:`trailblaze.drivers.web.stable`): for a page-elements
        id, from the screen the agent read and one evaluation in the page."""
        element_id = elements.element_id(ref)
        if element_id is None:
            return await self._selector_for_other_ref(ref)
        if element_id not in self._elements:
            await self.view_hierarchy()
        element = self._elements.get(element_id)
        if element is None:
            return None
        facts = await stable.page_facts(locators.for_element(self.page, element))
        if facts is None and element.handle is not None:  # a later snapshot took the handle
            found = locators.by_descriptor(self.page, element.role, element.name).nth(element.nth)
            facts = await stable.page_facts(found)
        if facts is None:
            return None
        if facts.get("framed"):
            raise stable.framed_element_failure(ref)
        chosen = stable.choose(facts, element.role, element.accessible_name, element.same_named)
        if chosen is None:  # nothing the page could check: Playwright looks again
            chosen = await stable.stable_selector(
                self.page, locators.for_element(self.page, element), element.role, element.accessible_name
            )
        return chosen

    async def _selector_for_other_ref(self, ref: str) -> dict[str, Any] | None:
        """A frame's handle (``f1e3``), ``css=…`` or ``role "name"``: Playwright finds the
        element, and reads its role and name."""
        locator = await locators.for_ref(self.page, ref, self._elements)
        if locator is None or await locator.count() != 1:
            return None
        node = self._find_ref(ref) or await self._aria_node(locator)
        role = node.class_name if node is not None else None
        name = node.text if node is not None else None
        return await stable.stable_selector(self.page, locator, role, name, what=ref)

    async def _aria_node(self, locator: Locator) -> ViewNode | None:
        try:
            tree = aria.parse_snapshot(await locator.aria_snapshot(timeout=self.timeout_ms))
        except Exception as exc:
            if _is_timeout(exc):
                return None
            raise
        return tree.children[0] if tree.children else None

    def _find_ref(self, ref: str) -> ViewNode | None:
        if self._snapshot is None:
            return None
        return next((n for n in self._snapshot.walk() if n.ref == ref), None)


async def _close(context: BrowserContext) -> None:
    from playwright.async_api import Error

    # Closing fails only when the browser is already gone (Ctrl-C reaches Playwright's driver
    # process too). Nothing is left to close, and raising would replace the trail's own outcome,
    # or the run's interruption, with a secondary error.
    with contextlib.suppress(Error):
        await context.close()


def scroll_delta(direction: str, amount: int) -> tuple[int, int]:
    return {
        "UP": (0, -amount),
        "DOWN": (0, amount),
        "LEFT": (-amount, 0),
        "RIGHT": (amount, 0),
    }.get(direction.upper(), (0, amount))


def _first_line(exc: BaseException) -> str:
    """Playwright's message without its call log, and without the API method it names
    (``Page.evaluate: …``): the caller used a command, not Playwright."""
    lines = str(exc).strip().splitlines()
    return re.sub(r"^[A-Z]\w*\.\w+: ", "", lines[0]) if lines else type(exc).__name__


def _is_timeout(exc: BaseException) -> bool:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    return isinstance(exc, PlaywrightTimeout)
