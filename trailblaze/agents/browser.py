"""The ``browser`` agent: record web steps by demonstration.

A visible Chromium opens (``--headless`` hides it, for scripts that drive the page over CDP,
see ``--remote-debugging-port``). For each step the terminal shows the step's text; the person
does it in the browser and types ``done`` (or ``undo``, ``skip``, ``fail``, ``quit``) in the
terminal. What they did becomes tool calls:

=========================  ==================================================
on the page                recorded as
=========================  ==================================================
click                      ``web_click``
typing into a field        ``web_type`` (the field's final text; a password
                           field gives ``web_fillSecret``)
choosing in a <select>     ``web_selectOption`` (the options' values)
Enter, Tab, Escape, keys   ``web_pressKey`` (keys typed into a field are
with Ctrl/Alt/Meta         part of its text)
address bar, reload        ``web_navigate`` (``/path`` under ``base_url``)
=========================  ==================================================

Each element gets the selector ``trailblaze mcp`` records for a ref (:mod:`trailblaze.drivers.web.stable`):
the most stable one that finds exactly it — test id, ARIA role and accessible name, ``name``,
id, placeholder, text — else its role and name inside the container that tells it apart from
the others like it ("the Add link in the Tickets row"), else its position, which the terminal
warns about. It is checked with Playwright against the page while the element is still there,
otherwise (the click navigated away first) worked out by the same page scripts at the moment of
the event. On a ``verify:`` step a click does not act: it records
``web_verifyElementVisible`` for the element (with its text), and typing is ignored.

Only what a person does is recorded: events the page's own script makes (``el.click()``,
``dispatchEvent``; the browser marks them untrusted) are not, and the terminal says how many
were ignored, since a replay will not make them either. ``trailblaze record`` replays a
demonstration once before saving it (``verify_by_replay``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from trailblaze.agents.terminal_input import say, stdin_lines, step_word
from trailblaze.api.agent import Agent, CallResult, StepTask, Verdict
from trailblaze.core.errors import UsageError
from trailblaze.drivers.web import stable

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Frame, Page

    from trailblaze.api.session import Session
    from trailblaze.drivers.web.device import WebDevice

BINDING = "__trailblazeRecord"
#: a navigation this soon after a recorded action is that action's doing, not the address bar
CAUSED_NAVIGATION_S = 10.0
FLUSH_WAIT_S = 5.0


_out = say


class BrowserAgent(Agent):
    name: ClassVar[str] = "browser"
    description: ClassVar[str] = "record web steps by demonstration: click and type in the browser window"
    shows_browser: ClassVar[bool] = True
    verify_by_replay: ClassVar[bool] = True

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self._recorder: PageRecorder | None = None

    async def start(self, session: Session) -> None:
        if session.info.platform != "web":
            raise UsageError(f"the browser agent records web pages; {session.driver.key} is {session.info.platform}")
        stdin_lines()

    async def solve(self, task: StepTask) -> Verdict:
        device: WebDevice = task.session.device  # type: ignore[assignment]
        recorder = self._recorder
        if recorder is None or recorder.context is not device.page.context:  # a new trail, a new context
            if recorder is not None:
                await recorder.detach()
            recorder = self._recorder = PageRecorder(device)
            await recorder.attach()
        task.pause_output()
        _out()
        _out(f"── {task.label}: {task.text}")
        if task.verify_only:
            _out("   a verify step: click the elements that must be visible (the clicks do not act)")
        headless = bool(self.settings.config.getoption("headless", False))
        where = "in the browser (headless: over CDP)" if headless else "in the browser"
        _out(f"   do it {where}, then type done here (or undo, skip, fail, quit)")
        await recorder.begin(task)
        lines = stdin_lines()
        try:
            while True:
                _out("> ", end="")
                line = await lines.readline()
                if line is None:
                    await recorder.flush()
                    recorder.report_ignored()
                    _out("(end of input: stopping)")
                    return Verdict("quit", "end of input")
                word, _, rest = line.strip().partition(" ")
                word = word.lower()
                if not word or word.startswith("#"):
                    continue
                await recorder.flush()
                recorder.report_ignored()
                ended = step_word(word, rest, task, gave_up="given up in the browser")
                if isinstance(ended, Verdict):
                    return ended
                if ended:
                    continue
                _out("type done, undo, skip, fail or quit (do the step in the browser)")
        finally:
            await recorder.end()

    async def close(self) -> None:
        if self._recorder is not None:
            await self._recorder.detach()
            self._recorder = None


def recorder_script() -> str:
    """``recorder.js`` with the web driver's page scripts it uses to name an element, installed
    before it: ``stable.js`` (what names it alone) and ``scope.js`` (what tells it apart)."""
    recorder = resources.files("trailblaze.agents").joinpath("recorder.js").read_text(encoding="utf-8")
    return (
        f"window.__trailblazeFacts = {stable.script('stable.js').strip()};\n"
        f"window.__trailblazeScopes = {stable.script('scope.js').strip()};\n{recorder}"
    )


class PageRecorder:
    """Listens to one browser context (one trail) and records into the current step."""

    def __init__(self, device: WebDevice) -> None:
        self.device = device
        self.page: Page = device.page
        self.context: BrowserContext = self.page.context
        self.task: StepTask | None = None
        self._queue: asyncio.Queue[tuple[str, Any, float]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._processed: dict[str, int] = {}
        self._last_action = 0.0
        self._navigated_since_action = True
        self._busy = False
        #: untrusted events (the page's script made them) since they were last reported, by type
        self._ignored: dict[str, int] = {}

    async def attach(self) -> None:
        script = recorder_script()
        await self.context.expose_binding(BINDING, self._on_binding)
        await self.context.add_init_script(script=script)
        await self.page.evaluate(script)
        self.page.on("framenavigated", self._on_navigated)
        self._worker = asyncio.get_running_loop().create_task(self._work())

    async def detach(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
        with contextlib.suppress(Exception):  # the page is gone with its context
            self.page.remove_listener("framenavigated", self._on_navigated)

    async def begin(self, task: StepTask) -> None:
        self.task = task
        self._navigated_since_action = True
        await self._set_mode("verify" if task.verify_only else "act")

    async def end(self) -> None:
        self.task = None
        await self._set_mode("act")

    async def _set_mode(self, mode: str) -> None:
        with contextlib.suppress(Exception):  # between documents: the next one starts in "act" mode
            await self.page.evaluate("mode => { window.__trailblazeMode = mode; }", mode)

    async def flush(self) -> None:
        """Record what is still pending on the page (text typed into a focused field) and wait
        until every event the page sent has been recorded."""
        try:
            state = await self.page.evaluate("() => window.__trailblazeFlush ? window.__trailblazeFlush() : null")
        except Exception:
            state = None
        deadline = time.monotonic() + FLUSH_WAIT_S
        while time.monotonic() < deadline:
            caught_up = state is None or self._processed.get(state["doc"], 0) >= state["sent"]
            if caught_up and self._queue.empty() and not self._busy:
                await asyncio.sleep(0.05)  # a navigation event may trail the last action
                if self._queue.empty() and not self._busy:
                    return
            await asyncio.sleep(0.02)

    # -- events --------------------------------------------------------------------------------

    def _on_binding(self, source: Any, event: Any) -> None:
        self._queue.put_nowait(("event", event, time.monotonic()))

    def _on_navigated(self, frame: Frame) -> None:
        if frame is self.page.main_frame:
            self._queue.put_nowait(("navigation", frame.url, time.monotonic()))

    async def _work(self) -> None:
        while True:
            kind, payload, at = await self._queue.get()
            self._busy = True
            try:
                if kind == "event":
                    await self._event(payload, at)
                else:
                    self._navigation(payload, at)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # one odd event must not stop the recording
                self._say(f"✗ could not record that ({type(exc).__name__}: {exc})")
            finally:
                self._busy = False

    async def _event(self, event: dict[str, Any], at: float) -> None:
        try:
            task = self.task
            if task is None:
                return  # not during a step of this agent (e.g. a recording being replayed)
            call = await self._call_for(event)
            if call is None:
                return
            self._last_action = at
            self._navigated_since_action = False
            self._report(task.observe(*call))
        finally:
            doc = str(event.get("doc"))
            self._processed[doc] = max(self._processed.get(doc, 0), int(event.get("seq", 0)))

    async def _call_for(self, event: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        kind = event["kind"]
        if kind == "ignored":
            name = str(event.get("event") or "event")[:40]
            self._ignored[name] = self._ignored.get(name, 0) + 1
            return None
        if kind == "key":
            return "web_pressKey", {"key": event["key"]}
        selector = await self._selector(event)
        if kind == "click":
            return "web_click", {"nodeSelector": selector}
        if kind == "type":
            return "web_type", {"text": event.get("value", ""), "nodeSelector": selector}
        if kind == "secret":
            return "web_fillSecret", {"value": event.get("value", ""), "nodeSelector": selector}
        if kind == "select":
            return "web_selectOption", {"values": list(event.get("values") or []), "nodeSelector": selector}
        if kind == "assert":
            args: dict[str, Any] = {"nodeSelector": selector}
            if event.get("text"):
                args["expectedText"] = event["text"]
            return "web_verifyElementVisible", args
        return None

    async def _selector(self, event: dict[str, Any]) -> dict[str, Any]:
        """Checked with Playwright while the element is there; else the page's own choice."""
        try:
            handle = await self.page.evaluate_handle(
                "id => window.__trailblazeElement ? window.__trailblazeElement(id) : null", event.get("element")
            )
            element = handle.as_element()
            if element is not None:
                chosen = await stable.stable_selector(self.page, element, event.get("role"), event.get("name"))
                if chosen is not None:
                    return chosen
        except Exception:  # navigated away, or the element is gone: use what the page worked out then
            pass
        if isinstance(event.get("facts"), dict) and event["facts"].get("framed"):
            raise stable.framed_element_failure("the element")
        chosen = stable.from_page(event)
        if chosen is None:
            raise UsageError("the page said nothing that finds the element again")
        return chosen

    def report_ignored(self) -> None:
        """Say which events of the page's own script were left out since the last time."""
        if not self._ignored:
            return
        total = sum(self._ignored.values())
        kinds = ", ".join(f"{count} {name}" for name, count in sorted(self._ignored.items()))
        self._ignored.clear()
        noun = "event" if total == 1 else "events"
        self._say(
            f"  ignored {total} scripted {noun} ({kinds}): the page's own script made them, not a person, "
            "so they are not recorded (a replay will not make them either)"
        )

    def _navigation(self, url: str, at: float) -> None:
        task = self.task
        caused = not self._navigated_since_action and at - self._last_action < CAUSED_NAVIGATION_S
        self._navigated_since_action = True
        if task is None or caused or url == "about:blank":
            return
        self._report(task.observe("web_navigate", {"url": self._relative(url)}))

    def _relative(self, url: str) -> str:
        base = self.device.base_url
        if base and url.startswith(base.rstrip("/") + "/"):
            parts = urlsplit(url)
            path = url[len(base.rstrip("/")) :]
            return path if parts.scheme in ("http", "https") else url
        return url

    def _report(self, result: CallResult) -> None:
        from trailblaze.device.selectors import is_positional
        from trailblaze.trail.writer import call_text

        if not result.ok:
            self._say(f"✗ not recorded: {result.error}")
            return
        for call in result.recorded:
            self._say(f"  recorded {call_text(call)}")
            if is_positional(call.args.get("nodeSelector")):
                self._say(
                    "  ⚠ found by its position among elements alike: a change to the page may make it "
                    "another element (a test id on it, or a name on what holds it, would last)"
                )

    def _say(self, text: str) -> None:
        if self.task is not None:
            self.task.pause_output()
        _out(text)
