"""The web tools, with upstream Trailblaze's names and parameters (tools.md, "Web").

Targets are a ``nodeSelector`` (stable; what recordings hold) or a ``ref`` (ephemeral, from the
current snapshot; ignored when a ``nodeSelector`` is present). Actions and checks wait for the
element to be attached, visible and enabled, up to the call's ``timeoutMs`` or the trail's
timeout — never a fixed sleep. ``timeoutMs`` on these tools is this project's addition.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field, FiniteFloat, SecretStr

from trailblaze.core.errors import ToolFailure
from trailblaze.core.pathnames import path_component
from trailblaze.device import masking
from trailblaze.device.selectors import NodeSelector, RegexTimeout, compile_search, regex_problem, text_matches
from trailblaze.drivers.web import calls, locators
from trailblaze.drivers.web.device import scroll_delta
from trailblaze.tools.authoring import tool
from trailblaze.tools.bounds import Pixels, WaitMs
from trailblaze.tools.coretools import save_snapshot
from trailblaze.tools.model import ToolContext
from trailblaze.tools.params import Ref, Target, TimeoutMs

if TYPE_CHECKING:
    from playwright.async_api import Locator


WEB = ["web"]
_NAMED_KEYS = {
    k.lower(): k
    for k in (
        "Enter",
        "Tab",
        "Escape",
        "Backspace",
        "Delete",
        "Space",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "Home",
        "End",
        "PageUp",
        "PageDown",
        "Insert",
    )
}
_NAMED_KEYS.update(
    {
        "esc": "Escape",
        "return": "Enter",
        "up": "ArrowUp",
        "down": "ArrowDown",
        "left": "ArrowLeft",
        "right": "ArrowRight",
        "space": " ",
    }
)


@tool(name="web_navigate", platforms=WEB)
async def web_navigate(
    ctx: ToolContext,
    url: Annotated[str | None, Field(description="The URL to open (GOTO)")] = None,
    action: Annotated[
        Literal["GOTO", "BACK", "FORWARD", "RELOAD"], Field(description="GOTO the url, or go BACK, FORWARD, RELOAD")
    ] = "GOTO",
    timeoutMs: Annotated[
        WaitMs | None, Field(description="How long the page may take to load, in milliseconds")
    ] = None,
) -> str:
    """Open a URL (absolute; '/path' against base_url; other relative paths next to the trail
    file), or go BACK / FORWARD in history."""
    device = calls.device(ctx)
    page = device.page
    timeout = calls.seconds(ctx, timeoutMs)
    async with calls.acting(ctx, f"{action.lower()} {url or ''}".strip(), timeout):
        if action == "GOTO":
            if not url:
                raise ToolFailure("web_navigate GOTO needs a url")
            target = device.absolute_url(url, ctx.trail_path)
            await page.goto(target, timeout=timeout * 1000)
        elif action == "BACK":
            await page.go_back(timeout=timeout * 1000)
        elif action == "FORWARD":
            await page.go_forward(timeout=timeout * 1000)
        else:
            await page.reload(timeout=timeout * 1000)
    return page.url


@tool(name="web_click", platforms=WEB)
async def web_click(
    ctx: ToolContext,
    ref: Ref = None,
    nodeSelector: Target = None,
    longPress: Annotated[bool, Field(description="Hold the mouse button down for 0.8 s")] = False,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Click an element (the first, when the selector matches several, as upstream clicks)."""
    timeout = calls.seconds(ctx, timeoutMs)
    locator, what = await calls.target(ctx, nodeSelector, ref, timeout)
    async with calls.acting(ctx, f"click {what}", timeout, locator):
        await locator.first.click(timeout=timeout * 1000, delay=800 if longPress else 0)
    return f"clicked {what}"


@tool(name="web_type", platforms=WEB)
async def web_type(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The text to type")],
    ref: Ref = None,
    nodeSelector: Target = None,
    clearFirst: Annotated[bool, Field(description="Replace the field's content (false: type after it)")] = True,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Type text into a field (replacing its content unless clearFirst is false); without a
    target, type into the focused element."""
    timeout = calls.seconds(ctx, timeoutMs)
    if nodeSelector is None and ref is None:
        async with calls.acting(ctx, "type into the focused element", timeout):
            await calls.device(ctx).page.keyboard.type(text)
        return "typed into the focused element"
    locator, what = await calls.target(ctx, nodeSelector, ref, timeout)
    async with calls.acting(ctx, f"type into {what}", timeout, locator):
        if clearFirst:
            await locator.fill(text, timeout=timeout * 1000)
        else:
            await locator.press_sequentially(text, timeout=timeout * 1000)
    return f"typed into {what}"


@tool(name="web_fillSecret", platforms=WEB)
async def web_fill_secret(
    ctx: ToolContext,
    value: Annotated[SecretStr, Field(description="The secret, best as a ${VARIABLE} so the trail does not hold it")],
    ref: Ref = None,
    nodeSelector: Target = None,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Fill a field with a secret; the value never appears in logs or reports."""
    timeout = calls.seconds(ctx, timeoutMs)
    locator, what = await calls.target(ctx, nodeSelector, ref, timeout)
    async with calls.acting(ctx, f"fill {what}", timeout, locator):
        await locator.fill(value.get_secret_value(), timeout=timeout * 1000)
    return f"filled {what}"


@tool(name="web_selectOption", platforms=WEB)
async def web_select_option(
    ctx: ToolContext,
    values: Annotated[list[str], Field(description="The options to select, by value or visible label")],
    ref: Ref = None,
    nodeSelector: Target = None,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Select options of a <select> by value or visible label."""
    if not values:
        raise ToolFailure("web_selectOption needs at least one value")
    timeout = calls.seconds(ctx, timeoutMs)
    locator, what = await calls.target(ctx, nodeSelector, ref, timeout)
    async with calls.acting(ctx, f"select {values} in {what}", timeout, locator):
        selected = await locator.select_option(values, timeout=timeout * 1000)
    return f"selected {', '.join(selected)} in {what}"


@tool(name="web_pressKey", platforms=WEB)
async def web_press_key(
    ctx: ToolContext, key: Annotated[str, Field(description="The key, e.g. Enter, Tab, Escape, ArrowDown, Control+A")]
) -> str:
    """Press a key or combination (Playwright names: Enter, Tab, Escape, ArrowDown, Control+A)."""
    name = "+".join(_NAMED_KEYS.get(part.lower(), part) for part in key.split("+")) if key != "+" else key
    async with calls.acting(ctx, f"press {name}", ctx.timeout):
        await calls.device(ctx).page.keyboard.press(name)
    return f"pressed {name}"


@tool(name="web_scroll", platforms=WEB)
async def web_scroll(
    ctx: ToolContext,
    direction: Annotated[Literal["UP", "DOWN", "LEFT", "RIGHT"], Field(description="Which way to scroll")] = "DOWN",
    amount: Annotated[Pixels, Field(description="How far, in pixels")] = 500,
    ref: Annotated[str | None, Field(description="The ref of a scrollable element (default: the page)")] = None,
    nodeSelector: Annotated[
        NodeSelector | None, Field(description="Instead of ref, the scrollable element as a stable selector")
    ] = None,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Scroll the page, or the given scrollable element, by an amount in pixels."""
    dx, dy = scroll_delta(direction, amount)
    page = calls.device(ctx).page
    timeout = calls.seconds(ctx, timeoutMs)
    if nodeSelector is None and ref is None:
        await page.evaluate("([dx, dy]) => window.scrollBy(dx, dy)", [dx, dy])
        return f"scrolled the page {direction.lower()} {amount}px"
    matches, what = await calls.target(ctx, nodeSelector, ref, timeout)
    locator = matches.first  # upstream scrolls the first of several
    async with calls.acting(ctx, f"scroll {what}", timeout, matches):
        # the first match, once it is visible: evaluate waits for it (one call, not a wait and a call)
        await locator.filter(visible=True).evaluate(
            "(e, [dx, dy]) => e.scrollBy(dx, dy)", [dx, dy], timeout=timeout * 1000
        )
    return f"scrolled {what} {direction.lower()} {amount}px"


@tool(name="web_hover", platforms=WEB)
async def web_hover(ctx: ToolContext, ref: Ref = None, nodeSelector: Target = None, timeoutMs: TimeoutMs = None) -> str:
    """Move the mouse over an element."""
    timeout = calls.seconds(ctx, timeoutMs)
    locator, what = await calls.target(ctx, nodeSelector, ref, timeout)
    async with calls.acting(ctx, f"hover {what}", timeout, locator):
        await locator.hover(timeout=timeout * 1000)
    return f"hovered {what}"


@tool(name="web_wait", platforms=WEB)
async def web_wait(seconds: Annotated[FiniteFloat, Field(description="How long, in seconds (at most 30)")] = 1) -> str:
    """Wait a fixed time, at most 30 seconds as upstream's (prefer web_verify… checks, which
    wait for what you expect)."""
    waited = min(max(0.0, seconds), WEB_WAIT_LIMIT)
    await asyncio.sleep(waited)
    return f"waited {waited:g}s" + (f" (asked for {seconds:g}s)" if waited != seconds else "")


#: the longest web_wait (upstream's PlaywrightNativeWaitTool coerces seconds into 1…30)
WEB_WAIT_LIMIT = 30.0


def url_pattern(pattern: str) -> str:
    """A URL pattern that uses regex syntax must be a valid regex (checked when the trail loads)."""
    if _is_regex(pattern):
        problem = regex_problem(pattern)
        if problem is not None:
            raise ValueError(problem)
    return pattern


def _is_regex(pattern: str) -> bool:
    return any(c in pattern for c in "^$()|+\\[]{}")


@tool(name="web_waitForUrl", platforms=WEB)
async def web_wait_for_url(
    ctx: ToolContext,
    pattern: Annotated[
        str, AfterValidator(url_pattern), Field(description="A regex, a glob with * or **, or a part of the URL")
    ],
    timeoutMs: Annotated[WaitMs, Field(description="How long to wait, in milliseconds")] = 30000,
) -> str:
    """Wait until the page URL matches: a regex (if it uses regex syntax), a glob with * or **,
    or otherwise a part of the URL."""
    page = calls.device(ctx).page
    matcher, timed_out = url_matcher(pattern)
    timeout = calls.seconds(ctx, timeoutMs)
    async with calls.acting(ctx, f"wait for URL {pattern!r} (now {page.url})", timeout):
        await page.wait_for_url(matcher, timeout=timeout * 1000, wait_until="commit")
    if timed_out:  # the pattern, not the page, ran out of time
        raise timed_out[0]
    return page.url


def url_matcher(pattern: str) -> tuple[Any, list[RegexTimeout]]:
    """What Playwright waits for, and a list that receives the pattern's timeout if a match runs
    out of time (Playwright calls the matcher itself; the wait then ends at once)."""
    timed_out: list[RegexTimeout] = []
    if _is_regex(pattern):
        compiled = compile_search(pattern)

        def matches(url: str) -> bool:
            if timed_out:
                return True  # end the wait: the failure is the timeout
            try:
                return compiled.search(url) is not None
            except RegexTimeout as exc:
                timed_out.append(exc)
                return True

        return matches, timed_out
    if "*" in pattern or "?" in pattern:
        return pattern, timed_out
    return (lambda url: pattern in url), timed_out


@tool(name="web_snapshot", platforms=WEB)
async def web_snapshot(
    ctx: ToolContext, screenName: Annotated[str, Field(description="A name for the saved files")]
) -> dict[str, Any]:
    """Save a screenshot and the ARIA snapshot of the page as artifacts of this trail."""
    page = calls.device(ctx).page
    files: list[str] = []
    if ctx.artifacts_dir is not None:
        folder = ctx.artifacts_dir
        stem = path_component(screenName, fallback="snapshot")
        image = await page.screenshot(full_page=True)
        aria = masking.redact((await locators.read_page(page))[0], ctx.secrets)  # a filled secret shows
        contents = {folder / f"{stem}.png": image, folder / f"{stem}.aria.yaml": aria.encode("utf-8")}
        save_snapshot(contents)
        files = [str(path) for path in contents]
    return {"screenName": screenName, "url": page.url, "files": files}


@tool(name="web_verifyTextVisible", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_text_visible(
    ctx: ToolContext,
    text: Annotated[str, Field(description="Text that must be visible: a part of an element's text")],
    timeoutMs: Annotated[WaitMs | None, Field(description="How long to wait for it, in milliseconds")] = None,
) -> str:
    """Check that text is visible on the page (a part of an element's text, case-insensitive)."""
    timeout = calls.seconds(ctx, timeoutMs)
    matching = calls.device(ctx).page.get_by_text(text)
    locator = matching.filter(visible=True).first
    async with calls.acting(ctx, f"text {text!r} visible", timeout, matching):
        await locator.wait_for(state="visible", timeout=timeout * 1000)
    return f"{text!r} is visible"


@tool(name="web_verifyElementVisible", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_element_visible(
    ctx: ToolContext,
    ref: Ref = None,
    nodeSelector: Target = None,
    expectedText: Annotated[str | None, Field(description="Text the element must also show")] = None,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Check that an element is visible (and, with expectedText, shows that text)."""
    timeout = calls.seconds(ctx, timeoutMs)
    locator, what = await calls.target(ctx, nodeSelector, ref, timeout)
    visible = locator.filter(visible=True).first
    if expectedText is None:
        async with calls.acting(ctx, f"{what} visible", timeout, locator):
            await visible.wait_for(state="visible", timeout=timeout * 1000)
    else:  # one call waits for the visible element and reads its text (as toHaveText), not two
        await _wait_for_value(ctx, locator, expectedText, "TEXT", None, timeout, what, visible=visible)
    return f"{what} is visible"


@tool(name="web_verifyListVisible", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_list_visible(
    ctx: ToolContext,
    items: Annotated[list[str], Field(description="Texts that must all be visible")],
    ref: Annotated[str | None, Field(description="The ref of the list to look in (default: the page)")] = None,
    nodeSelector: Annotated[
        NodeSelector | None, Field(description="Instead of ref, the list as a stable selector")
    ] = None,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Check that every item's text is visible (inside the element, when one is given)."""
    timeout = calls.seconds(ctx, timeoutMs)
    scope: Any = calls.device(ctx).page
    if nodeSelector is not None or ref is not None:
        scope, _ = await calls.target(ctx, nodeSelector, ref, timeout)
    for item in items:
        async with calls.acting(ctx, f"list item {item!r} visible", timeout):
            await scope.get_by_text(item).filter(visible=True).first.wait_for(state="visible", timeout=timeout * 1000)
    return f"{len(items)} items visible"


@tool(name="web_verifyValue", verification=True, groups=["verification"], platforms=WEB)
async def web_verify_value(
    ctx: ToolContext,
    expected: Annotated[str, Field(description="The expected value: a whole-value regex, or the exact text")],
    type: Annotated[
        Literal["TEXT", "VALUE", "ATTRIBUTE"], Field(description="What to read: its TEXT, input VALUE or an ATTRIBUTE")
    ] = "TEXT",
    attribute: Annotated[str | None, Field(description="The attribute to read (type ATTRIBUTE)")] = None,
    ref: Ref = None,
    nodeSelector: Target = None,
    timeoutMs: TimeoutMs = None,
) -> str:
    """Check an element's text, input value or attribute: it must match ``expected`` as a
    whole-value regex, or equal it."""
    if type == "ATTRIBUTE" and not attribute:
        raise ToolFailure("web_verifyValue with type ATTRIBUTE needs `attribute`")
    timeout = calls.seconds(ctx, timeoutMs)
    locator, what = await calls.target(ctx, nodeSelector, ref, timeout)
    actual = await _wait_for_value(ctx, locator, expected, type, attribute, timeout, what)
    return f"{what} has {actual!r}"


async def _wait_for_value(
    ctx: ToolContext,
    locator: Locator,
    expected: str,
    kind: str,
    attribute: str | None,
    timeout: float,
    what: str,
    *,
    visible: Locator | None = None,
) -> str | None:
    """Wait until the element's text, value or attribute matches ``expected``; when it never
    does, fail with the value it had (a wrong value is the answer, not "not possible").
    ``visible``: read this element instead of ``locator``'s first, the first read failing as
    "``what`` visible" when none comes (web_verifyElementVisible's ``expectedText``)."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout
    element = visible if visible is not None else locator.first
    # the first read waits for the element as every read does (one call, not a wait and a read):
    # when none comes, the failure says how many matched, as the other checks' do
    async with calls.acting(ctx, what if visible is None else f"{what} visible", timeout, locator):
        actual: str | None = await _read(element, kind, attribute, timeout * 1000)
    while True:
        if actual is not None and (text_matches(expected, actual) or text_matches(expected, actual.strip())):
            return actual
        if time.monotonic() >= deadline:
            shown = f"{kind.lower()} of {what}" if kind != "ATTRIBUTE" else f"{attribute} of {what}"
            raise ToolFailure(f"{shown} is {actual!r}, expected {expected!r} (waited {timeout:g}s)")
        await asyncio.sleep(0.1)
        remaining_ms = max(100.0, (deadline - time.monotonic()) * 1000)
        # a timeout here means the element was replaced while we looked: look again until the deadline
        async with calls.acting(ctx, what, timeout):
            with contextlib.suppress(PlaywrightTimeout):
                actual = await _read(element, kind, attribute, remaining_ms)


async def _read(element: Locator, kind: str, attribute: str | None, timeout_ms: float) -> str | None:
    if kind == "VALUE":
        return await element.input_value(timeout=timeout_ms)
    if kind == "ATTRIBUTE":
        return await element.get_attribute(attribute or "", timeout=timeout_ms)
    return " ".join((await element.inner_text(timeout=timeout_ms)).split())


@tool(name="web_currentUrl", platforms=WEB, query=True)
async def web_current_url(ctx: ToolContext) -> str:
    """The URL of the page."""
    return calls.device(ctx).page.url


@tool(name="web_evaluate", recordable=False, exposed_to_llm=False, platforms=WEB)
async def web_evaluate(
    ctx: ToolContext, script: Annotated[str, Field(description="A JavaScript expression or function")]
) -> Any:
    """Run JavaScript in the page and return its (JSON) result; a script that does not finish
    within the timeout fails the step."""
    async with calls.acting(ctx, "evaluate script", ctx.timeout):
        try:
            result = await asyncio.wait_for(calls.device(ctx).page.evaluate(script), ctx.timeout)
        except TimeoutError:
            # a script in an endless loop leaves the page answering nothing: say so, and let the
            # step's evidence know (it would wait for a screenshot the page cannot take)
            stuck = not await calls.device(ctx).answers()
            raise ToolFailure(
                f"evaluate script: it did not finish within {ctx.timeout:g}s (--timeout, or config.timeout of the "
                "trail)" + ("; the page stopped answering (its script does not return)" if stuck else "")
            ) from None
    try:
        json.dumps(result)
    except (TypeError, ValueError):
        result = repr(result)
    return result


#: a side of the viewport, within what Chromium takes (Emulation.setDeviceMetricsOverride)
ViewportSide = Annotated[int, Field(gt=0, le=10_000_000, description="In CSS pixels")]


@tool(name="web_resize", platforms=WEB)
async def web_resize(ctx: ToolContext, width: ViewportSide, height: ViewportSide) -> str:
    """Resize the viewport."""
    await calls.device(ctx).page.set_viewport_size({"width": width, "height": height})
    return f"viewport {width}x{height}"


WEB_TOOLS = (
    web_navigate,
    web_click,
    web_type,
    web_fill_secret,
    web_select_option,
    web_press_key,
    web_scroll,
    web_hover,
    web_wait,
    web_wait_for_url,
    web_snapshot,
    web_verify_text_visible,
    web_verify_element_visible,
    web_verify_list_visible,
    web_verify_value,
    web_current_url,
    web_evaluate,
    web_resize,
)
