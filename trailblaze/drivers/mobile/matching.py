"""The mobile screen model: upstream's selectors matched against a :class:`ViewNode` tree.

Android (uiautomator2's hierarchy XML) and iOS (WebDriverAgent's source XML) are both read into
the spine's ``ViewNode`` tree (``trailblaze.drivers.android.hierarchy``, ``trailblaze.drivers.ios.source``); this
module decides which nodes a selector means. It knows both of upstream's shapes:

* ``nodeSelector:`` with an ``androidAccessibility``, ``androidMaestro`` or ``iosMaestro`` block
  plus relations and ``index``;
* the legacy ``selector:`` (Maestro's element selector: ``textRegex``, ``idRegex``, …).

Semantics, chosen to match upstream and Maestro where they are documented:

* every ``…Regex`` field matches the whole value or equals it literally (:func:`text_matches`);
* Maestro-style text (``androidMaestro``/``iosMaestro``/legacy ``textRegex``) matches the text,
  the hint or the accessibility text, and a missing attribute counts as the empty string (so
  ``.*`` matches it); ``androidAccessibility`` fields match their own attribute, which must exist;
* a resource id matches as written (``com.app:id/submit``) or by its short name (``submit``);
* ``containsChild`` means a *direct* child matches, ``childOf`` an ancestor at any depth, and
  ``containsDescendants`` that each listed selector matches some descendant (Maestro's rules);
* ``below``/``above``/``leftOf``/``rightOf`` compare bounds with the first anchor in reading order;
* matches are sorted top-to-bottom, then left-to-right; ``index`` picks among all of them. Without
  an index, a match that contains another match gives way to it (the most specific element, as
  Maestro does), and the first remaining one in reading order is the target.

Only nodes that are visible and have a non-empty box take part. A selector field the device's
hierarchy cannot show (``paneTitleRegex`` from uiautomator2, say) is an error naming the field,
never silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from trailblaze.core.errors import ToolFailure
from trailblaze.core.javaregex import escape_for_selector
from trailblaze.device.commands import ViewNode
from trailblaze.device.selectors import (
    AndroidAccessibilityMatch,
    AndroidMaestroMatch,
    ElementSelector,
    IosMaestroMatch,
    NodeSelector,
    text_matches,
)

Selector = NodeSelector | ElementSelector

#: the nodeSelector block each platform's recordings use
BLOCK_FOR_PLATFORM = {"android": "androidAccessibility", "ios": "iosMaestro"}
_BLOCKS_FOR_PLATFORM = {
    "android": ("androidAccessibility", "androidMaestro"),
    "ios": ("iosMaestro",),
}
#: androidAccessibility fields that uiautomator2's dump does not carry
_UNOBSERVABLE_ANDROID = (
    "uniqueId",
    "labeledByTextRegex",
    "stateDescriptionRegex",
    "paneTitleRegex",
    "isHeading",
    "isMultiLine",
    "inputType",
    "collectionItemRowIndex",
    "collectionItemColumnIndex",
)
#: nodes are mutable dataclasses (unhashable): sets of them hold their identities
_key = id


class MaestroSelector(ElementSelector):
    """A legacy selector read with Maestro's own matching rules, as ``mobile_maestro`` commands
    (and the upstream tools that run through Maestro) mean it: text, id and accessibility-text
    regexes ignore case and also match the text with its line breaks turned into spaces.
    Its relations are MaestroSelectors too."""


def maestro_matches(pattern: str | None, value: str | None) -> bool:
    """Maestro's text match: the whole value, case-insensitively, or equal to the pattern."""
    if pattern is None:
        return True
    if value is None:
        return False
    if value == pattern:
        return True
    flags = "ism"  # Maestro's REGEX_OPTIONS: IGNORE_CASE, DOT_MATCHES_ALL, MULTILINE
    return text_matches(pattern, value, flags) or (
        "\n" in value and text_matches(pattern, value.replace("\n", " "), flags)
    )


class SelectorError(ToolFailure):
    """The selector cannot be evaluated on this device (wrong platform, unknown field)."""


def as_selector(value: Selector | Mapping[str, Any] | None) -> Selector | None:
    """A selector model from a model or a plain mapping: a ``nodeSelector`` if it is one,
    else a legacy ``selector``."""
    if value is None or isinstance(value, NodeSelector | ElementSelector):
        return value
    try:
        return NodeSelector.model_validate(dict(value))
    except ValidationError as exc:
        try:
            return ElementSelector.model_validate(dict(value))
        except ValidationError:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False))
            raise SelectorError(f"not a selector ({problems})") from None


def text_selector(
    text: str | None = None,
    id: str | None = None,
    index: int | None = None,
    *,
    accessibility_text: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> ElementSelector:
    """The legacy selector the text-based tools mean (``tapOnElementWithText`` and friends)."""
    return ElementSelector(
        textRegex=text,
        idRegex=id,
        accessibilityTextRegex=accessibility_text,
        index=index,
        enabled=enabled,
        selected=selected,
    )


def describe(selector: Selector | None, text: str | None = None, id: str | None = None) -> str:
    parts = []
    if selector is not None:
        parts.append(selector.describe() or "any element")
    if text is not None:
        parts.append(f"text {text!r}")
    if id is not None:
        parts.append(f"id {id!r}")
    return " and ".join(parts) or "any element"


def shown(node: ViewNode) -> bool:
    """Whether a node can be seen (and so matched, tapped or asserted)."""
    b = node.bounds
    return node.visible and b is not None and b.right > b.left and b.bottom > b.top


_identity = id  # Screen.find's parameter named ``id`` hides the builtin


def reading_order(nodes: Iterable[ViewNode], order: Mapping[int, int]) -> list[ViewNode]:
    """Top-to-bottom, then left-to-right; document order breaks ties."""

    def key(node: ViewNode) -> tuple[int, int, int]:
        b = node.bounds
        assert b is not None
        return (b.top, b.left, order.get(id(node), 0))

    return sorted(nodes, key=key)


class Screen:
    """One hierarchy snapshot and the selector matching over it.

    Built once per poll: every query made in that poll (the target, its anchors, its index)
    runs against the same tree. An unchanged screen is the same object poll after poll (the
    devices parse an identical document once), so what a selector found on it is kept: waiting
    on a still screen, or checking it again, matches nothing twice.
    """

    #: selectors whose matches one screen keeps (a trail's step uses a handful)
    KEPT_MATCHES = 32

    def __init__(self, root: ViewNode, platform: str) -> None:
        self.root = root
        self.platform = platform
        everything = list(root.walk())
        self._order = {id(node): i for i, node in enumerate(everything)}
        self.nodes = [node for node in everything if shown(node)]
        #: (the selector's identity, text, id) → (the selector, kept so its identity stays its own; matches)
        self._found: dict[tuple[int, str | None, str | None], tuple[Selector | None, list[ViewNode]]] = {}

    # -- queries -------------------------------------------------------------------------------

    def find(self, selector: Selector | None = None, text: str | None = None, id: str | None = None) -> list[ViewNode]:
        """Every node the selector (and/or the text/id shortcut) matches, in reading order.

        With an ``index`` the result has at most one node.
        """
        key = (_identity(selector), text, id)
        kept = self._found.get(key)
        if kept is not None and kept[0] is selector:
            return list(kept[1])
        if selector is None:
            found = self._matches(text_selector(text, id))
        else:
            found = self._matches(selector)
            if text is not None or id is not None:
                also = {_key(n) for n in self._matches(text_selector(text, id))}
                found = [n for n in found if _key(n) in also]
        if len(self._found) >= self.KEPT_MATCHES:
            self._found.clear()
        self._found[key] = (selector, found)
        return list(found)

    def target(
        self, selector: Selector | None = None, text: str | None = None, id: str | None = None
    ) -> ViewNode | None:
        """The one node an action on the selector acts on (see the module docstring)."""
        found = self.find(selector, text, id)
        if not found:
            return None
        if selector is not None and selector.index is not None:
            return found[0]
        inner = {_key(n) for n in found}
        specific = [n for n in found if not any(_key(d) in inner for d in _descendants(n))]
        return (specific or found)[0]

    def count(self, selector: Selector | None = None, text: str | None = None, id: str | None = None) -> int:
        return len(self.find(selector, text, id))

    def hint(self, selector: Selector | None = None, text: str | None = None, id: str | None = None) -> str:
        """What a failure message says of this screen: the elements that read most like what was
        looked for, else the first few (:func:`~trailblaze.device.nearest.screen_hint`); the
        whole screen is the failed step's evidence."""
        from trailblaze.device.nearest import screen_hint, wanted_texts

        looked_for = {"text": text, "id": id, "selector": selector.model_dump(exclude_none=True) if selector else None}
        return screen_hint(wanted_texts(looked_for), self.root, self.outline)

    def outline(self, limit: int = 40) -> str:
        """What is on screen, for messages: ``TextView 'Submit'``, ``View #item_list``…"""
        lines = []
        for node in self.nodes:
            kind = (node.class_name or "node").rsplit(".", 1)[-1].removeprefix("XCUIElementType")
            label = node.text or node.description
            if label:
                lines.append(f"{kind} {label!r}")
            elif node.id:
                lines.append(f"{kind} #{node.id.split(':id/', 1)[-1]}")
            if len(lines) >= limit:
                lines.append("…")
                break
        return "; ".join(lines) if lines else "(nothing visible)"

    def node_for_ref(self, ref: str) -> ViewNode | None:
        return next((node for node in self.root.walk() if node.ref == ref), None)

    # -- matching --------------------------------------------------------------------------------

    def _matches(self, selector: Selector) -> list[ViewNode]:
        if isinstance(selector, ElementSelector):
            found = self._legacy(selector)
            index = _legacy_index(selector.index)
        else:
            found = self._node_selector(selector)
            index = selector.index
        ordered = reading_order(found, self._order)
        if index is None:
            return ordered
        return ordered[index : index + 1]

    def _node_selector(self, selector: NodeSelector) -> list[ViewNode]:
        block = selector.driver_block
        predicate: Callable[[ViewNode], bool]
        if block is None:
            predicate = _always
        elif block not in _BLOCKS_FOR_PLATFORM.get(self.platform, ()):
            raise SelectorError(
                f"the nodeSelector is for {block}, not {self.platform}; this call was recorded for another driver"
            )
        elif block == "androidAccessibility":
            assert selector.androidAccessibility is not None
            predicate = _accessibility_predicate(selector.androidAccessibility)
        else:
            match = selector.androidMaestro if block == "androidMaestro" else selector.iosMaestro
            assert match is not None
            predicate = _maestro_predicate(match)
        nodes = [n for n in self._scope(selector.childOf) if predicate(n)]
        return self._relations(nodes, selector)

    def _legacy(self, selector: ElementSelector) -> list[ViewNode]:
        if selector.css is not None:
            raise SelectorError("the selector uses css:, which only the web driver understands")
        predicate = _legacy_predicate(selector)
        nodes = [n for n in self._scope(selector.childOf) if predicate(n)]
        return self._relations(nodes, selector)

    def _scope(self, parent: Selector | None) -> list[ViewNode]:
        if parent is None:
            return self.nodes
        ancestors = {_key(n) for n in self._matches(parent)}
        return [n for n in self.nodes if any(_key(a) in ancestors for a in _ancestors(n))]

    def _relations(self, nodes: list[ViewNode], selector: Selector) -> list[ViewNode]:
        if selector.containsChild is not None:
            children = {_key(n) for n in self._matches(selector.containsChild)}
            nodes = [n for n in nodes if any(_key(c) in children for c in n.children)]
        for inner in selector.containsDescendants or []:
            wanted = {_key(n) for n in self._matches(inner)}
            nodes = [n for n in nodes if any(_key(d) in wanted for d in _descendants(n))]
        for relation in ("below", "above", "leftOf", "rightOf"):
            anchor_selector = getattr(selector, relation)
            if anchor_selector is None:
                continue
            anchors = self._matches(anchor_selector)
            if not anchors:
                return []
            anchor = anchors[0]
            nodes = [n for n in nodes if n is not anchor and _related(relation, n, anchor)]
        return nodes

    # -- stable selectors for refs -----------------------------------------------------------------

    def stable_selector(self, node: ViewNode) -> dict[str, Any]:
        """The most readable ``nodeSelector`` that finds exactly ``node`` on this screen: an id,
        a text or a description alone, then combinations; then, when others are alike (an "Add"
        button on every row of a list), the best of them inside the row that holds it
        (:meth:`_in_container`); at last the best of them with ``index``."""
        block = BLOCK_FOR_PLATFORM.get(self.platform, "androidAccessibility")
        description_key = "contentDescriptionRegex" if block == "androidAccessibility" else "accessibilityTextRegex"
        facts = {
            "resourceIdRegex": node.id,
            "textRegex": node.text,
            description_key: node.description if node.description != node.text else None,
            "classNameRegex": node.class_name,
        }
        present = {k: v for k, v in facts.items() if v}
        candidates: list[dict[str, str]] = [
            {key: present[key]} for key in ("resourceIdRegex", "textRegex", description_key) if key in present
        ]
        pairs = (
            ("resourceIdRegex", "textRegex"),
            ("resourceIdRegex", description_key),
            ("classNameRegex", "textRegex"),
            ("classNameRegex", description_key),
        )
        candidates += [{a: present[a], b: present[b]} for a, b in pairs if a in present and b in present]
        for fields in candidates:
            selector = NodeSelector.model_validate({block: fields})
            found = self._matches(selector)
            if len(found) == 1 and found[0] is node:
                return {block: fields}
        best = candidates[0] if candidates else {"classNameRegex": node.class_name or ".*"}
        same = self._matches(NodeSelector.model_validate({block: best}))
        scoped = self._in_container(node, block, best, [n for n in same if n is not node])
        if scoped is not None:
            return scoped
        position = next((i for i, n in enumerate(same) if n is node), 0)
        return {block: best, "index": position}

    def _in_container(
        self, node: ViewNode, block: str, own: dict[str, str], others: list[ViewNode]
    ) -> dict[str, Any] | None:
        """``own`` (what ``node`` shares with ``others``) ``childOf`` the nearest container that
        holds it and none of them: the container by its resource id, else its class, with
        ``containsDescendants`` a text or description inside it that tells it apart (a list row by
        its title). Containers nearest first; None when none of them does."""
        held = {_key(a) for other in others for a in _ancestors(other)}
        for container in _ancestors(node):
            if _key(container) in held:
                return None  # it holds one of the others, and so does every container above it
            kind = {"resourceIdRegex": container.id} if container.id else {"classNameRegex": container.class_name}
            if not any(kind.values()):
                continue
            for part in self._telling(container, node, block):
                selector = {block: own, "childOf": {block: kind, "containsDescendants": [{block: part}]}}
                found = self._matches(NodeSelector.model_validate(selector))
                if len(found) == 1 and found[0] is node:
                    return selector
        return None

    def _telling(self, container: ViewNode, node: ViewNode, block: str) -> list[dict[str, str]]:
        """What inside ``container`` could tell it apart: the texts and descriptions of what it
        holds besides ``node`` (and what holds ``node`` or is inside it), in reading order."""
        related = {_key(n) for n in (node, *_ancestors(node), *_descendants(node))}
        description_key = "contentDescriptionRegex" if block == "androidAccessibility" else "accessibilityTextRegex"
        parts: list[dict[str, str]] = []
        for inner in reading_order((n for n in _descendants(container) if shown(n)), self._order):
            if _key(inner) in related:
                continue
            if inner.text and len(inner.text) <= 80:
                parts.append({"textRegex": escape_for_selector(inner.text)})
            elif inner.description and len(inner.description) <= 80:
                parts.append({description_key: escape_for_selector(inner.description)})
            if len(parts) >= 3:
                break
        return parts


# -- predicates ------------------------------------------------------------------------------------


def _always(node: ViewNode) -> bool:
    return True


def _regex(pattern: str | None, value: str | None) -> bool:
    return pattern is None or text_matches(pattern, value)


def _blank(pattern: str | None, value: str | None) -> bool:
    """Maestro's fields: a missing attribute is the empty string (so ``.*`` matches it)."""
    return pattern is None or text_matches(pattern, value or "")


def _id_matches(pattern: str | None, value: str | None, *, blank: bool = False) -> bool:
    if pattern is None:
        return True
    if value is None:
        return blank and text_matches(pattern, "")
    return text_matches(pattern, value) or (":id/" in value and text_matches(pattern, value.split(":id/", 1)[1]))


def _flag(wanted: bool | None, actual: bool | None) -> bool:
    return wanted is None or bool(actual) == wanted


def _maestro_text(pattern: str | None, node: ViewNode) -> bool:
    if pattern is None:
        return True
    values = [value for value in (node.text, node.hint, node.description) if value] or [""]
    return any(text_matches(pattern, value) for value in values)


def _editable(node: ViewNode) -> bool:
    name = node.class_name or ""
    return name.endswith(
        ("EditText", "AutoCompleteTextView", "TextField", "SecureTextField", "TextView", "SearchField")
    )


def _accessibility_predicate(m: AndroidAccessibilityMatch) -> Callable[[ViewNode], bool]:
    unobservable = [name for name in _UNOBSERVABLE_ANDROID if getattr(m, name) is not None]
    if unobservable:
        raise SelectorError(
            f"uiautomator2's hierarchy does not show {', '.join(unobservable)}; "
            f"select the element by text, resource id, content description or class instead"
        )

    def predicate(n: ViewNode) -> bool:
        return (
            _regex(m.classNameRegex, n.class_name)
            and _id_matches(m.resourceIdRegex, n.id)
            and _regex(m.textRegex, n.text)
            and _regex(m.contentDescriptionRegex, n.description)
            and _regex(m.hintTextRegex, n.hint)
            and _flag(m.isEnabled, n.enabled)
            and _flag(m.isClickable, n.clickable)
            and _flag(m.isCheckable, n.attributes.get("checkable"))
            and _flag(m.isChecked, n.checked)
            and _flag(m.isSelected, n.selected)
            and _flag(m.isFocused, n.focused)
            and _flag(m.isEditable, _editable(n))
            and _flag(m.isScrollable, n.scrollable)
            and _flag(m.isPassword, n.password)
        )

    return predicate


def _maestro_predicate(m: AndroidMaestroMatch | IosMaestroMatch) -> Callable[[ViewNode], bool]:
    def predicate(n: ViewNode) -> bool:
        common = (
            _maestro_text(m.textRegex, n)
            and _id_matches(m.resourceIdRegex, n.id, blank=True)
            and _blank(m.accessibilityTextRegex, n.description)
            and _blank(m.classNameRegex, n.class_name)
            and _blank(m.hintTextRegex, n.hint)
            and _flag(m.focused, n.focused)
            and _flag(m.selected, n.selected)
        )
        if not common:
            return False
        if isinstance(m, AndroidMaestroMatch):
            return _flag(m.clickable, n.clickable) and _flag(m.enabled, n.enabled) and _flag(m.checked, n.checked)
        return True

    return predicate


_TRAITS: dict[str, Callable[[ViewNode], bool]] = {
    "TEXT": lambda n: bool(n.text),
    "LONG_TEXT": lambda n: bool(n.text) and len(n.text or "") >= 200,
    "SQUARE": lambda n: n.bounds is not None and abs(n.bounds.width - n.bounds.height) <= 3,
}


def _legacy_predicate(s: ElementSelector) -> Callable[[ViewNode], bool]:
    traits = [t.upper() for t in s.traits or []]
    unknown = [t for t in traits if t not in _TRAITS]
    if unknown:
        raise SelectorError(f"unknown trait(s) {', '.join(unknown)} (known: {', '.join(sorted(_TRAITS))})")

    def size_ok(n: ViewNode) -> bool:
        if s.size is None or n.bounds is None:
            return True
        tolerance = s.size.tolerance or 0
        return (s.size.width is None or abs(n.bounds.width - s.size.width) <= tolerance) and (
            s.size.height is None or abs(n.bounds.height - s.size.height) <= tolerance
        )

    if isinstance(s, MaestroSelector):
        return _maestro_predicate_ci(s, traits, size_ok)

    def predicate(n: ViewNode) -> bool:
        return (
            _maestro_text(s.textRegex, n)
            and _id_matches(s.idRegex, n.id, blank=True)
            and _blank(s.accessibilityTextRegex, n.description)
            and _flag(s.enabled, n.enabled)
            and _flag(s.selected, n.selected)
            and _flag(s.checked, n.checked)
            and _flag(s.focused, n.focused)
            and size_ok(n)
            and all(_TRAITS[t](n) for t in traits)
        )

    return predicate


def _maestro_predicate_ci(
    s: ElementSelector, traits: list[str], size_ok: Callable[[ViewNode], bool]
) -> Callable[[ViewNode], bool]:
    """Maestro's filters: text matches the text, hint or accessibility text; an id matches in
    full or after its last ``/``; both ignore case."""

    def text_ok(n: ViewNode) -> bool:
        values = [v for v in (n.text, n.hint, n.description) if v] or [""]  # a missing attribute is ""
        return s.textRegex is None or any(maestro_matches(s.textRegex, v) for v in values)

    def id_ok(n: ViewNode) -> bool:
        if s.idRegex is None:
            return True
        value = n.id or ""
        return maestro_matches(s.idRegex, value) or (
            "/" in value and maestro_matches(s.idRegex, value.rsplit("/", 1)[1])
        )

    def predicate(n: ViewNode) -> bool:
        return (
            text_ok(n)
            and id_ok(n)
            and (s.accessibilityTextRegex is None or maestro_matches(s.accessibilityTextRegex, n.description or ""))
            and _flag(s.enabled, n.enabled)
            and _flag(s.selected, n.selected)
            and _flag(s.checked, n.checked)
            and _flag(s.focused, n.focused)
            and size_ok(n)
            and all(_TRAITS[t](n) for t in traits)
        )

    return predicate


def _legacy_index(index: int | str | None) -> int | None:
    if index is None:
        return None
    try:
        value = int(index)
    except ValueError:
        raise SelectorError(f"selector index {index!r} is not a whole number") from None
    if value < 0:
        raise SelectorError(f"selector index {value} is negative")
    return value


def _related(relation: str, node: ViewNode, anchor: ViewNode) -> bool:
    b, a = node.bounds, anchor.bounds
    assert b is not None
    assert a is not None
    if relation == "below":
        return b.top >= a.bottom
    if relation == "above":
        return b.bottom <= a.top
    if relation == "leftOf":
        return b.right <= a.left
    return b.left >= a.right


def _ancestors(node: ViewNode) -> Iterable[ViewNode]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _descendants(node: ViewNode) -> Iterable[ViewNode]:
    walk = node.walk()
    next(walk)
    return walk
