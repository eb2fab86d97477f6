"""From upstream's web selectors to Playwright locators, and back.

* ``nodeSelector.web`` becomes one locator as upstream builds it: ``cssSelector`` alone, else
  ``dataTestId`` alone, else ``ariaRole`` + ``ariaNameRegex`` (here also a role from
  ``ariaDescriptorRegex`` or ``headingLevel``, and a name without a role as a label or text);
  ``nthIndex`` then picks the nth match. ``childOf`` scopes the search, ``containsChild`` and
  ``containsDescendants`` keep elements that contain a match (on the web, any descendant).
* ``below``/``above``/``leftOf``/``rightOf`` and the top-level ``index`` (0-based among all
  matches sorted top-to-bottom, then left-to-right) need the elements' boxes, so they are
  applied by :func:`resolve` once the candidates are on the page.
* A ``ref`` is ``e12`` (an element of the page-elements list upstream numbers, see
  :mod:`trailblaze.drivers.web.elements`), ``f2e12`` (Playwright's handle of an element inside a
  frame), ``css=<selector>``, or an ARIA descriptor ``role "name"`` read as upstream reads it.
  A ``nodeSelector`` and a ``ref`` given together are alternatives, as upstream has them:
  whichever finds an element (the first in document order when both do); a ``nodeSelector``
  upstream finds nothing by (no CSS selector, test id or role) leaves the ``ref`` alone.

Name fields are regexes in Java's syntax matching the whole accessible name, or equal to it
literally (upstream semantics); a name that is plain text (``View``, ``\\Q$29.99\\E``,
``^Total$``) is an exact name, as upstream's ``getByRole(role, name, exact=True)``. Other
patterns are matched in the page by V8 (:func:`name_match`).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import TYPE_CHECKING, Any

from trailblaze.core import javaregex, limits
from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import NodeSelector, WebMatch
from trailblaze.drivers.web import aria, elements

if TYPE_CHECKING:
    from playwright.async_api import Frame, FrameLocator, Locator, Page

    #: where a lookup starts: the page, a frame, or an element found before
    Base = Page | Frame | FrameLocator | Locator

    from trailblaze.drivers.web.elements import PageElement

#: Playwright's handle of an element inside a frame (the page-elements list stays in the top document)
_FRAME_HANDLE = re.compile(r"f\d+e\d+")
_DESCRIPTOR = re.compile(r'^\s*([a-z][\w-]*)\s*(?:"(.*)")?\s*$', re.DOTALL)
# upstream's reading of a descriptor ref (PlaywrightAriaSnapshot.resolveByRoleName)
_TRAILING_ATTRIBUTES = re.compile(r"\s+\[.*]$")
_ROLE_NAME = re.compile(r'(\w+)\s+"(.+)"', re.ASCII)
_ROLE = re.compile(r"\w+", re.ASCII)
_ROLE_TEXT = re.compile(r"(\w+)\s+(.+)", re.ASCII)
_TEXT_ROLES = ("textbox", "searchbox", "combobox", "button", "link", "checkbox", "radio", "tab", "menuitem", "option")


def name_match(text: str) -> str | javaregex.JsPattern:
    """What a name field finds: an exact name (a string), or a V8 pattern meaning "the whole
    name matches ``text`` as a Java regex, or equals it, or equals the name upstream's replay
    reads from it (:func:`~trailblaze.core.javaregex.upstream_name`)". Text that is no valid
    pattern (a tool's free-text argument) matches literally."""
    exact = javaregex.literal_text(text)
    if exact is not None:
        return exact
    parts = [javaregex.javascript_literal(literal) for literal in dict.fromkeys([text, javaregex.upstream_name(text)])]
    sources = [f"^{part.source}$" for part in parts]
    try:
        translated = javaregex.to_javascript(text)
    except javaregex.JavaRegexError:
        pass
    else:
        parts.append(translated)
        sources.insert(0, f"^(?:{translated.source})$")
    return javaregex.JsPattern("|".join(sources), "u" if any(part.flags for part in parts) else "")


def _pattern_value(pattern: javaregex.JsPattern) -> str:
    # Playwright's Python API takes only patterns Python's re compiles, with re's flags; its
    # selector syntax takes any V8 pattern (what get_by_role and friends write for a pattern)
    return f"/{pattern.source}/{pattern.flags}"


def by_role(base: Base, role: str, name: str | None = None, level: int | None = None) -> Locator:
    """Elements with this ARIA role and (:func:`name_match`) name."""
    options: dict[str, Any] = {} if level is None else {"level": level}
    # a trail's role is any text: Playwright's typing lists the ARIA roles it knows, and an
    # unknown role finds nothing (the trail's check names it) rather than failing here
    get_by_role: Any = base.get_by_role
    found: Locator
    if name is None:
        found = get_by_role(role, **options)
        return found
    match = name_match(name)
    if isinstance(match, str):
        found = get_by_role(role, name=match, exact=True, **options)
        return found
    level_part = "" if level is None else f"[level={level}]"
    return base.locator(f"internal:role={role}{level_part}[name={_pattern_value(match)}]")


def by_text(base: Base, text: str) -> Locator:
    """Elements whose text matches ``text`` (:func:`name_match`)."""
    match = name_match(text)
    if isinstance(match, str):
        return base.get_by_text(match, exact=True)
    return base.locator(f"internal:text={_pattern_value(match)}")


def by_label(base: Base, text: str) -> Locator:
    """Form controls whose label matches ``text`` (:func:`name_match`)."""
    match = name_match(text)
    if isinstance(match, str):
        return base.get_by_label(match, exact=True)
    return base.locator(f"internal:label={_pattern_value(match)}")


def describe_web(selector: NodeSelector | None, ref: str | None) -> str:
    if selector is not None:
        return selector.describe()
    if not ref:
        return "the page"
    if _is_text(ref.strip()):
        return f'ref {ref!r} (read as text: it is not e12, css=<selector> nor role "name")'
    return f"ref {ref!r}"


def _is_text(ref: str) -> bool:
    """Whether upstream's reading of ``ref`` ends at names and text (no role, id or CSS in it)."""
    if ref.startswith("css=") or elements.element_id(ref) or _FRAME_HANDLE.fullmatch(ref):
        return False
    text = _TRAILING_ATTRIBUTES.sub("", ref)
    if _ROLE_NAME.fullmatch(text) or _ROLE.fullmatch(text):
        return False
    unquoted = _ROLE_TEXT.fullmatch(text)
    return not (unquoted and unquoted.group(1).lower() in elements.ROLES)


def build(page: Page, selector: NodeSelector, scope: Any = None) -> Locator:
    """A Playwright locator for everything in ``selector`` except spatial relations and index."""
    base = page if scope is None else scope
    if selector.childOf is not None:
        base = build(page, selector.childOf, scope)
    match = selector.web
    if match is None:
        other = selector.driver_block
        if other is None and selector.containsChild is None and not selector.containsDescendants:
            raise ToolFailure("the nodeSelector has no 'web:' block to match on a web page")
        if other is not None:
            raise ToolFailure(
                f"the nodeSelector is for {other}, not the web; this call was recorded for another driver"
            )
        locator = base.locator("*")
    else:
        locator = _web_block(base, match)
    if selector.containsChild is not None:
        locator = locator.filter(has=_bounded(build(page, selector.containsChild)))
    for inner in selector.containsDescendants or []:
        locator = locator.filter(has=_bounded(build(page, inner)))
    if match is not None and match.nthIndex is not None:
        locator = locator.nth(match.nthIndex)
    return locator


def _bounded(inner: Locator) -> Locator:
    """``inner``, checked to be small enough to go inside another locator: Playwright quotes it
    into the outer selector, which doubles its backslashes and quotes level after level."""
    bound = limits.SELECTOR_CHARS.get_int()
    size = len(playwright_selector(inner))
    if size > bound:
        raise ToolFailure(
            f"the nodeSelector makes a Playwright selector longer than {bound} characters (the limit, "
            f"{limits.SELECTOR_CHARS.env}): nest fewer containsChild/containsDescendants"
        )
    return inner


def playwright_selector(locator: Locator) -> str:
    """The selector text Playwright sends for ``locator`` (its own, else its ``repr``, which
    holds it quoted)."""
    text = getattr(getattr(locator, "_impl_obj", None), "_selector", None)
    return text if isinstance(text, str) else repr(locator)


def _web_block(base: Base, match: WebMatch) -> Locator:
    # upstream's order (nodeSelectorToReadinessLocator): a CSS selector alone, else a test id
    # alone, else role and name; the first of them that is set decides
    if match.cssSelector:
        return base.locator(match.cssSelector)
    if match.dataTestId:
        return base.get_by_test_id(match.dataTestId)
    role = match.ariaRole
    name = match.ariaNameRegex
    if match.ariaDescriptorRegex:
        described = _DESCRIPTOR.match(match.ariaDescriptorRegex)
        if described:
            role = role or described.group(1)
            if described.group(2) is not None and name is None:
                name = described.group(2)
        else:
            name = name or match.ariaDescriptorRegex
    if match.headingLevel is not None and role is None:
        role = "heading"
    if role:
        return by_role(base, role, name, match.headingLevel)
    if name is not None:  # beyond upstream, which needs a role: a control's label or text
        return by_label(base, name).or_(by_text(base, name))
    raise ToolFailure("the web selector sets no field to match on")


def _upstream_matcher(match: WebMatch | None) -> bool:
    """Whether upstream's replay finds anything by this ``web:`` block (a CSS selector, a test
    id or a role); when it does not, a ``ref`` given with it is all upstream looks for."""
    return match is not None and bool(match.cssSelector or match.dataTestId or match.ariaRole)


# -- refs ---------------------------------------------------------------------------------------------


async def read_page(page: Page) -> tuple[str, dict[str, PageElement]]:
    """The page's elements numbered as upstream numbers them (from a default-mode snapshot, as
    upstream takes it), and the page's AI-mode ARIA snapshot showing those ids as its refs."""
    root = page.locator(":root")
    numbered = await root.aria_snapshot()
    handles = await root.aria_snapshot(mode="ai")  # after: any other snapshot drops the handles
    listing = elements.page_elements(numbered, handles)
    ids = {element.line: element.id for element in listing.values() if element.line is not None}
    return aria.with_refs(handles, ids), listing


def for_element(page: Page, element: PageElement) -> Locator:
    """The element a page-elements id names: by its handle, else as upstream finds it
    (its descriptor, the nth among equals)."""
    if element.handle is not None:
        return page.locator(f"aria-ref={element.handle}")
    return by_descriptor(page, element.role, element.name).nth(element.nth)


def by_descriptor(page: Page, role: str, name: str | None) -> Locator:
    """``role "name"`` as upstream resolves it: that role (an unknown one reads as ``generic``)
    and exactly that name."""
    role = role.lower() if role.lower() in elements.ROLES else "generic"
    if name is None:
        return page.get_by_role(role)  # type: ignore[arg-type]
    return page.get_by_role(role, name=_unquote(name), exact=True)  # type: ignore[arg-type]


async def for_ref(page: Page, ref: str, listing: dict[str, PageElement] | None = None) -> Locator | None:
    """The locator a ref names, or None when it is a page-elements id the page does not list
    (``listing`` is the page's list when it was just read)."""
    ref = ref.strip()
    if ref.startswith("css="):
        return page.locator(ref)
    element_id = elements.element_id(ref)
    if element_id is not None:
        fresh = listing is None
        if listing is None:
            _, listing = await read_page(page)
        element = listing.get(element_id)
        if element is None:
            return None
        located = for_element(page, element)
        if not fresh and element.handle is not None and await located.count() == 0:  # a later snapshot took it
            located = by_descriptor(page, element.role, element.name).nth(element.nth)
        return located
    if _FRAME_HANDLE.fullmatch(ref):
        handle = page.locator(f"aria-ref={ref}")
        if await handle.count() == 0:  # handles exist once a snapshot of the frame assigned them
            await page.locator(":root").aria_snapshot(mode="ai")
        return handle
    return await _by_descriptor_text(page, ref)


async def _by_descriptor_text(page: Page, ref: str) -> Locator:
    """A descriptor written in a ref, tried as upstream tries it: ``role "name"``, ``role``,
    ``role name`` (when that finds something), then the text as the name of a control, as a
    label, and at last as text on the page."""
    text = _TRAILING_ATTRIBUTES.sub("", ref)
    quoted = _ROLE_NAME.fullmatch(text)
    if quoted:
        return by_descriptor(page, quoted.group(1), quoted.group(2))
    if _ROLE.fullmatch(text):
        return by_descriptor(page, text, None)
    unquoted = _ROLE_TEXT.fullmatch(text)
    if unquoted and unquoted.group(1).lower() in elements.ROLES:
        name = unquoted.group(2)
        if len(name) >= 2 and name[0] == name[-1] == "'":
            name = name[1:-1]
        found = page.get_by_role(unquoted.group(1).lower(), name=name, exact=True)  # type: ignore[arg-type]
        if await found.count() > 0:
            return found
    for role in _TEXT_ROLES:
        found = page.get_by_role(role, name=text, exact=True)  # type: ignore[arg-type]
        if await found.count() > 0:
            return found
    labelled = page.get_by_label(text, exact=True)
    if await labelled.count() > 0:
        return labelled
    return page.get_by_text(text)


def _unquote(name: str) -> str:
    """The name inside ``role "name"`` as snapshots write it: JSON string escapes (``\\"``)."""
    try:
        decoded = json.loads(f'"{name}"')
    except json.JSONDecodeError:
        return name
    return decoded if isinstance(decoded, str) else name


def needs_layout(selector: NodeSelector) -> bool:
    return any(getattr(selector, key) is not None for key in ("below", "above", "leftOf", "rightOf", "index"))


async def resolve(page: Page, selector: NodeSelector | None, ref: str | None, timeout: float) -> Locator:
    """The locator a tool acts on: the ``nodeSelector``'s, the ``ref``'s, or, given both,
    either's (upstream ORs them: the first element in document order that either finds).

    Spatial relations and ``index`` are resolved here, waiting up to ``timeout`` seconds for
    matching elements to be laid out; so is a page-elements id (``e5``) when it is all there
    is, waiting for the page to list it. A ``nodeSelector`` whose ``web:`` block has no CSS
    selector, test id or role (one that only says ``index: 2`` or ``nthIndex: 0``, a name
    without a role, one recorded for a phone) gives way to the ``ref``, as upstream has it."""
    ref = ref.strip() if ref and ref.strip() else None
    if selector is not None and ref is not None and not _upstream_matcher(selector.web):
        selector = None
    if selector is None:
        if ref is None:
            raise ToolFailure("give a nodeSelector or a ref")
        return (await _ref_alone(page, ref, timeout)).first
    by_ref = await for_ref(page, ref) if ref is not None else None
    locator = build(page, selector)
    if needs_layout(selector):
        locator = await _laid_out(page, selector, locator, by_ref, timeout)
    return locator if by_ref is None else locator.or_(by_ref).first


async def _ref_alone(page: Page, ref: str, timeout: float) -> Locator:
    deadline = time.monotonic() + timeout
    while True:
        listing = (await read_page(page))[1] if elements.element_id(ref) else None
        found = await for_ref(page, ref, listing)
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            ids = list(listing or {})
            listed = f"{len(ids)} elements, {ids[0]}…{ids[-1]}" if ids else "no elements"
            raise ToolFailure(f"no element {ref} on the page (waited {timeout:g}s); the page lists {listed}")
        await asyncio.sleep(0.2)


async def _laid_out(
    page: Page, selector: NodeSelector, locator: Locator, alternative: Locator | None, timeout: float
) -> Locator:
    """The match that the spatial relations and ``index`` pick, waiting for the layout; or,
    when ``alternative`` (a ref's locator) finds an element first, the alternative alone."""
    deadline = time.monotonic() + timeout
    while True:
        chosen = await _pick_by_layout(page, selector, locator)
        if chosen is not None:
            return locator.nth(chosen)
        if alternative is not None and await alternative.count() > 0:
            return alternative
        if time.monotonic() >= deadline:
            raise ToolFailure(f"no element matches {selector.describe()} (waited {timeout:g}s)")
        await asyncio.sleep(0.1)


async def laid_out_now(page: Page, selector: NodeSelector) -> Locator | None:
    """The element the spatial relations and ``index`` of ``selector`` pick on the page as it
    is now, without waiting (None: no match is laid out where they say)."""
    locator = build(page, selector)
    chosen = await _pick_by_layout(page, selector, locator)
    return None if chosen is None else locator.nth(chosen)


async def _boxes(locator: Locator) -> list[dict[str, float] | None]:
    boxes: list[dict[str, float] | None] = await locator.evaluate_all(
        """els => els.map(e => { const r = e.getBoundingClientRect();
            return (r.width || r.height) ? {x: r.x, y: r.y, w: r.width, h: r.height} : null; })"""
    )
    return boxes


async def _pick_by_layout(page: Page, selector: NodeSelector, locator: Locator) -> int | None:
    boxes = await _boxes(locator)
    candidates = [(i, b) for i, b in enumerate(boxes) if b is not None]
    for relation in ("below", "above", "leftOf", "rightOf"):
        anchor_selector = getattr(selector, relation)
        if anchor_selector is None:
            continue
        anchors = [b for b in await _boxes(build(page, anchor_selector)) if b is not None]
        if not anchors:
            return None
        anchor = anchors[0]
        candidates = [(i, b) for i, b in candidates if _related(relation, b, anchor)]
    candidates.sort(key=lambda item: (round(item[1]["y"]), round(item[1]["x"])))
    index = selector.index or 0  # with only spatial relations: the nearest in reading order
    return candidates[index][0] if index < len(candidates) else None


def _related(relation: str, box: dict[str, float], anchor: dict[str, float]) -> bool:
    if relation == "below":
        return box["y"] >= anchor["y"] + anchor["h"] - 1
    if relation == "above":
        return box["y"] + box["h"] <= anchor["y"] + 1
    if relation == "leftOf":
        return box["x"] + box["w"] <= anchor["x"] + 1
    return box["x"] >= anchor["x"] + anchor["w"] - 1
