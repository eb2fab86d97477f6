"""Element selectors as upstream Trailblaze writes them in trail files.

Two shapes exist: the legacy element ``selector:`` (Maestro-style) and the ``nodeSelector:``
that carries one driver-specific block plus spatial and hierarchy relations. Both are pydantic
models with the exact upstream field names, so trail files round-trip unchanged.

Every ``…Regex`` field is a regex in Java's syntax (what upstream records) that matches the
**whole** value, or equals it literally (upstream and Maestro semantics:
``regex.matches(value) || pattern == value``); see :func:`text_matches`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from trailblaze.core import limits
from trailblaze.core.errors import ToolFailure

#: the fields through which one selector holds others
RELATIONS = ("childOf", "containsChild", "containsDescendants", "below", "above", "leftOf", "rightOf")


#: CSS that picks an element by its place among its siblings (Playwright's ``nth=`` too)
_NTH_CSS = re.compile(r":nth-(?:of-type|child|last-child|last-of-type|match)\(|>>\s*nth=")


def is_positional(selector: Any) -> bool:
    """Whether a selector as written (a mapping) picks its element by its place among others —
    ``index``, ``nthIndex`` or an ``nth-of-type`` step anywhere in it — rather than by what it
    is: a row added above it, or a new group first, makes it find another element."""
    if not isinstance(selector, Mapping):
        return False
    for key, value in selector.items():
        if key in ("index", "nthIndex") and value is not None:
            return True
        if key in ("cssSelector", "css") and isinstance(value, str) and _NTH_CSS.search(value):
            return True
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Mapping) and is_positional(item):
                return True
    return False


def nesting_problem(raw: Any) -> str | None:
    """Why a selector as written (a mapping) is too deep or too big to be matched, or None.

    Each ``containsChild`` level doubles what Playwright is sent (the inner selector is quoted
    into the outer one), so a few dozen levels exhaust the memory: the depth is bounded by
    :data:`~trailblaze.core.limits.SELECTOR_DEPTH` and the size by
    :data:`~trailblaze.core.limits.SELECTOR_CHARS`, before anything else is looked at."""
    if not isinstance(raw, dict):
        return None
    deepest = limits.SELECTOR_DEPTH.get_int()
    levels = [(raw, 1)]
    while levels:
        selector, depth = levels.pop()
        if depth > deepest:
            return (
                f"the selector nests more than {deepest} levels deep through {', '.join(RELATIONS)} "
                f"(the limit, {limits.SELECTOR_DEPTH.env}): say it with fewer levels"
            )
        for key in RELATIONS:
            inner = selector.get(key)
            for item in inner if isinstance(inner, list) else [inner]:
                if isinstance(item, dict):
                    levels.append((item, depth + 1))
    size = len(json.dumps(raw, default=str))
    bound = limits.SELECTOR_CHARS.get_int()
    if size > bound:
        return f"the selector has {size} characters, more than {bound} (the limit, {limits.SELECTOR_CHARS.env})"
    return None


#: how every ``…Regex`` field's description ends: what its value is
_REGEX = "a regex in Java's syntax that matches the whole value, or the value written out exactly"
#: how a field the phone drivers' hierarchies do not show is described
_UNREAD = "trailblaze's phone drivers cannot read it from the screen: a selector with it fails, naming it"


def _field(text: str, **constraints: Any) -> Any:
    """An optional selector field, described (the description is what ``trailblaze schema``, an
    editor and the docs' tool pages show)."""
    return Field(default=None, description=text, **constraints)


def _regex_field(what: str) -> Any:
    return _field(f"{what}: {_REGEX}.")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: ``…Regex`` fields matched by the page's V8 rather than by trailblaze
    _browser_patterns: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*")
    @classmethod
    def _valid_regex(cls, value: Any, info: ValidationInfo) -> Any:
        """A ``…Regex`` field must be a valid regex: an invalid one would otherwise be matched
        as literal text and cost the whole timeout before failing for no visible reason."""
        if isinstance(value, str) and info.field_name and info.field_name.endswith("Regex"):
            problem = regex_problem(value, browser=info.field_name in cls._browser_patterns)
            if problem is not None:
                raise ValueError(problem)
        return value

    def compact(self) -> dict[str, Any]:
        """The fields that are set, in upstream's wire names (what a recording stores)."""
        return self.model_dump(exclude_none=True, by_alias=True)


class WebMatch(_Model):
    """The ``web:`` block of a nodeSelector: an element of a page, found as upstream finds it —
    by ``cssSelector`` alone when it is set, else by ``dataTestId`` alone, else by its role and
    name; ``nthIndex`` then picks one of the matches."""

    _browser_patterns: ClassVar[frozenset[str]] = frozenset({"ariaNameRegex", "ariaDescriptorRegex"})

    ariaRole: str | None = _field(
        "The element's ARIA role, explicit or implied by its tag: button, link, textbox, checkbox, heading, "
        "row, dialog… (Playwright's get_by_role)."
    )
    ariaNameRegex: str | None = _field(
        "The element's accessible name (a button's text, a field's label, an image's alt text): "
        f"{_REGEX}. Without ariaRole: the label of a form control, or an element's text."
    )
    ariaDescriptorRegex: str | None = _field(
        'A role and name as the page\'s ARIA snapshot writes them, button "Save": its role counts when '
        "ariaRole is not set, its name when ariaNameRegex is not. Text not of that form is a name."
    )
    headingLevel: int | None = _field(
        "The level of a heading (1 for <h1>…); without ariaRole the element is a heading of that level."
    )
    cssSelector: str | None = _field(
        'A CSS selector, with Playwright\'s additions (:text-is("…"), :has(…)). When set it alone finds '
        "the element: the role, name and test id are not looked at."
    )
    dataTestId: str | None = _field(
        "The element's test id, its data-testid attribute. When set (and cssSelector is not) it alone "
        "finds the element."
    )
    nthIndex: int | None = _field(
        "Which of the elements the block matches, 0-based in the page's order (-1: the last), as "
        "Playwright's nth(): an element added before it makes it find another.",
        ge=-limits.MAX_COUNT,
        le=limits.MAX_COUNT,
    )


class AndroidAccessibilityMatch(_Model):
    """The ``androidAccessibility:`` block of a nodeSelector, what trailblaze records on Android:
    an element by the attributes of its accessibility node, each matched against that attribute
    alone (an element without it does not match)."""

    classNameRegex: str | None = _regex_field("The view's class, android.widget.Button")
    resourceIdRegex: str | None = _regex_field(
        "The view's resource id, com.example:id/submit, or its short name after :id/, submit"
    )
    uniqueId: str | None = _field(f"Upstream's id of the accessibility node; {_UNREAD}.")
    textRegex: str | None = _regex_field("The view's own text (not its hint or content description)")
    contentDescriptionRegex: str | None = _regex_field(
        "The view's content description, what TalkBack reads for an icon or image"
    )
    hintTextRegex: str | None = _regex_field("A text field's hint, shown while it is empty")
    labeledByTextRegex: str | None = _field(f"The text of the view that labels this one; {_UNREAD}.")
    stateDescriptionRegex: str | None = _field(f"The view's state description (On, 50 percent); {_UNREAD}.")
    paneTitleRegex: str | None = _field(f"The title of the pane the view is; {_UNREAD}.")
    isEnabled: bool | None = _field("Whether the view is enabled.")
    isClickable: bool | None = _field("Whether the view is clickable.")
    isCheckable: bool | None = _field("Whether the view can be checked: a checkbox, a switch, a radio button.")
    isChecked: bool | None = _field("Whether the view is checked.")
    isSelected: bool | None = _field("Whether the view is selected (a tab, a list item).")
    isFocused: bool | None = _field("Whether the view has the input focus.")
    isEditable: bool | None = _field(
        "Whether the view takes typed text, judged by its class: an EditText, AutoCompleteTextView or "
        "TextView (on iOS a text field, text view or search field)."
    )
    isScrollable: bool | None = _field("Whether the view scrolls.")
    isPassword: bool | None = _field("Whether the view is a password field.")
    isHeading: bool | None = _field(f"Whether the view is marked as a heading; {_UNREAD}.")
    isMultiLine: bool | None = _field(f"Whether the text field takes several lines; {_UNREAD}.")
    inputType: int | None = _field(f"The text field's input type (Android's InputType, a number); {_UNREAD}.")
    collectionItemRowIndex: int | None = _field(f"The view's row in a list or grid; {_UNREAD}.")
    collectionItemColumnIndex: int | None = _field(f"The view's column in a grid; {_UNREAD}.")


#: how the Maestro blocks' text fields match
_MAESTRO_TEXT = (
    "Text the element shows: its text, its hint or its accessibility text, each tried; "
    f"{_REGEX} (an element without any counts as empty text)."
)


class AndroidMaestroMatch(_Model):
    """The ``androidMaestro:`` block of a nodeSelector: an Android element matched as Maestro
    matches it (a text against the text, hint and content description; a missing attribute
    counts as empty, so ``.*`` matches it)."""

    textRegex: str | None = _field(_MAESTRO_TEXT)
    resourceIdRegex: str | None = _regex_field(
        "The view's resource id, com.example:id/submit, or its short name after :id/ (none counts as empty)"
    )
    accessibilityTextRegex: str | None = _regex_field("The view's content description (none counts as empty)")
    classNameRegex: str | None = _regex_field("The view's class, android.widget.Button")
    hintTextRegex: str | None = _regex_field("A text field's hint (none counts as empty)")
    clickable: bool | None = _field("Whether the view is clickable.")
    enabled: bool | None = _field("Whether the view is enabled.")
    focused: bool | None = _field("Whether the view has the input focus.")
    checked: bool | None = _field("Whether the view is checked.")
    selected: bool | None = _field("Whether the view is selected.")


class IosMaestroMatch(_Model):
    """The ``iosMaestro:`` block of a nodeSelector, what trailblaze records on iOS: an element
    of WebDriverAgent's source matched as Maestro matches it (a missing attribute counts as
    empty)."""

    textRegex: str | None = _field(
        "Text the element shows: its text (a text field's value; anything else's label, else its value), "
        f"its placeholder or its accessibility label, each tried; {_REGEX}."
    )
    resourceIdRegex: str | None = _regex_field("The element's accessibility identifier (its name in the source)")
    accessibilityTextRegex: str | None = _regex_field("The element's accessibility label")
    classNameRegex: str | None = _regex_field("The element's type, XCUIElementTypeButton")
    hintTextRegex: str | None = _regex_field("A text field's placeholder")
    focused: bool | None = _field("Whether the element has the input focus.")
    selected: bool | None = _field("Whether the element is selected.")


DRIVER_BLOCKS = ("web", "androidAccessibility", "androidMaestro", "iosMaestro", "iosAxe", "compose")


class NodeSelector(_Model):
    """``nodeSelector:`` — one driver block plus relations; ``index`` is applied last.

    ``index`` counts among all matches sorted top-to-bottom, then left-to-right.
    """

    web: WebMatch | None = _field("The element on a web page, by what Playwright finds it by.")
    androidAccessibility: AndroidAccessibilityMatch | None = _field(
        "The element on Android, by its accessibility node's attributes (what trailblaze records there)."
    )
    androidMaestro: AndroidMaestroMatch | None = _field("The element on Android, matched as Maestro matches.")
    iosMaestro: IosMaestroMatch | None = _field(
        "The element on iOS, matched as Maestro matches (what trailblaze records there)."
    )
    # Upstream matchers no driver here implements yet; kept so such files load unchanged.
    iosAxe: dict[str, Any] | None = _field(
        "Upstream's AXe matcher for iOS. The file loads, but no driver here matches it: a call with it fails."
    )
    compose: dict[str, Any] | None = _field(
        "Upstream's matcher for Compose Desktop. The file loads, but no driver here matches it: a call with it fails."
    )
    below: NodeSelector | None = _field(
        "Only elements wholly below the first element this selector matches (their top at or under its bottom)."
    )
    above: NodeSelector | None = _field(
        "Only elements wholly above the first element this selector matches (their bottom at or over its top)."
    )
    leftOf: NodeSelector | None = _field("Only elements wholly left of the first element this selector matches.")
    rightOf: NodeSelector | None = _field("Only elements wholly right of the first element this selector matches.")
    childOf: NodeSelector | None = _field(
        "Only elements inside an element this selector matches (a row, a dialog, a card), at any depth."
    )
    containsChild: NodeSelector | None = _field(
        "Only elements holding an element this selector matches: on the web at any depth, on a phone as a "
        "direct child (containsDescendants looks deeper)."
    )
    containsDescendants: list[NodeSelector] | None = _field(
        "Only elements holding, at any depth, an element each of these selectors matches."
    )
    index: int | None = _field(
        "Which of the matches, 0-based, counted over all of them sorted top to bottom, then left to right; "
        "applied last. An element added above it makes it find another.",
        ge=0,
        le=limits.MAX_COUNT,
    )

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, raw: Any) -> Any:
        problem = nesting_problem(raw)
        if problem is not None:
            raise ValueError(problem)
        return raw

    @model_validator(mode="after")
    def _one_driver_block(self) -> NodeSelector:
        blocks = [name for name in DRIVER_BLOCKS if getattr(self, name) is not None]
        if len(blocks) > 1:
            raise ValueError(f"a nodeSelector has one driver block, got {', '.join(blocks)}")
        return self

    @property
    def driver_block(self) -> str | None:
        return next((name for name in DRIVER_BLOCKS if getattr(self, name) is not None), None)

    def describe(self) -> str:
        return describe(self.compact())


class SizeSelector(_Model):
    """An element's size on a phone's screen, in pixels."""

    width: int | None = _field("The element's width, in pixels.")
    height: int | None = _field("The element's height, in pixels.")
    tolerance: int | None = _field("How many pixels the width and height may be off by (default 0).")


#: what the legacy selector's fields that only phones read add to their description
_PHONES = "Phones only: on the web a legacy selector takes textRegex, idRegex and css."


class ElementSelector(_Model):
    """The legacy ``selector:`` (Maestro's element selector), as older recordings hold it. A
    phone matches every field; on the web it is read as a nodeSelector — ``textRegex`` the
    accessible name, ``idRegex`` the element's id, ``css`` CSS — and any other field is an
    error."""

    textRegex: str | None = _field(
        "Text the element shows — on a phone its text, hint or accessibility text, each tried; on the web its "
        f"accessible name: {_REGEX}."
    )
    idRegex: str | None = _field(
        "The element's id — a resource id (whole, or its short name after :id/) on Android, the accessibility "
        f"identifier on iOS: {_REGEX}. On the web, an element's HTML id, written out (no pattern)."
    )
    accessibilityTextRegex: str | None = _field(
        f"The element's accessibility text (Android's content description, iOS's label): {_REGEX}. {_PHONES}"
    )
    size: SizeSelector | None = _field(f"The element's size, within a tolerance. {_PHONES}")
    traits: list[str] | None = _field(
        "What the element must be, each of: TEXT (it has text), LONG_TEXT (200 characters or more), SQUARE "
        f"(width and height within 3 pixels). {_PHONES}"
    )
    index: int | str | None = _field(
        "Which of the matches, 0-based, sorted top to bottom, then left to right (a number, or a number "
        f"written as text, as Maestro writes it). {_PHONES}"
    )
    enabled: bool | None = _field(f"Whether the element is enabled. {_PHONES}")
    selected: bool | None = _field(f"Whether the element is selected. {_PHONES}")
    checked: bool | None = _field(f"Whether the element is checked. {_PHONES}")
    focused: bool | None = _field(f"Whether the element has the input focus. {_PHONES}")
    css: str | None = _field("A CSS selector. The web only: a phone refuses a selector with it.")
    below: ElementSelector | None = _field(f"Only elements wholly below the first element this matches. {_PHONES}")
    above: ElementSelector | None = _field(f"Only elements wholly above the first element this matches. {_PHONES}")
    leftOf: ElementSelector | None = _field(f"Only elements wholly left of the first element this matches. {_PHONES}")
    rightOf: ElementSelector | None = _field(f"Only elements wholly right of the first element this matches. {_PHONES}")
    containsChild: ElementSelector | None = _field(
        f"Only elements with a direct child this selector matches. {_PHONES}"
    )
    containsDescendants: list[ElementSelector] | None = _field(
        f"Only elements holding, at any depth, an element each of these selectors matches. {_PHONES}"
    )
    childOf: ElementSelector | None = _field(
        f"Only elements inside an element this selector matches, at any depth. {_PHONES}"
    )

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, raw: Any) -> Any:
        problem = nesting_problem(raw)
        if problem is not None:
            raise ValueError(problem)
        return raw

    def describe(self) -> str:
        return describe(self.compact())


def describe(fields: dict[str, Any]) -> str:
    """A short human description of a selector, for messages."""
    parts = []
    for key, value in fields.items():
        if isinstance(value, dict):
            parts.append(f"{key}({describe(value)})" if key not in DRIVER_BLOCKS else describe(value))
        elif isinstance(value, list):
            parts.append(f"{key}[{', '.join(describe(v) if isinstance(v, dict) else repr(v) for v in value)}]")
        else:
            parts.append(f"{key}={value!r}")
    return ", ".join(parts)


class RegexTimeout(ToolFailure):
    """A pattern from a trail took longer than :data:`~trailblaze.core.limits.REGEX_SECONDS` to match
    one value: it backtracks catastrophically (``(a|a)+b``), and the step fails saying so."""

    def __init__(self, pattern: str, seconds: float) -> None:
        super().__init__(
            f"matching the pattern {pattern!r} took longer than {seconds:g}s, the limit for one match "
            f"({limits.REGEX_SECONDS.env}); a pattern with nested repetition like (a+)+ or (a|a)* can take for "
            "ever: write it without"
        )


class BoundedPattern:
    """A compiled pattern whose every match is time-bounded (the ``regex`` package's ``timeout``).

    It has the methods of :class:`re.Pattern` that matching needs; a match that runs out of
    time raises :class:`RegexTimeout`."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, compiled: Any, pattern: str) -> None:
        self._compiled = compiled
        #: the pattern as written in the trail
        self.pattern = pattern

    def fullmatch(self, string: str) -> Any:
        return self._run(self._compiled.fullmatch, string)

    def match(self, string: str) -> Any:
        return self._run(self._compiled.match, string)

    def search(self, string: str) -> Any:
        return self._run(self._compiled.search, string)

    def __getattr__(self, name: str) -> Any:
        """Anything else a compiled pattern has (``flags``, ``groups``…), from the pattern."""
        return getattr(self._compiled, name)

    def _run(self, method: Any, string: str) -> Any:
        seconds = limits.REGEX_SECONDS.get()
        try:
            return method(string, timeout=seconds)
        except TimeoutError:
            raise RegexTimeout(self.pattern, seconds) from None


def regex_problem(pattern: str, flags: str = "s", *, browser: bool = False) -> str | None:
    """Why ``pattern`` is not a valid regex in Java's syntax (what upstream records), or None
    when it is. ``browser``: it must also be matchable by the page's V8 (a web name)."""
    import regex

    from trailblaze.core.javaregex import JavaRegexError, to_javascript, to_python

    try:
        regex.compile(to_python(pattern, flags), regex.DOTALL)
        if browser:
            to_javascript(pattern, flags)
    except (regex.error, JavaRegexError) as exc:
        return f"invalid regex {pattern!r}: {exc}"
    except (ValueError, OverflowError, RecursionError) as exc:
        return f"invalid regex {pattern!r}: {exc}"
    return None


def compile_search(pattern: str) -> BoundedPattern:
    """``pattern`` (Java syntax) as a time-bounded regex to search with (a URL pattern, say);
    raises :class:`ValueError` when it is not a valid regex."""
    import regex

    from trailblaze.core.javaregex import to_python

    problem = regex_problem(pattern)
    if problem is not None:
        raise ValueError(problem)
    return BoundedPattern(regex.compile(to_python(pattern), regex.DOTALL), pattern)


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str, flags: str = "s") -> BoundedPattern:
    """The regex a selector field means: the pattern, or failing that the literal text.

    The pattern is read in Java's syntax, as upstream records it (``\\Q…\\E`` quoting,
    possessive quantifiers, ``\\p{…}`` classes; see :mod:`trailblaze.core.javaregex`), with the
    Java ``flags`` in effect (``s`` DOTALL by default; Maestro's matching adds ``i`` and ``m``).
    The compiled pattern must match the whole value; literal equality with the pattern text
    also counts, so ``Price (USD)`` matches the text ``Price (USD)`` even though, as a regex,
    the parentheses form a group. Every match is time-bounded (:class:`BoundedPattern`): a
    catastrophic pattern fails the step instead of hanging the run. Selector fields are checked
    to be valid regexes when a trail loads (an invalid one is an error there); other text
    that is not a valid regex (a tool's free-text argument) matches literally.
    """
    import regex  # ~10 ms: only when a selector is matched

    from trailblaze.core.javaregex import JavaRegexError, to_python

    literal = regex.escape(pattern)
    try:
        compiled = regex.compile(f"(?:{to_python(pattern, flags)})|{literal}", regex.DOTALL)
    except (regex.error, JavaRegexError, ValueError, OverflowError, RecursionError):
        compiled = regex.compile(f"(?i:{literal})" if "i" in flags else literal, regex.DOTALL)
    return BoundedPattern(compiled, pattern)


def text_matches(pattern: str, value: str | None, flags: str = "s") -> bool:
    """Whole-value regex match, or literal equality (upstream semantics); time-bounded."""
    if value is None:
        return False
    return compile_pattern(pattern, flags).fullmatch(value) is not None


NodeSelector.model_rebuild()
ElementSelector.model_rebuild()
