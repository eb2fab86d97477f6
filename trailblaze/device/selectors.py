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
    """Web (Playwright) matcher: ARIA role/name, CSS, test id."""

    _browser_patterns: ClassVar[frozenset[str]] = frozenset({"ariaNameRegex", "ariaDescriptorRegex"})

    ariaRole: str | None = None
    ariaNameRegex: str | None = None
    ariaDescriptorRegex: str | None = None
    headingLevel: int | None = None
    cssSelector: str | None = None
    dataTestId: str | None = None
    nthIndex: int | None = Field(default=None, ge=-limits.MAX_COUNT, le=limits.MAX_COUNT)


class AndroidAccessibilityMatch(_Model):
    classNameRegex: str | None = None
    resourceIdRegex: str | None = None
    uniqueId: str | None = None
    textRegex: str | None = None
    contentDescriptionRegex: str | None = None
    hintTextRegex: str | None = None
    labeledByTextRegex: str | None = None
    stateDescriptionRegex: str | None = None
    paneTitleRegex: str | None = None
    isEnabled: bool | None = None
    isClickable: bool | None = None
    isCheckable: bool | None = None
    isChecked: bool | None = None
    isSelected: bool | None = None
    isFocused: bool | None = None
    isEditable: bool | None = None
    isScrollable: bool | None = None
    isPassword: bool | None = None
    isHeading: bool | None = None
    isMultiLine: bool | None = None
    inputType: int | None = None
    collectionItemRowIndex: int | None = None
    collectionItemColumnIndex: int | None = None


class AndroidMaestroMatch(_Model):
    textRegex: str | None = None
    resourceIdRegex: str | None = None
    accessibilityTextRegex: str | None = None
    classNameRegex: str | None = None
    hintTextRegex: str | None = None
    clickable: bool | None = None
    enabled: bool | None = None
    focused: bool | None = None
    checked: bool | None = None
    selected: bool | None = None


class IosMaestroMatch(_Model):
    textRegex: str | None = None
    resourceIdRegex: str | None = None
    accessibilityTextRegex: str | None = None
    classNameRegex: str | None = None
    hintTextRegex: str | None = None
    focused: bool | None = None
    selected: bool | None = None


DRIVER_BLOCKS = ("web", "androidAccessibility", "androidMaestro", "iosMaestro", "iosAxe", "compose")


class NodeSelector(_Model):
    """``nodeSelector:`` — one driver block plus relations; ``index`` is applied last.

    ``index`` counts among all matches sorted top-to-bottom, then left-to-right.
    """

    web: WebMatch | None = None
    androidAccessibility: AndroidAccessibilityMatch | None = None
    androidMaestro: AndroidMaestroMatch | None = None
    iosMaestro: IosMaestroMatch | None = None
    # Upstream matchers no driver here implements yet; kept so such files load unchanged.
    iosAxe: dict[str, Any] | None = None
    compose: dict[str, Any] | None = None
    below: NodeSelector | None = None
    above: NodeSelector | None = None
    leftOf: NodeSelector | None = None
    rightOf: NodeSelector | None = None
    childOf: NodeSelector | None = None
    containsChild: NodeSelector | None = None
    containsDescendants: list[NodeSelector] | None = None
    index: int | None = Field(default=None, ge=0, le=limits.MAX_COUNT)

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
    width: int | None = None
    height: int | None = None
    tolerance: int | None = None


class ElementSelector(_Model):
    """The legacy ``selector:`` (Maestro's element selector)."""

    textRegex: str | None = None
    idRegex: str | None = None
    accessibilityTextRegex: str | None = None
    size: SizeSelector | None = None
    traits: list[str] | None = None
    index: int | str | None = None
    enabled: bool | None = None
    selected: bool | None = None
    checked: bool | None = None
    focused: bool | None = None
    css: str | None = None
    below: ElementSelector | None = None
    above: ElementSelector | None = None
    leftOf: ElementSelector | None = None
    rightOf: ElementSelector | None = None
    containsChild: ElementSelector | None = None
    containsDescendants: list[ElementSelector] | None = None
    childOf: ElementSelector | None = None

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
