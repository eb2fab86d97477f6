"""From an element to the selector a recording keeps: the most stable one that finds it alone.

An agent acts on ephemeral refs (``e12``); a recording must find the same element on the next
run, and on the next version of the page. The candidates are tried in the order a Playwright
user reaches for locators, and the first that finds this element and no other is kept:

1. its test id (``data-testid``) → ``dataTestId``
2. its ARIA role and accessible name → ``ariaRole`` + ``ariaNameRegex`` (``get_by_role``). A
   control's label is its accessible name, so this is also how a labelled field is found;
   Playwright's ``get_by_label`` matches a superset of it, so it is not tried on its own.
3. its ``name`` attribute → ``cssSelector: select[name="status"]`` (what Playwright's codegen
   writes for a form control)
4. its ``id``, unless it looks generated (``:r1:``, a UUID) → ``cssSelector: "#email"``
5. its placeholder → ``cssSelector: input[placeholder="Search"]``
6. its own visible text → ``cssSelector: td:text-is("Shipped")`` (Playwright's exact-text
   pseudo-class)
7. a structural path, only when nothing above is unique: the fewest tag names (``nth-of-type``
   where needed) that find it below its nearest ancestor with a test id, id or ``name``
   (``#orders tr:nth-of-type(2) button``). Descendant steps, so a wrapper added in between
   does not break it; no class names, which a redesign renames.

Every form is one the trail format already has and upstream Trailblaze replays too (its
``cssSelector`` goes to Playwright's ``page.locator`` as ours does).

The page works all of it out in one evaluation (``stable.js``): each CSS candidate is checked
there to match exactly this element. Whether a role and name is unique comes from the page's
ARIA snapshot the ref was read from (:attr:`~trailblaze.drivers.web.elements.PageElement.same_named`),
which lists what ``get_by_role`` finds; when there is no snapshot (a ``css=`` ref, a browser
demonstration) Playwright counts it.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from trailblaze.core import javaregex
from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import NodeSelector

if TYPE_CHECKING:
    from playwright.async_api import ElementHandle, Locator, Page

#: the CSS candidates, most stable first, after the test id and the role and name
_CSS_ORDER = ("name", "id", "placeholder", "text", "path")


@cache
def _script() -> str:
    return files("trailblaze.drivers.web").joinpath("stable.js").read_text(encoding="utf-8")


async def page_facts(target: Locator | ElementHandle, timeout: float = 1.0) -> dict[str, Any] | None:
    """What makes ``target``'s element unique (``stable.js``), in one evaluation; None when a
    locator finds no element within ``timeout`` seconds, or several."""
    from playwright.async_api import ElementHandle, Error

    try:
        if isinstance(target, ElementHandle):
            facts: dict[str, Any] = await target.evaluate(_script())
        else:  # a locator: evaluate, not evaluate_all, resolves aria-ref=
            facts = await target.evaluate(_script(), timeout=timeout * 1000)
    except Error:  # not there (a timeout), or more than one (strict mode)
        return None
    return facts


def choose(facts: dict[str, Any], role: str | None, name: str | None, same_named: int | None) -> dict[str, Any] | None:
    """The ``nodeSelector`` to record from ``facts`` (:func:`page_facts`) and what the screen
    knows of the element: its ARIA role and accessible name, and how many elements on the page
    have them (None: not known, so not used). None when nothing is unique."""
    if facts.get("testId"):
        return {"web": {"dataTestId": facts["testId"]}}
    if role and name and same_named == 1:
        return {"web": by_role(role, name)}
    for key in _CSS_ORDER:
        if facts.get(key):
            return {"web": {"cssSelector": facts[key]}}
    return None


def by_role(role: str, name: str) -> dict[str, Any]:
    """A ``web:`` block finding ``role`` with exactly this accessible name (as upstream's recorder
    writes the name: as is, or quoted when it holds regex characters)."""
    return {"ariaRole": role, "ariaNameRegex": javaregex.escape_for_selector(name)}


async def stable_selector(
    page: Page,
    target: Locator | ElementHandle,
    role: str | None,
    name: str | None,
    same_named: int | None = None,
    what: str = "the element",
) -> dict[str, Any] | None:
    """The most stable ``nodeSelector`` that finds exactly ``target``'s element (see the module),
    or None when the element is gone. ``same_named`` is how many elements have its role and
    name, from the snapshot the caller read; without it Playwright counts them."""
    facts = await page_facts(target)
    if facts is None:
        return None
    if facts.get("framed"):
        raise framed_element_failure(what)
    if facts.get("testId"):
        return choose(facts, None, None, None)
    if role and name and same_named is None:
        same_named = await _count_by_role(page, target, role, name)
    chosen = choose(facts, role, name, same_named)
    if chosen is None and role and name:  # no path the page can check (inside a shadow root): the nth of its kind
        chosen = await _nth_by_role(page, target, role, name)
    return chosen


async def _count_by_role(page: Page, target: Locator | ElementHandle, role: str, name: str) -> int | None:
    """How many elements ``by_role`` finds (None when ``target`` is not among them)."""
    from trailblaze.drivers.web.locators import build

    found = build(page, NodeSelector.model_validate({"web": by_role(role, name)}))
    total = await found.count()
    if total != 1:
        return total
    handle = await _handle(target)
    return 1 if handle is not None and await found.evaluate("(e, h) => e === h", handle) else None


async def _nth_by_role(page: Page, target: Locator | ElementHandle, role: str, name: str) -> dict[str, Any] | None:
    from trailblaze.drivers.web.locators import build

    named = by_role(role, name)
    same = build(page, NodeSelector.model_validate({"web": named}))
    handle = await _handle(target)
    if handle is None:
        return None
    position: int = await same.evaluate_all("(els, h) => els.indexOf(h)", handle)
    return {"web": {**named, "nthIndex": position}} if position >= 0 else None


async def _handle(target: Locator | ElementHandle) -> ElementHandle | None:
    from playwright.async_api import ElementHandle

    if isinstance(target, ElementHandle):
        return target
    return await target.element_handle(timeout=1000)


def framed_element_failure(what: str) -> ToolFailure:
    return ToolFailure(
        f"{what} is inside a frame: a recording cannot name an element inside a frame; "
        "act on it with a nodeSelector whose cssSelector enters the frame "
        "(iframe >> internal:control=enter-frame >> button)"
    )
