"""What a failed call looked for, and what the screen shows that reads most like it: the
"nearest on screen" hint a driver's error message and the evidence plugin both give.

A failure message names at most a few elements (:func:`screen_hint`); the whole screen is the
failed step's evidence (its hierarchy file), which the terminal, the JSON and the reports
point at."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol


class ViewNode(Protocol):
    """What this module reads of a screen: :class:`trailblaze.device.commands.ViewNode`, named
    here by its shape, as the device API's failure messages use this module."""

    text: str | None
    id: str | None
    class_name: str | None
    description: str | None

    def walk(self) -> Iterator[ViewNode]: ...

    def outline(self, limit: int = ...) -> str: ...


#: how many names "nearest on screen" lists
NEAREST = 3
#: how many of the screen's elements a failure message names when none reads like what it looked for
SCREEN_LINES = 5
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


def wanted_role(args: Mapping[str, Any]) -> str | None:
    """The ARIA role of the element a call's ``nodeSelector`` looks for (its own ``web:``
    block's, not a container's), None when it names none."""
    selector = args.get("nodeSelector")
    block = selector.get("web") if isinstance(selector, Mapping) else None
    role = block.get("ariaRole") if isinstance(block, Mapping) else None
    return role if isinstance(role, str) and role.strip() else None


def screen_hint(
    wanted: Iterable[str], root: ViewNode, outline: Callable[[int], str] | None = None, role: str | None = None
) -> str:
    """What a failure message says of the screen, at most :data:`SCREEN_LINES` elements of it:

    * ``nearest on screen: button 'Submit'``: what reads most like what was looked for;
    * else, when the call looked for a ``role``, the elements of that role
      (``on screen: button 'Submit'; button 'Clear All'``): a renamed button is among them;
    * else the first elements (``on screen: heading 'Sign in'; textbox 'User'; …``), enough to
      tell which screen it was.

    ``outline`` lists the screen as the driver names its elements (default
    :meth:`ViewNode.outline`). The whole screen is the failed step's evidence."""
    nearest = nearest_on_screen(wanted, root)
    if nearest:
        return f"nearest on screen: {', '.join(nearest)}"
    if role is not None:
        same = [f"{role} {label!r}" for n in root.walk() if n.class_name == role and (label := n.text or n.description)]
        if same:
            return f"on screen: {'; '.join(same[:SCREEN_LINES])}" + ("; …" if len(same) > SCREEN_LINES else "")
    return f"on screen: {(outline or root.outline)(SCREEN_LINES)}"
