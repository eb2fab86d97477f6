"""The web driver's checks after Playwright Test's ``expect`` assertions, where the upstream
tools (:mod:`trailblaze.drivers.web.tools`) have none, and the web side of the not-visible
checks every driver has (:mod:`trailblaze.drivers.checks`):

============================================  ==================================================
Playwright Test                               trailblaze
============================================  ==================================================
``not.toBeVisible()``                         ``assertNotVisibleBySelector``, ``assertNotVisibleWithText``
                                              (an element's whole text, as on a phone),
                                              ``web_verifyTextNotVisible`` (a part of a text, as
                                              ``web_verifyTextVisible`` finds it)
``toHaveCount()``                             ``web_verifyElementCount``
``toBeEnabled()``, ``toBeDisabled()``,        ``web_verifyElementState``
``toBeChecked()``, ``toBeEditable()``,
``toBeFocused()``
``toHaveURL()``                               ``web_verifyUrl``
``toHaveTitle()``                             ``web_verifyTitle``
============================================  ==================================================

(``toBeVisible``, ``toHaveText``, ``toHaveValue`` and ``toHaveAttribute`` are upstream's
``web_verifyElementVisible`` and ``web_verifyValue``.) As Playwright's, each check waits until
what it checks holds — passing at once when it already does — and fails when it still does not
at the timeout (the call's ``timeoutMs``, else the trail's), saying what the page had instead.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, Field

from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import NodeSelector, text_matches
from trailblaze.drivers.web import calls, locators
from trailblaze.drivers.web.tools import url_matcher, url_pattern
from trailblaze.tools.authoring import tool
from trailblaze.tools.bounds import Count, WaitMs
from trailblaze.tools.model import ToolContext
from trailblaze.tools.params import Ref, Target, TimeoutMs

if TYPE_CHECKING:
    from playwright.async_api import Locator

WEB = ["web"]
#: seconds between two looks of a check that reads a value (Playwright's own waits poll in the page)
POLL_S = 0.1
State = Literal["ENABLED", "DISABLED", "CHECKED", "UNCHECKED", "EDITABLE", "FOCUSED"]
#: what an element in each state is called, and what it is called when it is not in it
_STATE_WORDS: dict[str, tuple[str, str]] = {
    "ENABLED": ("enabled", "disabled"),
    "DISABLED": ("disabled", "enabled"),
    "CHECKED": ("checked", "unchecked"),
    "UNCHECKED": ("unchecked", "checked"),
    "EDITABLE": ("editable", "not editable"),
    "FOCUSED": ("focused", "not focused"),
}
#: whether the element has the focus (in its document or shadow root), as Playwright's toBeFocused
_FOCUSED = "e => e.getRootNode().activeElement === e"


# -- not visible ------------------------------------------------------------------------------------


async def text_not_visible(ctx: ToolContext, text: str, timeout_ms: int | None) -> str:
    """``assertNotVisibleWithText`` on a page: no visible element's whole text is ``text`` (a
    regex, or the text itself), as a phone matches it."""
    page = calls.device(ctx).page
    return await until_hidden(ctx, locators.by_text(page, text), f"text {text!r}", calls.seconds(ctx, timeout_ms))


async def selector_not_visible(ctx: ToolContext, selector: NodeSelector, timeout_ms: int | None) -> str:
    """``assertNotVisibleBySelector`` on a page: no visible element matches ``selector``. A
    selector without a ``web:`` block fails (it was recorded for another driver): it must not
    pass for finding nothing."""
    page = calls.device(ctx).page
    what = selector.describe()
    timeout = calls.seconds(ctx, timeout_ms)
    if locators.needs_layout(selector):
        return await _laid_out_until_hidden(ctx, selector, what, timeout)
    return await until_hidden(ctx, locators.build(page, selector), what, timeout)


async def until_hidden(ctx: ToolContext, matching: Locator, what: str, timeout: float) -> str:
    """Wait until none of the elements ``matching`` finds is visible — none is there, or each is
    hidden — at once when that is so already (Playwright's ``not.toBeVisible()``); when one
    still is after ``timeout`` seconds, fail naming what is shown."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    visible = matching.filter(visible=True)
    still = False
    async with calls.acting(ctx, f"{what} not visible", timeout):
        try:
            await visible.first.wait_for(state="hidden", timeout=timeout * 1000)
        except PlaywrightTimeout:
            still = True
    if still:
        raise ToolFailure(await _still_visible(ctx, visible, what, timeout))
    return f"{what} is not visible"


async def _laid_out_until_hidden(ctx: ToolContext, selector: NodeSelector, what: str, timeout: float) -> str:
    """:func:`until_hidden` for a selector whose spatial relations or ``index`` pick among the
    matches by their boxes: the page is looked at again until none is picked or it is hidden."""
    page = calls.device(ctx).page
    deadline = time.monotonic() + timeout
    while True:
        async with calls.acting(ctx, f"{what} not visible", timeout):
            picked = await locators.laid_out_now(page, selector)
            shown = picked is not None and await picked.is_visible()
        if not shown:
            return f"{what} is not visible"
        if time.monotonic() >= deadline:
            assert picked is not None
            raise ToolFailure(await _still_visible(ctx, picked, what, timeout))
        await asyncio.sleep(POLL_S)


async def _still_visible(ctx: ToolContext, visible: Locator, what: str, timeout: float) -> str:
    """``text 'Loading…': still visible after 2s (1 element visible: 'Loading…')``: the elements
    themselves say what is on screen, so the rest of the page stays in the step's evidence."""
    try:  # bounded, as every read of the page for a message
        texts = await asyncio.wait_for(visible.all_inner_texts(), calls.OUTLINE_S)
    except Exception:
        texts = []
    shown = ", ".join(repr(" ".join(t.split())[:80]) for t in texts[:5] if t.strip())
    seen = f" ({calls.elements(len(texts))} visible{': ' + shown if shown else ''})" if texts else ""
    return f"{what}: still visible after {timeout:g}s{seen}"


@tool(name="web_verifyTextNotVisible", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_text_not_visible(
    ctx: ToolContext,
    text: Annotated[str, Field(description="Text that must not be visible: a part of an element's text")],
    timeoutMs: Annotated[WaitMs | None, Field(description="How long it may take to go away, in milliseconds")] = None,
) -> str:
    """Check that text is not visible on the page (no visible element's text contains it,
    case-insensitive: what web_verifyTextVisible would find). Passes as soon as it is absent or
    hidden; fails if it is still visible at the timeout."""
    page = calls.device(ctx).page
    return await until_hidden(ctx, page.get_by_text(text), f"text {text!r}", calls.seconds(ctx, timeoutMs))


# -- count, state --------------------------------------------------------------------------------------


@tool(name="web_verifyElementCount", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_element_count(
    ctx: ToolContext,
    count: Annotated[Count, Field(description="How many elements the selector must find")],
    nodeSelector: Annotated[
        NodeSelector, Field(description="The elements to count, as a stable selector (no index nor below/above…)")
    ],
    visibleOnly: Annotated[
        bool, Field(description="Count the visible elements only (false: hidden ones too, as Playwright counts)")
    ] = True,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Check how many elements a selector finds (Playwright's toHaveCount): the visible ones,
    unless visibleOnly is false. Waits until the number is right; fails with the number found."""
    if locators.needs_layout(nodeSelector):
        raise ToolFailure("web_verifyElementCount counts every match: give a selector without index, below, above…")
    page = calls.device(ctx).page
    what = nodeSelector.describe()
    matching = locators.build(page, nodeSelector)
    counted = matching.filter(visible=True) if visibleOnly else matching
    timeout = calls.seconds(ctx, timeoutMs)
    deadline = time.monotonic() + timeout
    while True:
        async with calls.acting(ctx, what, timeout):
            found = await counted.count()
        if found == count:
            return f"{what}: {calls.elements(found)}"
        if time.monotonic() >= deadline:
            kind = " visible" if visibleOnly else ""
            message = f"{what}: {calls.elements(found)}{kind}, expected {count} (waited {timeout:g}s)"
            raise ToolFailure(message + (f"; {await calls.on_screen(ctx)}" if found == 0 else ""))
        await asyncio.sleep(POLL_S)


@tool(name="web_verifyElementState", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_element_state(
    ctx: ToolContext,
    state: Annotated[
        State, Field(description="ENABLED, DISABLED, CHECKED, UNCHECKED, EDITABLE or FOCUSED: what it must be")
    ],
    ref: Ref = None,
    nodeSelector: Target = None,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Check that an element is enabled or disabled, checked or unchecked (checkboxes, radio
    buttons, ARIA checked), editable, or focused (Playwright's toBeEnabled, toBeDisabled,
    toBeChecked, toBeEditable, toBeFocused). Waits until it is; fails saying what it is."""
    timeout = calls.seconds(ctx, timeoutMs)
    matching, what = await calls.target(ctx, nodeSelector, ref, timeout)
    element = matching.first
    deadline = time.monotonic() + timeout
    # the first read waits for the element, as every read does: when none comes, the failure
    # says how many matched, as the other checks' do
    async with calls.acting(ctx, what, timeout, matching):
        holds = await _in_state(element, state, timeout * 1000)
    while not holds:
        if time.monotonic() >= deadline:
            wanted, other = _STATE_WORDS[state]
            raise ToolFailure(f"{what} is {other}, expected {wanted} (waited {timeout:g}s)")
        await asyncio.sleep(POLL_S)
        remaining_ms = max(100.0, (deadline - time.monotonic()) * 1000)
        async with calls.acting(ctx, what, timeout, matching):
            holds = await _in_state(element, state, remaining_ms)
    return f"{what} is {_STATE_WORDS[state][0]}"


async def _in_state(element: Locator, state: str, timeout_ms: float) -> bool:
    if state in ("ENABLED", "DISABLED"):
        return await element.is_enabled(timeout=timeout_ms) == (state == "ENABLED")
    if state in ("CHECKED", "UNCHECKED"):
        return await element.is_checked(timeout=timeout_ms) == (state == "CHECKED")
    if state == "EDITABLE":
        return await element.is_editable(timeout=timeout_ms)
    focused: bool = await element.evaluate(_FOCUSED, timeout=timeout_ms)
    return focused


# -- the page ------------------------------------------------------------------------------------------


@tool(name="web_verifyUrl", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_url(
    ctx: ToolContext,
    pattern: Annotated[
        str,
        AfterValidator(url_pattern),
        Field(description="What the URL must match: a regex, a glob with * or **, or a part of the URL"),
    ],
    timeoutMs: Annotated[WaitMs | None, Field(description="How long it may take to match, in milliseconds")] = None,
) -> str:
    """Check the page's URL (Playwright's toHaveURL): a regex (if it uses regex syntax), a glob
    with * or **, or otherwise a part of the URL, as web_waitForUrl matches it. Waits until it
    matches; fails with the URL the page has."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    page = calls.device(ctx).page
    matcher, timed_out = url_matcher(pattern)
    timeout = calls.seconds(ctx, timeoutMs)
    missed = False
    async with calls.acting(ctx, f"URL {pattern!r}", timeout):
        try:
            await page.wait_for_url(matcher, timeout=timeout * 1000, wait_until="commit")
        except PlaywrightTimeout:
            missed = True
    if timed_out:  # the pattern, not the page, ran out of time
        raise timed_out[0]
    if missed:
        raise ToolFailure(f"the URL is {page.url!r}, expected {pattern!r} (waited {timeout:g}s)")
    return page.url


@tool(name="web_verifyTitle", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_title(
    ctx: ToolContext,
    expected: Annotated[str, Field(description="The expected title: a whole-title regex, or the exact text")],
    timeoutMs: Annotated[WaitMs | None, Field(description="How long it may take to match, in milliseconds")] = None,
) -> str:
    """Check the page's title (Playwright's toHaveTitle): it must match ``expected`` as a
    whole-title regex, or equal it. Waits until it does; fails with the title the page has."""
    page = calls.device(ctx).page
    timeout = calls.seconds(ctx, timeoutMs)
    deadline = time.monotonic() + timeout
    while True:
        async with calls.acting(ctx, "the title", timeout):
            title = await page.title()
        if text_matches(expected, title) or text_matches(expected, title.strip()):
            return title
        if time.monotonic() >= deadline:
            raise ToolFailure(f"the title is {title!r}, expected {expected!r} (waited {timeout:g}s)")
        await asyncio.sleep(POLL_S)


WEB_CHECKS = (
    web_verify_text_not_visible,
    web_verify_element_count,
    web_verify_element_state,
    web_verify_url,
    web_verify_title,
)
