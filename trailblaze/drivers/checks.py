"""Upstream's checks that something is not on the screen, ``assertNotVisibleWithText`` and
``assertNotVisibleBySelector``, on every built-in driver: with upstream's names and arguments,
so one trail checks the same on a phone and on a page.

Each passes as soon as nothing visible matches — nothing was there, or it went away or was
hidden — and fails when something still does at the timeout (the call's ``timeoutMs``, else the
step's), as Maestro's ``assertNotVisible`` and Playwright's ``expect(…).not.toBeVisible()``. A
phone polls its hierarchy (:meth:`~trailblaze.drivers.mobile.device.MobileDevice.assert_not_visible`);
on a page Playwright waits (:mod:`trailblaze.drivers.web.checks`), and a failure says what the page
shows. ``waitUntilNotVisible`` (:mod:`trailblaze.tools.queries`) is the same wait as an answer
for scripted tools, which never fails.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import ElementSelector, NodeSelector
from trailblaze.tools.authoring import tool
from trailblaze.tools.model import ToolContext
from trailblaze.tools.params import TimeoutMs

#: the platforms of the built-in drivers
PLATFORMS = ["android", "ios", "web"]
NotShownText = Annotated[
    str,
    Field(
        description="Text no visible element may show: an element's whole text, as a regular expression or "
        "literally (Loading.* for Loading…)"
    ),
]
NodeTarget = Annotated[
    NodeSelector | None, Field(description="What must not be visible, as a nodeSelector; give this or selector")
]
LegacySelector = Annotated[
    ElementSelector | None,
    Field(description="Instead of nodeSelector, a legacy (Maestro-style) selector, as older recordings hold it"),
]


@tool(name="assertNotVisibleWithText", platforms=PLATFORMS, verification=True, groups=["verification"])
async def assert_not_visible_with_text(ctx: ToolContext, text: NotShownText, timeoutMs: TimeoutMs = None) -> str:
    """Check that no visible element shows this text (its whole text), waiting for one that does
    to go away (a spinner's "Loading…"); fails if one still does at the timeout. On the web,
    web_verifyTextNotVisible checks for a part of a text instead."""
    if ctx.device.platform == "web":
        from trailblaze.drivers.web.checks import text_not_visible

        return await text_not_visible(ctx, text, timeoutMs)
    from trailblaze.drivers.mobile.matching import describe, text_selector
    from trailblaze.drivers.mobile.tools import device, wait_ms

    target = text_selector(text)
    await device(ctx).assert_not_visible(selector=target, timeout_ms=wait_ms(ctx, timeoutMs))
    return f"{describe(target)} is not visible"


@tool(
    name="assertNotVisibleBySelector",
    platforms=PLATFORMS,
    verification=True,
    groups=["verification"],
    exposed_to_llm=False,
)
async def assert_not_visible_by_selector(
    ctx: ToolContext, nodeSelector: NodeTarget = None, selector: LegacySelector = None, timeoutMs: TimeoutMs = None
) -> str:
    """Check that no visible element matches the selector, waiting for one that does to go away
    or be hidden; fails if one still does at the timeout. A selector recorded for another
    platform fails: it cannot pass by finding nothing."""
    if ctx.device.platform == "web":
        from trailblaze.drivers.web.checks import selector_not_visible
        from trailblaze.tools.coretools import legacy_selector_for

        target = nodeSelector if nodeSelector is not None else legacy_selector_for(ctx, selector)
        if target is None:
            raise ToolFailure("give a selector or a nodeSelector")
        return await selector_not_visible(ctx, target, timeoutMs)
    from trailblaze.drivers.mobile.matching import describe
    from trailblaze.drivers.mobile.tools import device, one_of, wait_ms

    found = one_of(selector, nodeSelector)
    await device(ctx).assert_not_visible(selector=found, timeout_ms=wait_ms(ctx, timeoutMs))
    return f"{describe(found)} is not visible"


CHECKS = (assert_not_visible_with_text, assert_not_visible_by_selector)
