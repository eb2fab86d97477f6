"""Upstream's generic tools for scripted tools and agents: ``findMatches``, ``waitUntilNotVisible``
(non-throwing probes), ``rememberNumber``, ``inputTextRandom`` and ``longPress``. Declared by
the tool files in ``trailblaze/trailmaps/trailblaze/tools/``.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import Annotated, Any, Protocol, cast

from pydantic import Field

from trailblaze.core.errors import ToolFailure
from trailblaze.tools.authoring import tool
from trailblaze.tools.bounds import Count, WaitMs
from trailblaze.tools.model import Delegate, ToolContext
from trailblaze.tools.params import LegacyTarget, Prompt, ReadTarget, RequiredRef, RequiredTarget, Variable


class _HidesKeyboard(Protocol):
    """A phone's device (the mobile drivers'): it can put the keyboard away."""

    async def hide_keyboard(self) -> bool: ...


#: a number, with or without thousands separators
_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_POLL = 0.1
#: reads what a web element is called and where it sits among its siblings, for descriptors
_WEB_DESCRIPTOR = """e => {
  const path = [];
  for (let n = e; n && n.parentElement; n = n.parentElement) path.unshift([...n.parentElement.children].indexOf(n));
  const label = e.getAttribute('aria-label');
  const text = (e.innerText || e.value || '').trim();
  return {indexPath: path, matchedText: label || text || null, accessibilityId: label,
          resourceId: e.getAttribute('data-testid') || e.id || null};
}"""


@tool(name="findMatches", query=True, exposed_to_llm=False)
async def find_matches(
    ctx: ToolContext,
    selector: RequiredTarget,
    timeoutMs: Annotated[WaitMs | None, Field(description="Wait up to this long for a match, in milliseconds")] = None,
) -> list[dict[str, Any]]:
    """Every element the selector matches, as {indexPath, bounds, matchedText, accessibilityId,
    resourceId}; with timeoutMs, waits up to that long for at least one (an empty list is an
    answer, not a failure)."""
    deadline = time.monotonic() + max(0, timeoutMs or 0) / 1000
    while True:
        found = await ctx.commands.find(selector=selector)
        if found or timeoutMs is None or time.monotonic() >= deadline:
            return [await _descriptor(ctx, item) for item in found]
        await asyncio.sleep(_POLL)


@tool(name="waitUntilNotVisible", recordable=False, exposed_to_llm=False)
async def wait_until_not_visible(
    ctx: ToolContext,
    nodeSelector: RequiredTarget,
    timeoutMs: Annotated[WaitMs | None, Field(description="How long to wait, in milliseconds")] = None,
) -> bool:
    """Wait for the element to go away; true when it is (or became) not visible, false when it
    is still there after the wait. An answer for scripted tools to branch on, as upstream's: it
    never fails a step (nor may a verify: step hold it). To check that something is gone, use
    assertNotVisibleBySelector, which fails when it is still visible."""
    deadline = time.monotonic() + (ctx.timeout if timeoutMs is None else max(0, timeoutMs) / 1000)
    while True:
        if not await ctx.commands.find(selector=nodeSelector):
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL)


async def _descriptor(ctx: ToolContext, item: Any) -> dict[str, Any]:
    if ctx.device.platform == "web":  # a Playwright locator for one element
        box = await item.bounding_box()
        found: dict[str, Any] = await item.evaluate(_WEB_DESCRIPTOR)
        bounds = None
        if box is not None:
            left, top = round(box["x"]), round(box["y"])
            bounds = {
                "left": left,
                "top": top,
                "right": left + round(box["width"]),
                "bottom": top + round(box["height"]),
            }
        return {
            "indexPath": found["indexPath"],
            "bounds": bounds,
            **{k: found[k] for k in ("matchedText", "accessibilityId", "resourceId")},
        }
    path: list[int] = []
    node = item
    while node.parent is not None:
        path.insert(0, next(i for i, child in enumerate(node.parent.children) if child is node))
        node = node.parent
    b = item.bounds
    return {
        "indexPath": path,
        "bounds": None if b is None else {"left": b.left, "top": b.top, "right": b.right, "bottom": b.bottom},
        "matchedText": item.text or item.hint or item.description,
        "accessibilityId": item.description,
        "resourceId": item.id,
    }


@tool(name="rememberNumber", groups=["memory"])
async def remember_number(
    ctx: ToolContext,
    variable: Variable,
    prompt: Prompt = None,
    nodeSelector: ReadTarget = None,
    selector: LegacyTarget = None,
) -> dict[str, Any]:
    """Read a number from an element into memory as {{memory.<variable>}} (thousands separators
    dropped)."""
    from trailblaze.tools.coretools import legacy_selector_for

    if nodeSelector is None and selector is None:
        raise ToolFailure(
            f"rememberNumber {prompt!r} without nodeSelector/selector needs an agent to read the screen; "
            "record it again to get a selector"
        )
    text = await ctx.commands.get_element_text(selector=nodeSelector or legacy_selector_for(ctx, selector))
    if text is None:
        raise ToolFailure(f"no element to read for {variable!r}")
    number = pick_number(text.strip())
    if number is None:
        raise ToolFailure(f"no number in {text!r}")
    ctx.memory[variable] = number
    return {variable: number}


def pick_number(text: str) -> str | None:
    """The number a text shows, as upstream picks it: the one ending the text, else the one
    starting it, else the first; thousands separators dropped. (Upstream's own pattern cuts
    "1234" at the end of a text to "234"; whole numbers are taken here.)"""
    found = list(_NUMBER.finditer(text))
    if not found:
        return None
    ending = [m for m in found if m.end() == len(text)]
    starting = [m for m in found if m.start() == 0]
    return (ending or starting or found)[0].group(0).replace(",", "")


@tool(name="inputTextRandom")
async def input_text_random(
    ctx: ToolContext,
    variable: Annotated[str, Field(description="The name to remember the value under: {{memory.<variable>}}")],
    prefix: Annotated[str, Field(description="What the value starts with")] = "TBZ-",
    digitCount: Annotated[Count, Field(description="How many random digits follow")] = 6,
    hideKeyboardAfter: Annotated[bool, Field(description="Put a phone's keyboard away afterwards")] = True,
) -> str:
    """Type a fresh unique value (the prefix and random digits, e.g. TBZ-481732) into the focused
    field and remember it as {{memory.<variable>}}, so a later step can find what this run made."""
    if not variable.strip():
        raise ToolFailure("variable must be a name")
    if digitCount <= 0:
        raise ToolFailure(f"digitCount must be > 0, got {digitCount}")
    value = prefix + "".join(random.choices("0123456789", k=digitCount))
    ctx.memory[variable] = value
    await ctx.commands.input_text(value)
    if hideKeyboardAfter and ctx.device.platform in ("android", "ios"):
        await cast(_HidesKeyboard, ctx.driver).hide_keyboard()
    return f"typed {value!r} and remembered it as {variable!r}"


@tool(name="longPress", platforms=["android", "ios"], delegating=True, groups=["core"])
async def long_press(ctx: ToolContext, ref: RequiredRef) -> list[Delegate]:
    """Press and hold the element with this ref from the current screen (context menus, drag
    handles, multi-select)."""
    return [Delegate("tap", {"ref": ref, "longPress": True})]
