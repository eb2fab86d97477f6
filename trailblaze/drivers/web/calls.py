"""What every web tool's call does around Playwright: the device it acts on, its wait, and its
failures turned into messages that say what the page shows (:func:`acting`, :func:`on_screen`),
for the web's tools and checks alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, cast

from trailblaze.core.errors import InfrastructureError, ToolFailure
from trailblaze.core.limits import one_line
from trailblaze.drivers.web import locators

if TYPE_CHECKING:
    from playwright.async_api import Locator

    from trailblaze.device.selectors import NodeSelector
    from trailblaze.drivers.web.device import WebDevice
    from trailblaze.tools.model import ToolContext

_PLAYWRIGHT_METHOD = re.compile(r"^[A-Z]\w*\.\w+: ")


def device(ctx: ToolContext) -> WebDevice:
    """The page's device: a web tool runs on the web driver only."""
    return cast("WebDevice", ctx.driver)


def seconds(ctx: ToolContext, timeout_ms: int | None) -> float:
    """The call's wait in seconds: ``timeoutMs: 0`` looks once (1 ms), as Playwright's 0 would
    wait for ever."""
    return ctx.timeout if timeout_ms is None else max(timeout_ms, 1) / 1000


@contextlib.asynccontextmanager
async def acting(ctx: ToolContext, what: str, timeout: float, matching: Locator | None = None) -> AsyncIterator[None]:
    """Turn Playwright's errors into a step failure (element trouble) or an error (browser
    trouble). A call that timed out says how many elements ``matching`` (its selector) found —
    "0 elements matched" is a selector that is wrong, not a page that is slow — then what on
    the page reads most like what it looked for (:func:`on_screen`)."""
    from playwright.async_api import Error
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        # Playwright's own timeout can be late by many seconds on a page whose script does not
        # return (tracing waits for a DOM snapshot it never gets): the wait is cut off here too
        async with asyncio.timeout(timeout + TIMEOUT_MARGIN_S):
            yield
    except (PlaywrightTimeout, TimeoutError):
        if not await device(ctx).answers():
            raise ToolFailure(
                f"{what}: not possible within {timeout:g}s: the page stopped answering (its script does not "
                "return: an endless loop, or one dialog after another)"
            ) from None
        matched = await count(matching) if matching is not None else None
        if matched == 0:
            head = f"{what}: 0 elements matched within {timeout:g}s"
        elif matched is not None:
            head = f"{what}: not possible within {timeout:g}s ({elements(matched)} matched)"
        else:
            head = f"{what}: not possible within {timeout:g}s"
        raise ToolFailure(f"{head}; {await on_screen(ctx)}") from None
    except Error as exc:
        message = error_line(exc)
        if "strict mode violation" in message:
            resolved = re.search(r"resolved to (\d+) elements", message)
            n = resolved.group(1) if resolved else "several"
            raise ToolFailure(f"{what}: {n} elements matched; make the selector unique (index, nthIndex)") from None
        if "has been closed" in message or "Target closed" in message or "crashed" in message:
            raise InfrastructureError(f"{what}: the browser went away ({message})") from None
        raise ToolFailure(f"{what}: {message}") from None


def error_line(exc: BaseException) -> str:
    """An error's first line, without Playwright's ``Page.goto: `` (its API, not the trail's)."""
    text = str(exc).strip()
    return _PLAYWRIGHT_METHOD.sub("", text.splitlines()[0]) if text else type(exc).__name__


async def on_screen(ctx: ToolContext) -> str:
    """``nearest on screen: button 'Submit'``, what reads most like what the call looked for, or
    when nothing does the first elements of the page (:func:`~trailblaze.device.nearest.screen_hint`):
    the whole page is the failed step's evidence, not the message's."""
    from trailblaze.device.nearest import screen_hint, wanted_role, wanted_texts

    try:  # bounded: the message must not wait longer than the check it reports
        screen = await asyncio.wait_for(device(ctx).view_hierarchy(), OUTLINE_S)
    except TimeoutError:
        return f"on screen: (could not read the page within {OUTLINE_S:g}s)"
    except Exception as exc:  # the page went away meanwhile, say: the message still says what failed
        return f"on screen: (could not read the page: {one_line(error_line(exc))})"
    return screen_hint(wanted_texts(ctx.call.args), screen, role=wanted_role(ctx.call.args))


async def count(matching: Locator) -> int | None:
    """How many elements the selector finds now (None when the page does not say in time)."""
    try:
        return await asyncio.wait_for(matching.count(), OUTLINE_S)
    except Exception:
        return None


def elements(n: int) -> str:
    """``1 element``, ``3 elements``."""
    return f"{n} element{'' if n == 1 else 's'}"


#: seconds a failure message may spend reading what the page shows
OUTLINE_S = 5.0
#: seconds past its timeout a call is cut off when Playwright has not given up by then
TIMEOUT_MARGIN_S = 2.0


async def target(
    ctx: ToolContext, nodeSelector: NodeSelector | None, ref: str | None, timeout: float
) -> tuple[Locator, str]:
    """The locator a call acts on, and how its messages name it."""
    what = locators.describe_web(nodeSelector, ref)
    async with acting(ctx, what, timeout):
        locator = await device(ctx).locate(nodeSelector, ref, timeout)
    return locator, what
