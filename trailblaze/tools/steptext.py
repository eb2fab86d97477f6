"""A step's text written from the calls it recorded, for a step nobody gave a text.

An MCP client that calls ``web_selectOption`` without a ``reason`` still leaves a step in the
trail, and a person reads that trail later: "Select 'shipped' in status" says what the step
does where ``web_selectOption {"values": ["shipped"], "nodeSelector": …}`` does not. Each
built-in web, phone and core tool has its phrase; the element is named by what its selector
matches on (the accessible name, test id, ``name`` attribute, placeholder, text), and any other
tool by its name and its arguments' values. Secrets are never written out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from trailblaze.core import javaregex
from trailblaze.tools.model import REASON_KEYS, ToolCall

#: a step's text is a sentence: longer ones are cut
MAX_CHARS = 200
#: a quoted value longer than this is cut
VALUE_CHARS = 60
#: what a CSS selector that the recorder wrote names: an attribute's value or the element's text
_CSS_NAMES = (
    re.compile(r'\[(?:name|placeholder|data-testid|id|aria-label|title)="((?:[^"\\]|\\.)*)"\]'),
    re.compile(r':text-is\("((?:[^"\\]|\\.)*)"\)'),
    re.compile(r"#([A-Za-z_][\w-]*)"),
)
#: fields naming an element, the most readable first, across the driver blocks and the legacy selector
_NAME_FIELDS = (
    "ariaNameRegex",
    "textRegex",
    "accessibilityTextRegex",
    "contentDescriptionRegex",
    "hintTextRegex",
    "labeledByTextRegex",
    "dataTestId",
    "ariaDescriptorRegex",
    "resourceIdRegex",
    "idRegex",
    "uniqueId",
)


def step_text(calls: Sequence[ToolCall], fallback: str) -> str:
    """What the ``calls`` do, as a sentence (``fallback`` when there are none)."""
    if not calls:
        return fallback
    text = "; ".join(describe_call(call.name, call.args) for call in calls)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def describe_call(name: str, args: Mapping[str, Any]) -> str:
    """One call as a person would say it: ``Click 'Search'``, ``Open /about``."""
    args = {k: v for k, v in args.items() if k not in REASON_KEYS}
    phrase = PHRASES.get(name)
    if phrase is not None:
        try:
            return phrase(args)
        except (KeyError, TypeError, ValueError, AttributeError):
            pass  # arguments of an unexpected shape: say it plainly
    if not args:
        return f"Run {name}"
    shown = ", ".join(f"{key} {_value(value)}" for key, value in args.items())
    return f"Run {name} with {shown}"


def target(args: Mapping[str, Any]) -> str | None:
    """The element a call acts on, as its selector names it (or its ref)."""
    for key in ("nodeSelector", "selector"):
        selector = args.get(key)
        if isinstance(selector, Mapping):
            named = _selector_name(selector)
            if named:
                return named
    ref = args.get("ref")
    return str(ref) if ref else None


def _selector_name(selector: Mapping[str, Any]) -> str | None:
    blocks = [block for block in selector.values() if isinstance(block, Mapping)]
    for fields in (selector, *blocks):
        for key in _NAME_FIELDS:
            value = fields.get(key)
            if isinstance(value, str) and value:
                return _readable_pattern(value, key)
        css = fields.get("cssSelector") or fields.get("css")
        if isinstance(css, str) and css:
            return _css_name(css)
        role = fields.get("ariaRole")
        if isinstance(role, str) and role:
            return role
    for relation in ("containsChild", "childOf"):  # a container named by what it holds
        inner = selector.get(relation)
        if isinstance(inner, Mapping):
            return _selector_name(inner)
    return None


def _readable_pattern(pattern: str, key: str) -> str:
    if key == "resourceIdRegex" or key == "idRegex":
        pattern = pattern.rsplit("/", 1)[-1]  # com.example:id/submit → submit
    if key == "ariaDescriptorRegex":
        quoted = re.search(r'"(.*)"', pattern)
        pattern = quoted.group(1) if quoted else pattern
    literal = javaregex.literal_text(pattern)
    return literal if literal is not None else pattern


def _css_name(css: str) -> str:
    for pattern in _CSS_NAMES:
        found = pattern.search(css)
        if found:
            return re.sub(r"\\(.)", r"\1", found.group(1))
    return css


def _quoted(text: Any) -> str:
    value = str(text)
    if len(value) > VALUE_CHARS:
        value = value[: VALUE_CHARS - 1] + "…"
    return f"'{value}'"


def _value(value: Any) -> str:
    if isinstance(value, Mapping):
        named = _selector_name(value)
        return _quoted(named) if named else "{…}"
    if isinstance(value, list):
        return ", ".join(_value(item) for item in value[:5]) + (", …" if len(value) > 5 else "")
    return _quoted(value)


def _on(args: Mapping[str, Any], verb: str, fallback: str) -> str:
    """``verb 'target'``, or ``fallback`` when the call names no element."""
    named = target(args)
    return f"{verb} {_quoted(named)}" if named else fallback


def _in(args: Mapping[str, Any]) -> str:
    named = target(args)
    return f" in {named}" if named else ""


def _navigate(args: Mapping[str, Any]) -> str:
    action = str(args.get("action") or "GOTO").upper()
    if action == "BACK":
        return "Go back"
    if action == "FORWARD":
        return "Go forward"
    if action == "RELOAD":
        return "Reload the page"
    return f"Open {args['url']}"


def _click(args: Mapping[str, Any]) -> str:
    return _on(args, "Long-press" if args.get("longPress") else "Click", "Click")


def _tap(args: Mapping[str, Any]) -> str:
    return _on(args, "Long-press" if args.get("longPress") else "Tap", "Tap")


def _verify_value(args: Mapping[str, Any]) -> str:
    what = target(args) or "the element"
    if str(args.get("type") or "").upper() == "ATTRIBUTE" and args.get("attribute"):
        what = f"{args['attribute']} of {what}"
    return f"Check that {what} is {_quoted(args['expected'])}"


def _seconds(value: Any) -> str:
    return f"{float(value):g}s"


PHRASES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    # web
    "web_navigate": _navigate,
    "web_click": _click,
    "web_type": lambda a: f"Type {_quoted(a['text'])}{_in(a)}",
    "web_fillSecret": lambda a: f"Type a secret{_in(a)}",
    "web_selectOption": lambda a: f"Select {', '.join(_quoted(v) for v in a['values'])}{_in(a)}",
    "web_pressKey": lambda a: f"Press {a['key']}",
    "web_scroll": lambda a: f"Scroll {str(a.get('direction') or 'down').lower()}{_in(a)}",
    "web_hover": lambda a: _on(a, "Hover over", "Hover"),
    "web_wait": lambda a: f"Wait {_seconds(a.get('seconds', 1))}",
    "web_waitForUrl": lambda a: f"Wait for the URL {a['pattern']}",
    "web_snapshot": lambda a: f"Take a snapshot {_quoted(a['screenName'])}",
    "web_verifyTextVisible": lambda a: f"Check that {_quoted(a['text'])} is visible",
    "web_verifyElementVisible": lambda a: f"Check that {_quoted(target(a) or 'the element')} is visible",
    "web_verifyListVisible": lambda a: f"Check that the list shows {', '.join(_quoted(i) for i in a['items'])}",
    "web_verifyValue": _verify_value,
    "web_verifyTextNotVisible": lambda a: f"Check that {_quoted(a['text'])} is not visible",
    "web_verifyElementCount": lambda a: f"Check that {_quoted(target(a) or 'the selector')} finds {int(a['count'])}",
    "web_verifyElementState": lambda a: (
        f"Check that {_quoted(target(a) or 'the element')} is {str(a['state']).lower()}"
    ),
    "web_verifyUrl": lambda a: f"Check that the URL matches {_quoted(a['pattern'])}",
    "web_verifyTitle": lambda a: f"Check that the title is {_quoted(a['expected'])}",
    "web_currentUrl": lambda a: "Read the URL",
    "web_resize": lambda a: f"Resize the window to {a['width']}×{a['height']}",
    # phones
    "launchApp": lambda a: f"Launch {a['appId']}",
    "stopApp": lambda a: f"Stop {a['appId']}",
    "mobile_clearAppData": lambda a: f"Clear the data of {a['appId']}",
    "tapOnElementWithText": lambda a: f"Tap {_quoted(a['text'])}",
    "tapOnElementWithAccessibilityText": lambda a: f"Tap {_quoted(a['accessibilityText'])}",
    "tapOnElementBySelector": _tap,
    "tapOn": _tap,
    "tapOnPoint": lambda a: f"{'Long-press' if a.get('longPress') else 'Tap'} at ({a['x']}, {a['y']})",
    "longPressOnElementWithText": lambda a: f"Long-press {_quoted(a['text'])}",
    "inputText": lambda a: f"Type {_quoted(a['text'])}",
    "eraseText": lambda a: (
        f"Erase {a['charactersToErase']} characters" if a.get("charactersToErase") else "Erase the text"
    ),
    "clearText": lambda a: "Clear the text",
    "hideKeyboard": lambda a: "Hide the keyboard",
    "pressBack": lambda a: "Press Back",
    "pressKey": lambda a: f"Press {str(a['keyCode']).capitalize()}",
    "swipe": lambda a: (
        f"Swipe {str(a.get('direction') or 'down').lower()}"
        + (f" on {_quoted(a['swipeOnElementText'])}" if a.get("swipeOnElementText") else "")
    ),
    "scrollUntilTextIsVisible": lambda a: f"Scroll until {_quoted(a.get('text') or a['textRegex'])} is visible",
    "openUrl": lambda a: f"Open {a['url']}",
    "assertVisibleWithText": lambda a: f"Check that {_quoted(a['text'])} is visible",
    "assertVisibleBySelector": lambda a: f"Check that {_quoted(target(a) or 'the element')} is visible",
    "assertNotVisibleWithText": lambda a: f"Check that {_quoted(a['text'])} is not visible",
    "assertNotVisibleBySelector": lambda a: f"Check that {_quoted(target(a) or 'the element')} is not visible",
    "android_grantPermissions": lambda a: f"Grant {', '.join(a['permissions'])} to {a['appId']}",
    # every driver
    "wait": lambda a: f"Wait {_seconds(a.get('timeToWaitInSeconds', 5))}",
    "waitForChange": lambda a: "Wait for the screen to change",
    "takeSnapshot": lambda a: f"Take a snapshot {_quoted(a['screenName'])}",
    "assertEquals": lambda a: f"Check that {_quoted(a['actual'])} is {_quoted(a['expected'])}",
    "assertNotEquals": lambda a: f"Check that {_quoted(a['actual'])} is not {_quoted(a['expected'])}",
    "assertMath": lambda a: f"Check that {a['expression']} is {_quoted(a['expected'])}",
    "rememberText": lambda a: f"Remember {_quoted(target(a) or 'the text')} as {a['variable']}",
    "runTrail": lambda a: f"Run {a['path']}",
}
