"""What a failed call looked for, and what the screen shows that reads most like it: the
"nearest on screen" hint a driver's error message and the evidence plugin both give."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trailblaze.device.commands import ViewNode

#: how many names "nearest on screen" lists
NEAREST = 3
#: arguments that name what a tool looks for (selectors' texts and names, expected values)
_WANTED_KEYS = frozenset(
    {
        "text",
        "textRegex",
        "ariaName",
        "ariaNameRegex",
        "expectedText",
        "expected",
        "id",
        "resourceId",
        "resourceIdRegex",
        "dataTestId",
        "contentDescription",
        "contentDescriptionRegex",
        "accessibilityText",
        "accessibilityTextRegex",
        "label",
        "labelRegex",
        "name",
    }
)


def wanted_texts(args: Mapping[str, Any]) -> list[str]:
    """The texts, names and ids a tool call's arguments look for (selectors included)."""
    found: list[str] = []

    def walk(value: Any, key: str | None) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in _WANTED_KEYS and value.strip() and value not in found:
            found.append(value)

    walk(args, None)
    return found


def nearest_on_screen(wanted: Iterable[str], root: ViewNode, count: int = NEAREST) -> list[str]:
    """What ``root`` shows that reads most like ``wanted`` (string similarity, best first), as
    ``role 'name'`` — the button a trail calls "Sumbit" when the page says "Submit"."""
    labels: dict[str, str] = {}
    for node in root.walk():
        for label in (node.text, node.description, node.id):
            if label and label.strip() and label not in labels:
                labels[label] = f"{node.class_name or 'node'} {label!r}"
    scored: dict[str, float] = {}
    for target in wanted:
        folded = target.casefold()
        for label in labels:
            ratio = difflib.SequenceMatcher(None, folded, label.casefold()).ratio()
            scored[label] = max(scored.get(label, 0.0), ratio)
    best = sorted((label for label, ratio in scored.items() if ratio >= 0.5), key=lambda x: -scored[x])
    return [labels[label] for label in best[:count]]
