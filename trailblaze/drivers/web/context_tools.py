"""Upstream's web tools for the browser context itself: storage state, cookies, the network log
and richer snapshots (``web_getStorageState``, ``web_applyCookies``, ``web_assertNetworkEvent``,
``web_requestDetails``; upstream's names and arguments). Declared by the tool files in
``trailblaze/trailmaps/web/tools/``.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from trailblaze.core import jsonsource
from trailblaze.core.errors import ToolFailure
from trailblaze.tools.authoring import tool
from trailblaze.tools.bounds import WaitMs
from trailblaze.tools.model import ToolContext

if TYPE_CHECKING:
    from trailblaze.drivers.web.device import WebDevice

WEB = ["web"]
_POLL = 0.1
_COOKIE_FIELDS = ("name", "value", "url", "domain", "path", "expires", "httpOnly", "secure", "sameSite")
Detail = Literal["BOUNDS", "CSS_SELECTORS", "OFFSCREEN_ELEMENTS", "OCCLUDED_ELEMENTS"]


def _web(ctx: ToolContext) -> WebDevice:
    from trailblaze.drivers.web.device import WebDevice

    if not isinstance(ctx.driver, WebDevice):
        raise NotImplementedError(f"{ctx.tool.name} needs the playwright-native driver")
    return ctx.driver


@tool(name="web_getStorageState", platforms=WEB, query=True, exposed_to_llm=False)
async def web_get_storage_state(ctx: ToolContext) -> str:
    """The browser context's storage state (cookies and each origin's localStorage) as JSON in
    Playwright's format; web_applyCookies takes it back."""
    state = await _web(ctx).page.context.storage_state()
    return json.dumps(state)


@tool(name="web_applyCookies", platforms=WEB, exposed_to_llm=False)
async def web_apply_cookies(
    ctx: ToolContext,
    cookiesJson: Annotated[str, Field(description="A JSON array of cookies, or a whole storage state")] = "",
) -> str:
    """Add cookies to the browser context: a JSON array of cookies in Playwright's shape
    ({name, value, domain, path, …} or {name, value, url}), or a whole storage state."""
    if not cookiesJson.strip():
        raise ToolFailure("cookiesJson is required")
    try:
        parsed = jsonsource.parse(cookiesJson)
    except jsonsource.JsonError as exc:
        raise ToolFailure(f"cookiesJson is not JSON: {exc}") from None
    cookies = parsed.get("cookies") if isinstance(parsed, dict) else parsed
    if not isinstance(cookies, list):
        raise ToolFailure("cookiesJson must be a JSON array of cookies, or a storage state with a `cookies` field")
    wanted = [_cookie(c) for c in cookies if isinstance(c, dict) and "name" in c and "value" in c]
    if wanted:
        try:
            await _web(ctx).page.context.add_cookies(wanted)  # type: ignore[arg-type]
        except Exception as exc:  # Playwright's message says which cookie is wrong
            raise ToolFailure(f"the browser refused the cookies: {' '.join(str(exc).split())}") from None
    return f"applied {len(wanted)} cookie(s)"


def _cookie(raw: dict[str, Any]) -> dict[str, Any]:
    cookie = {key: raw[key] for key in _COOKIE_FIELDS if raw.get(key) is not None}
    same_site = str(cookie.get("sameSite", "")).capitalize()
    if same_site in ("Strict", "Lax", "None"):
        cookie["sameSite"] = same_site
    else:
        cookie.pop("sameSite", None)
    return cookie


@tool(name="web_assertNetworkEvent", platforms=WEB, verification=True)
async def web_assert_network_event(
    ctx: ToolContext,
    eventName: Annotated[str, Field(description="Text a request's URL or body must contain")],
    timeoutMs: Annotated[WaitMs, Field(description="How long to wait for it, in milliseconds")] = 5000,
) -> str:
    """Check that a request the page sent during this trail names ``eventName`` in its URL or
    body (case-insensitive): an analytics beacon or instrumentation signal fired. Waits up to
    ``timeoutMs`` for it; one look always happens."""
    if not eventName.strip():
        raise ToolFailure("eventName must not be blank (it would match every request)")
    device = _web(ctx)
    wanted = eventName.lower()
    deadline = time.monotonic() + max(0, timeoutMs) / 1000
    while True:
        seen = list(device.requests)
        if any(wanted in url.lower() or wanted in body.lower() for url, body in seen):
            return f"network event {eventName!r} was sent"
        if time.monotonic() >= deadline:
            raise ToolFailure(
                f"no request named {eventName!r} in its URL or body after {timeoutMs} ms ({len(seen)} requests seen)"
            )
        await asyncio.sleep(_POLL)


@tool(name="web_requestDetails", platforms=WEB, recordable=False, exposed_to_llm=False)
async def web_request_details(
    ctx: ToolContext, include: Annotated[list[Detail], Field(description="The details to ask for")]
) -> str:
    """Ask for more detail in the next view of the page: BOUNDS, CSS_SELECTORS,
    OFFSCREEN_ELEMENTS, OCCLUDED_ELEMENTS. Accepted for upstream's recordings; the page views
    agents get here already list every element with its ref, so nothing changes."""
    _web(ctx)
    if not include:
        raise ToolFailure("name at least one detail (BOUNDS, CSS_SELECTORS, OFFSCREEN_ELEMENTS, OCCLUDED_ELEMENTS)")
    return f"noted: {', '.join(include)}"
