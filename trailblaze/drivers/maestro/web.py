"""``web_maestro``: Maestro commands on the web driver, as Maestro's web support runs them.

Maestro drives a browser the way it drives a phone: it reads the page into a tree of elements
with a text, a box and a resource id, matches its selectors against that tree, and taps, types
and scrolls by coordinates. This module does the same on the Playwright page of the web
driver, so the matching, the waiting and the messages are those of ``mobile_maestro``
(:class:`~trailblaze.drivers.maestro.interpreter.MaestroRunner` on a
:class:`~trailblaze.drivers.mobile.device.MobileDevice`). As Maestro's page reader:

* an element's text is its own text (not its children's); a field's is its value, else its
  placeholder, else its ``aria-label``;
* its id is the first of ``id``, ``aria-label``, ``name``, ``title``, ``for`` and
  ``data-testid`` it has;
* a hidden element (``display: none``, ``visibility: hidden``, no size) is not visible; one
  outside the viewport is, and a tap on it scrolls it into view first, as Maestro's does
  (also inside a scrolling box, which Maestro's does not).

``back`` is the browser's back; ``launchApp`` and ``openLink`` open the URL (relative to
``base_url`` when it starts with ``/``); ``clearState`` clears cookies and storage.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import weakref
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import Field

from trailblaze.core.errors import ToolFailure
from trailblaze.device.commands import Bounds, DeviceInfo, ViewNode
from trailblaze.drivers.maestro.tool import MaestroCommand, _only_reads
from trailblaze.drivers.mobile.device import MobileDevice
from trailblaze.drivers.mobile.worker import DeviceWorker
from trailblaze.tools.authoring import tool, verifies_when
from trailblaze.tools.model import ToolContext

if TYPE_CHECKING:
    from trailblaze.drivers.maestro.commands import Command
    from trailblaze.drivers.web.device import WebDevice

T = TypeVar("T")

#: seconds an action waits for the page to stop changing (Maestro waits for the page to settle)
SETTLE_S = 1.0
#: the page read as Maestro's web driver reads it (maestro-web.js), with what the matcher needs
_READ_PAGE = """() => {
  const skip = new Set(['noscript', 'script', 'style', 'br', 'img', 'svg', 'g', 'path', 'head', 'template']);
  const vw = window.innerWidth, vh = window.innerHeight;
  const active = document.activeElement;
  const own = (el) => {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'textarea') return el.value || el.placeholder || el.ariaLabel || '';
    if (tag === 'select') return el.options[el.selectedIndex] ? el.options[el.selectedIndex].text : '';
    return [...el.childNodes].filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent)
      .join('').replace(/\\s+/g, ' ').trim();
  };
  const seen = [];
  const read = (el) => {
    if (!el || skip.has(el.tagName.toLowerCase())) return null;
    seen.push(el);
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const shown = style.visibility !== 'hidden' && style.display !== 'none' && r.width > 0 && r.height > 0;
    const scrolls = (el.scrollHeight > el.clientHeight + 1 && /(auto|scroll)/.test(style.overflowY));
    const rid = el.id || el.ariaLabel || el.getAttribute('name') || el.title || el.htmlFor
      || el.getAttribute('data-testid') || '';
    return {
      x: seen.length - 1, t: own(el), i: rid, c: el.tagName.toLowerCase(), s: shown, sc: scrolls,
      b: [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)],
      e: !el.disabled, f: el === active, k: (el.type === 'checkbox' || el.type === 'radio') ? el.checked : null,
      n: [...el.children].map(read).filter(Boolean),
    };
  };
  const root = read(document.body) || {t: '', i: '', c: 'body', s: true, b: [0, 0, vw, vh], n: []};
  root.sc = document.documentElement.scrollHeight > vh + 1 || root.sc;
  window.__trailblazeMaestro = seen;  // what an element's number (x) names, until the next read
  return JSON.stringify({w: vw, h: vh, root});
}"""


#: the element a read numbered scrolled into view (in its scrolling boxes too): its box now
_ELEMENT_INTO_VIEW = """(n) => {
  const el = (window.__trailblazeMaestro || [])[n];
  if (!el || !el.isConnected) return null;
  el.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
  const r = el.getBoundingClientRect();
  return [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)];
}"""
#: a point of the page brought into the viewport (Maestro's scrollToPoint): where it is now
_INTO_VIEW = """([x, y]) => {
  const vw = window.innerWidth, vh = window.innerHeight, bx = window.scrollX, by = window.scrollY;
  window.scrollBy((x < 0 || x >= vw) ? x - vw / 2 : 0, (y < 0 || y >= vh) ? y - vh / 2 : 0);
  return [x - (window.scrollX - bx), y - (window.scrollY - by)];
}"""


class MaestroWebPage(MobileDevice):
    """The web driver's page as a hierarchy-and-coordinates device: the primitives run on the
    device's worker thread and hand each Playwright call to the event loop the page lives on."""

    platform_name = "web"

    def __init__(self, web: WebDevice) -> None:
        info = DeviceInfo(
            id=web.device.id,
            platform="web",
            driver=web.device.driver,
            width=web.device.width,
            height=web.device.height,
            classifiers=("web",),
        )
        super().__init__(info, DeviceWorker("maestro-web"), timeout=web.default_timeout, settle_timeout=SETTLE_S)
        self.web = web
        self.loop: asyncio.AbstractEventLoop | None = None
        self.trail_path: Any = None

    def _wait(self, coroutine: Coroutine[Any, Any, T]) -> T:
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(self.web.default_timeout + 30)

    # -- the primitives ---------------------------------------------------------------------------

    def dump(self) -> str:
        return self._wait(self._read())

    async def _read(self) -> str:
        from playwright.async_api import Error

        page = self.web.page
        for _ in range(20):  # a navigation in flight destroys the context the script runs in
            try:
                await page.wait_for_load_state("domcontentloaded", timeout=self.web.timeout_ms)
                text: str = await page.evaluate(_READ_PAGE)
                return text
            except Error as exc:
                if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                    raise ToolFailure(f"cannot read the page: {str(exc).splitlines()[0]}") from None
                await asyncio.sleep(0.05)
        raise ToolFailure("the page kept navigating; it could not be read")

    def parse(self, raw: str) -> ViewNode:
        data = json.loads(raw)

        def node(d: dict[str, Any], parent: ViewNode | None) -> ViewNode:
            b = d["b"]
            made = ViewNode(
                text=d["t"] or None,
                id=d["i"] or None,
                class_name=d["c"],
                bounds=Bounds(b[0], b[1], b[2], b[3]),
                enabled=bool(d.get("e", True)),
                focused=bool(d.get("f")),
                checked=d.get("k"),
                scrollable=bool(d.get("sc")),
                visible=bool(d["s"]),
                attributes={"element": d["x"]},
                parent=parent,
            )
            made.children = [node(c, made) for c in d.get("n", [])]
            return made

        return node(data["root"], None)

    async def locate(
        self,
        selector: Any = None,
        *,
        text: str | None = None,
        id: str | None = None,
        timeout_ms: int | None = None,
    ) -> ViewNode:
        """The element, scrolled into view first (also inside a scrolling list, which Maestro's
        own page reader does not see into), with its box where it is now."""
        node = await super().locate(selector, text=text, id=id, timeout_ms=timeout_ms)
        number = node.attributes.get("element")
        if number is None:
            return node
        box = await self.call(lambda: self._wait(self.web.page.evaluate(_ELEMENT_INTO_VIEW, number)))
        if box:
            node = dataclasses.replace(node, bounds=Bounds(*box), children=list(node.children))
        return node

    def tap_at(self, x: int, y: int, duration_ms: int | None) -> None:
        async def tap() -> None:
            page = self.web.page
            x_, y_ = await page.evaluate(_INTO_VIEW, [x, y])
            mouse = page.mouse
            if duration_ms:
                await mouse.move(x_, y_)
                await mouse.down()
                await asyncio.sleep(duration_ms / 1000)
                await mouse.up()
            else:
                await mouse.click(x_, y_)

        self._wait(tap())

    def swipe_between(self, start: tuple[int, int], end: tuple[int, int], duration_ms: int) -> None:
        async def wheel() -> None:  # the content follows the finger: a swipe up scrolls down
            page = self.web.page
            await page.mouse.move(*start)
            await page.mouse.wheel(start[0] - end[0], start[1] - end[1])
            await asyncio.sleep(0.05)

        self._wait(wheel())

    def type_text(self, text: str) -> None:
        self._wait(self.web.page.keyboard.type(text))

    def erase(self, count: int | None, current: str | None) -> None:
        async def erase() -> None:
            keyboard = self.web.page.keyboard
            if count is None:
                await keyboard.press("ControlOrMeta+A")
                await keyboard.press("Backspace")
                return
            for _ in range(count):
                await keyboard.press("Backspace")

        self._wait(erase())

    def press(self, key: str) -> None:
        if key == "BACK":
            self._wait(self.web.page.go_back(timeout=self.web.timeout_ms))
            return
        names = {"ENTER": "Enter", "BACKSPACE": "Backspace", "TAB": "Tab", "ESCAPE": "Escape", "HOME": "Home"}
        if key not in names:
            raise ToolFailure(f"the key {key} cannot be pressed in a browser")
        self._wait(self.web.page.keyboard.press(names[key]))

    def dismiss_keyboard(self) -> bool:
        return False  # a browser on a desktop shows no keyboard

    def start_app(self, app_id: str, mode: str, timeout: float, arguments: dict[str, Any] | None = None) -> None:
        if mode == "REINSTALL":
            self.wipe_app(app_id)
        self.open_link(app_id)

    def open_link(self, url: str) -> None:
        target = self.web.absolute_url(url, self.trail_path)
        self._wait(self.web.page.goto(target, timeout=self.web.timeout_ms))

    def terminate_app(self, app_id: str) -> None:
        self._wait(self.web.page.goto("about:blank"))

    def wipe_app(self, app_id: str) -> None:
        async def wipe() -> None:
            page = self.web.page
            await page.context.clear_cookies()
            if page.url.startswith("http"):
                await page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")

        self._wait(wipe())

    def screenshot(self) -> tuple[bytes, str]:
        return self._wait(self.web.page.screenshot(type="png")), "png"

    def client_errors(self) -> tuple[type[BaseException], ...]:
        from playwright.async_api import Error

        return (Error,)


#: each web device's Maestro page (what ``copyTextFrom`` copied lives as long as the device)
_PAGES: weakref.WeakKeyDictionary[Any, MaestroWebPage] = weakref.WeakKeyDictionary()


@tool(name="web_maestro", platforms=["web"], exposed_to_llm=False)
@verifies_when(_only_reads)  # only assertions: a verify: step's
async def web_maestro(
    ctx: ToolContext,
    commands: Annotated[
        list[MaestroCommand],
        Field(description="Maestro commands, as in a Maestro web flow: '- tapOn: Sign in', '- back', …"),
    ],
) -> list[str]:
    """Run Maestro commands (tapOn, inputText, assertVisible, scroll, back, openLink…) on the
    page, as Maestro's web support does. Prefer the web tools."""
    from trailblaze.drivers.maestro.interpreter import MaestroRunner
    from trailblaze.drivers.web.device import WebDevice

    web = ctx.driver
    if not isinstance(web, WebDevice):
        raise NotImplementedError("web_maestro needs the web driver (playwright-native)")
    page = _PAGES.get(web)
    if page is None or page.web is not web:
        page = _PAGES[web] = MaestroWebPage(web)
    page.loop = asyncio.get_running_loop()
    page.trail_path = ctx.trail_path
    page.default_timeout = web.default_timeout
    page.worker = DeviceWorker("maestro-web")
    page._closed = False
    try:
        parsed: list[Command] = list(commands)
        return await MaestroRunner(ctx, page).run(parsed)
    finally:
        page.worker.close()
