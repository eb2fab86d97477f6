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
7. when others have the same role and name (an "Add" link in every row): the role and name
   inside the container that tells it apart (:func:`narrowed`) — ``childOf`` the row, list item,
   card, section, fieldset or dialog that holds it and none of the others, named by its own
   accessible name or test id, or by its kind and what it holds (``containsChild`` its heading,
   row header, first cell or text), as a person says "the Add link in the Tickets row"; when
   that container's name is not unique either, within a named one around it.
8. only when nothing above finds it alone, its position (:func:`positional`): the nth
   element with its role and name (``nthIndex``), else the fewest tag names (``nth-of-type``
   where needed) below its nearest ancestor with a test id, id or ``name``. A step recorded so
   says it (:mod:`trailblaze.tools.steptext`): a new row above it moves it.

Every form is one the trail format already has (``childOf`` and ``containsChild`` are
upstream's relations; upstream's own web selector generator scopes by ``childOf`` too).

The page works most of it out in one evaluation (``stable.js``): each CSS candidate is checked
there to match exactly this element. Whether a role and name is unique comes from the page's
ARIA snapshot the ref was read from (:attr:`~trailblaze.drivers.web.elements.PageElement.same_named`),
which lists what ``get_by_role`` finds; when there is no snapshot (a ``css=`` ref, a browser
demonstration) Playwright counts it. The containers are proposed by ``scope.js`` from the
elements Playwright finds by the role and name, and each is checked with Playwright before it
is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from trailblaze.core import javaregex
from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import NodeSelector

if TYPE_CHECKING:
    from playwright.async_api import ElementHandle, Locator, Page

#: the CSS candidates that name the element alone, most stable first, after the test id and the role and name
_CSS_ORDER = ("name", "id", "placeholder", "text")
#: containers ``scope.js`` proposes that are checked with Playwright, at most
_MAX_CONTAINERS = 4


@cache
def script(name: str = "stable.js") -> str:
    """One of the page scripts (``stable.js``: what names an element alone; ``scope.js``: the
    containers that tell it apart from others like it)."""
    return files("trailblaze.drivers.web").joinpath(name).read_text(encoding="utf-8")


async def page_facts(target: Locator | ElementHandle, timeout: float = 1.0) -> dict[str, Any] | None:
    """What makes ``target``'s element unique (``stable.js``), in one evaluation; None when a
    locator finds no element within ``timeout`` seconds, or several."""
    from playwright.async_api import ElementHandle, Error

    try:
        if isinstance(target, ElementHandle):
            facts: dict[str, Any] = await target.evaluate(script())
        else:  # a locator: evaluate, not evaluate_all, resolves aria-ref=
            facts = await target.evaluate(script(), timeout=timeout * 1000)
    except Error:  # not there (a timeout), or more than one (strict mode)
        return None
    return facts


def choose(
    facts: Mapping[str, Any], role: str | None, name: str | None, same_named: int | None
) -> dict[str, Any] | None:
    """The ``nodeSelector`` to record from ``facts`` (:func:`page_facts`) and what the screen
    knows of the element: its ARIA role and accessible name, and how many elements on the page
    have them (None: not known, so not used). None when nothing names it alone: then it is told
    apart by its container (:func:`narrowed`), or at last by its position (:func:`positional`)."""
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


def own_match(facts: Mapping[str, Any], role: str | None, name: str | None) -> dict[str, Any]:
    """The ``web:`` block that finds the element among others like it: its role and name, else
    its own text, else its role, else its tag."""
    if role and name:
        return by_role(role, name)
    if facts.get("ownText"):
        return {"cssSelector": f"{facts.get('tag') or ''}:text-is({css_string(facts['ownText'])})"}
    if role:
        return {"ariaRole": role}
    return {"cssSelector": facts.get("tag") or "*"}


def css_string(value: str) -> str:
    """``value`` as a CSS string (what ``stable.js`` writes)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ").replace("\r", "\\d ")
    return f'"{escaped}"'


def container(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The ``childOf`` selector of a container ``scope.js`` proposed: its kind or own name
    (``{testId}``, ``{css}``, ``{role}``, ``{role, name}``), ``containsChild`` what inside it tells
    it apart, ``childOf`` the container around it."""
    selector: dict[str, Any] = {"web": _part(spec)}
    has = spec.get("has")
    if isinstance(has, Mapping):
        selector["containsChild"] = {"web": _part(has)}
    outer = spec.get("within")
    if isinstance(outer, Mapping):
        selector["childOf"] = container(outer)
    return selector


def _part(spec: Mapping[str, Any]) -> dict[str, Any]:
    if spec.get("testId"):
        return {"dataTestId": spec["testId"]}
    if spec.get("css"):
        return {"cssSelector": spec["css"]}
    if spec.get("text"):
        return {"cssSelector": f":text-is({css_string(spec['text'])})"}
    if spec.get("name"):
        return by_role(spec["role"], spec["name"])
    return {"ariaRole": spec["role"]}


def narrowed(match: Mapping[str, Any], specs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``match`` (the element's own ``web:`` block) inside each container ``scope.js`` proposed."""
    return [{"web": dict(match), "childOf": container(spec)} for spec in specs]


def positional(
    facts: Mapping[str, Any], match: Mapping[str, Any], position: int, role: str | None
) -> dict[str, Any] | None:
    """The last resort, by position, with as few positions as will do: the nth element with its
    role or its text (``nthIndex``), else the structural path ``stable.js`` found."""
    if (role or facts.get("ownText")) and position >= 0:
        return {"web": {**match, "nthIndex": position}}
    if facts.get("path"):
        return {"web": {"cssSelector": facts["path"]}}
    return {"web": {**match, "nthIndex": position}} if position >= 0 else None


def from_page(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """The selector for an element the page described when it was there (a browser
    demonstration whose click unloaded the page before Playwright could look): ``facts``
    (``stable.js``), its ``role`` and ``name``, how many elements have them (``sameNamed``),
    the containers that tell it apart (``scopes``, ``scope.js``) and its ``position`` among them,
    each as the page counted them."""
    facts = event.get("facts")
    if not isinstance(facts, Mapping) or facts.get("framed"):
        return None
    role = event.get("role") or None
    name = event.get("name") or None
    same = event.get("sameNamed")
    chosen = choose(facts, role, name, same if isinstance(same, int) else None)
    if chosen is not None:
        return chosen
    match = own_match(facts, role, name)
    scopes = [spec for spec in event.get("scopes") or [] if isinstance(spec, Mapping)]
    if role and name and scopes:
        return narrowed(match, scopes)[0]
    position = event.get("position")
    return positional(facts, match, position if isinstance(position, int) else -1, role)


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
    if chosen is not None:
        return chosen
    handle = await _handle(target)
    if handle is None:
        return None
    return await _told_apart(page, handle, facts, role, name)


async def _told_apart(
    page: Page, handle: ElementHandle, facts: Mapping[str, Any], role: str | None, name: str | None
) -> dict[str, Any] | None:
    """The element among the others like it: in the container that tells it apart, else by its
    position among them."""
    from trailblaze.drivers.web.locators import build

    match = own_match(facts, role, name)
    same = build(page, NodeSelector.model_validate({"web": match}))
    found: dict[str, Any] = await same.evaluate_all(
        f"(els, target) => ({{position: els.indexOf(target), scopes: ({script('scope.js')})(els, target)}})", handle
    )
    position = int(found.get("position", -1))
    if position >= 0:
        for candidate in narrowed(match, found.get("scopes") or [])[:_MAX_CONTAINERS]:
            if await _finds_only(page, candidate, handle):
                return candidate
    return positional(facts, match, position, role)


async def _finds_only(page: Page, selector: dict[str, Any], handle: ElementHandle) -> bool:
    """Whether Playwright finds exactly ``handle``'s element by ``selector``."""
    from trailblaze.drivers.web.locators import build

    found = build(page, NodeSelector.model_validate(selector))
    only: bool = await found.evaluate_all("(els, target) => els.length === 1 && els[0] === target", handle)
    return only


async def _count_by_role(page: Page, target: Locator | ElementHandle, role: str, name: str) -> int | None:
    """How many elements ``by_role`` finds (None when ``target`` is not among them)."""
    from trailblaze.drivers.web.locators import build

    found = build(page, NodeSelector.model_validate({"web": by_role(role, name)}))
    total = await found.count()
    if total != 1:
        return total
    handle = await _handle(target)
    return 1 if handle is not None and await found.evaluate("(e, h) => e === h", handle) else None


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
