"""From upstream's web selectors to Playwright locators, and back.

* ``nodeSelector.web`` (``cssSelector``, ``dataTestId``, ``ariaRole`` + ``ariaNameRegex``,
  ``ariaDescriptorRegex``, ``headingLevel``, ``nthIndex``) becomes one locator; several fields
  narrow each other (``and``). ``childOf`` scopes the search, ``containsChild`` and
  ``containsDescendants`` keep elements that contain a match (on the web, any descendant).
* ``below``/``above``/``leftOf``/``rightOf`` and the top-level ``index`` (0-based among all
  matches sorted top-to-bottom, then left-to-right) need the elements' boxes, so they are
  applied by :func:`resolve` once the candidates are on the page.
* A ``ref`` is ``e12``-style (an ARIA snapshot handle), ``css=<selector>``, or an ARIA
  descriptor ``role "name"``. A ``nodeSelector`` wins over a ``ref``.

Name fields match the whole accessible name, or equal it literally (upstream semantics).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import TYPE_CHECKING, Any

from trailblaze.errors import ToolFailure
from trailblaze.selectors import NodeSelector, WebMatch

if TYPE_CHECKING:
    from playwright.async_api import ElementHandle, Locator, Page

_ARIA_REF = re.compile(r"^(?:f\d+)?e\d+$")
_DESCRIPTOR = re.compile(r'^\s*([a-z][\w-]*)\s*(?:"(.*)")?\s*$', re.DOTALL)


def name_pattern(text: str) -> re.Pattern[str]:
    """A pattern Playwright applies (as a JS regex, searching) that means "whole value matches
    ``text`` as a regex, or equals it literally"."""
    literal = re.escape(text)
    try:
        re.compile(text)
        source = f"^(?:{text})$|^{literal}$"
    except re.error:
        source = f"^{literal}$"
    return re.compile(source, re.DOTALL)


def describe_web(selector: NodeSelector | None, ref: str | None) -> str:
    if selector is not None:
        return selector.describe()
    return f"ref {ref!r}" if ref else "the page"


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
        locator = locator.filter(has=build(page, selector.containsChild))
    for inner in selector.containsDescendants or []:
        locator = locator.filter(has=build(page, inner))
    if match is not None and match.nthIndex is not None:
        locator = locator.nth(match.nthIndex)
    return locator


def _web_block(base: Any, match: WebMatch) -> Locator:
    parts: list[Locator] = []
    if match.cssSelector:
        parts.append(base.locator(match.cssSelector))
    if match.dataTestId:
        parts.append(base.get_by_test_id(match.dataTestId))
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
        kwargs: dict[str, Any] = {}
        if name is not None:
            kwargs["name"] = name_pattern(name)
        if match.headingLevel is not None:
            kwargs["level"] = match.headingLevel
        parts.append(base.get_by_role(role, **kwargs))
    elif name is not None:
        pattern = name_pattern(name)
        parts.append(base.get_by_label(pattern).or_(base.get_by_text(pattern)))
    if not parts:
        raise ToolFailure("the web selector sets no field to match on")
    locator = parts[0]
    for part in parts[1:]:
        locator = locator.and_(part)
    return locator


def is_element_ref(ref: str) -> bool:
    """Whether ``ref`` is a snapshot handle (``e12``, ``f1e3`` in a frame)."""
    return _ARIA_REF.match(ref) is not None


def for_ref(page: Page, ref: str) -> Locator:
    if ref.startswith("css="):
        return page.locator(ref[4:])
    if _ARIA_REF.match(ref):
        return page.locator(f"aria-ref={ref}")
    described = _DESCRIPTOR.match(ref)
    if described:
        role, name = described.group(1), described.group(2)
        if name is None:
            return page.get_by_role(role)  # type: ignore[arg-type]
        return page.get_by_role(role, name=_unquote(name), exact=True)  # type: ignore[arg-type]
    raise ToolFailure(f"ref {ref!r} is neither an element ref (e12), css=<selector> nor 'role \"name\"'")


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
    """The locator a tool acts on. Spatial relations and ``index`` are resolved here, waiting
    up to ``timeout`` seconds for matching elements to be laid out."""
    if selector is None:
        if not ref:
            raise ToolFailure("give a nodeSelector or a ref")
        return for_ref(page, ref)
    locator = build(page, selector)
    if not needs_layout(selector):
        return locator
    deadline = time.monotonic() + timeout
    while True:
        chosen = await _pick_by_layout(page, selector, locator)
        if chosen is not None or time.monotonic() >= deadline:
            break
        await asyncio.sleep(0.1)
    if chosen is None:
        raise ToolFailure(f"no element matches {selector.describe()} (waited {timeout:g}s)")
    return locator.nth(chosen)


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


_STABLE_JS = """
el => {
  const tid = el.getAttribute('data-testid');
  const id = el.id && /^[A-Za-z][\\w-]*$/.test(el.id) ? el.id : null;
  const path = [];
  for (let n = el; n && n.nodeType === 1 && n !== document.body; n = n.parentElement) {
    let part = n.localName;
    if (n.id && /^[A-Za-z][\\w-]*$/.test(n.id)) { path.unshift('#' + n.id); break; }
    const same = n.parentElement ? [...n.parentElement.children].filter(c => c.localName === n.localName) : [];
    if (same.length > 1) part += `:nth-of-type(${same.indexOf(n) + 1})`;
    path.unshift(part);
  }
  return {testId: tid, id, css: path.join(' > ')};
}
"""


async def stable_selector(
    page: Page, locator: Locator | ElementHandle, role: str | None, name: str | None
) -> dict[str, Any]:
    """The most stable ``nodeSelector`` that finds exactly this element (a locator of it, or
    the element itself): test id, then role and accessible name, then id, then a CSS path.
    Every candidate is checked to match one element, and that element."""
    facts: dict[str, Any] = await locator.evaluate(_STABLE_JS)
    candidates: list[dict[str, Any]] = []
    if facts.get("testId"):
        candidates.append({"dataTestId": facts["testId"]})
    if role and name:
        candidates.append({"ariaRole": role, "ariaNameRegex": name})
    if facts.get("id"):
        candidates.append({"cssSelector": f"#{facts['id']}"})
    candidates.append({"cssSelector": facts["css"] or "body"})
    handle = await locator.element_handle() if hasattr(locator, "element_handle") else locator
    for candidate in candidates:
        selector = NodeSelector.model_validate({"web": candidate})
        found = build(page, selector)
        if await found.count() == 1 and await found.evaluate("(e, h) => e === h", handle):
            return {"web": candidate}
    if role and name:  # ambiguous by name: pin the position among equals
        same = build(page, NodeSelector.model_validate({"web": {"ariaRole": role, "ariaNameRegex": name}}))
        total = await same.count()
        for i in range(total):
            if await same.nth(i).evaluate("(e, h) => e === h", handle):
                return {"web": {"ariaRole": role, "ariaNameRegex": name, "nthIndex": i}}
    return {"web": {"cssSelector": facts["css"]}}
