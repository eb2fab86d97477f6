"""Element selectors as upstream Trailblaze writes them in trail files.

Two shapes exist: the legacy element ``selector:`` (Maestro-style) and the ``nodeSelector:``
that carries one driver-specific block plus spatial and hierarchy relations. Both are pydantic
models with the exact upstream field names, so trail files round-trip unchanged.

Every ``…Regex`` field matches the **whole** value, or equals it literally (upstream and
Maestro semantics: ``regex.matches(value) || pattern == value``); see :func:`text_matches`.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def compact(self) -> dict[str, Any]:
        """The fields that are set, in upstream's wire names (what a recording stores)."""
        return self.model_dump(exclude_none=True, by_alias=True)


class WebMatch(_Model):
    """Web (Playwright) matcher: ARIA role/name, CSS, test id."""

    ariaRole: str | None = None
    ariaNameRegex: str | None = None
    ariaDescriptorRegex: str | None = None
    headingLevel: int | None = None
    cssSelector: str | None = None
    dataTestId: str | None = None
    nthIndex: int | None = None


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
    index: int | None = Field(default=None, ge=0)

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


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The regex a selector field means: the pattern, or failing that the literal text.

    The compiled pattern must match the whole value; literal equality with the pattern text
    also counts, so ``Price (USD)`` matches the text ``Price (USD)`` even though, as a regex,
    the parentheses form a group.
    """
    try:
        return re.compile(f"(?:{pattern})|{re.escape(pattern)}", re.DOTALL)
    except re.error:
        return re.compile(re.escape(pattern), re.DOTALL)


def text_matches(pattern: str, value: str | None) -> bool:
    """Whole-value regex match, or literal equality (upstream semantics)."""
    if value is None:
        return False
    return compile_pattern(pattern).fullmatch(value) is not None


NodeSelector.model_rebuild()
ElementSelector.model_rebuild()
