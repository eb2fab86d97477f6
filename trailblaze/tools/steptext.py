"""A step's text written from the calls it recorded, for a step nobody gave a text.

An MCP client that calls ``web_selectOption`` without a ``reason`` still leaves a step in the
trail, and a person reads that trail later: "Select 'shipped' in status" says what the step
does where ``web_selectOption {"values": ["shipped"], "nodeSelector": …}`` does not. Each
built-in web, phone and core tool has its phrase; the element is named by what its selector
matches on (the accessible name, test id, ``name`` attribute, placeholder, text) and where it is
when its selector says so (``childOf``: "Click 'Add' in the Tickets row", "in the Kyoto card",
"in the Users row of the Helpdesk table"), never by a wrapper's id or a path of tags; and any
other tool by its name and its arguments' values. A call whose element is found by its position
(``nthIndex``, ``index``, an ``nth-of-type`` step) says so, since a change to the page can make
it find another element. Secrets are never written out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from trailblaze.core import javaregex
from trailblaze.device.selectors import DRIVER_BLOCKS, is_positional
from trailblaze.tools.model import REASON_KEYS, ToolCall

#: a step's text is a sentence: longer ones are cut
MAX_CHARS = 200
#: a quoted value longer than this is cut
VALUE_CHARS = 60
#: what a CSS selector that the recorder wrote names: an attribute's value or the element's text
_CSS_NAMES = (
    re.compile(r'\[(?:name|placeholder|data-testid|id|aria-label|title)="((?:[^"\\]|\\.)*)"\]'),
    re.compile(r':text-is\("((?:[^"\\]|\\.)*)"\)'),
    re.compile(r"^#([A-Za-z_][\w-]*)"),
)
#: what a person calls an element of a tag a CSS selector ends at
_TAG_WORDS = {
    "a": "link",
    "button": "button",
    "input": "field",
    "textarea": "field",
    "select": "list",
    "img": "picture",
}
#: what a person calls a container of an ARIA role
_ROLE_WORDS = {
    "article": "card",
    "alertdialog": "dialog",
    "banner": "header",
    "columnheader": "column header",
    "complementary": "sidebar",
    "contentinfo": "footer",
    "gridcell": "cell",
    "listitem": "item",
    "listbox": "list",
    "menubar": "menu",
    "region": "section",
    "rowheader": "row header",
    "tabpanel": "tab",
    "treeitem": "item",
}
#: said of a call whose element is found by its position among others
POSITION_WARNING = " (by position: a change to the page may make it another element)"
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
    """One call as a person would say it: ``Click 'Search'``, ``Open /about``, ``Click 'Add' in
    the Tickets row``; with :data:`POSITION_WARNING` when its element is found by position."""
    args = {k: v for k, v in args.items() if k not in REASON_KEYS}
    text = _sentence(name, args)
    if any(is_positional(args.get(key)) for key in ("nodeSelector", "selector")):
        text += POSITION_WARNING
    return text


def _sentence(name: str, args: Mapping[str, Any]) -> str:
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


def element(args: Mapping[str, Any], quote: bool = True) -> str | None:
    """The element a call acts on as a person points at it: its name (quoted), which of several
    when its selector counts (``the 2nd 'Save'``), and where it is (``in the Tickets row``)."""
    selector: Mapping[str, Any] = next(
        (args[key] for key in ("nodeSelector", "selector") if isinstance(args.get(key), Mapping)), {}
    )
    named = target(args)
    if named is not None:
        shown = _quoted(named) if quote else named
    else:
        shown = _css_kind(selector) or ""
        if not shown:
            return None
    nth = _nth(selector)
    if nth is not None:
        shown = f"the {_ordinal(nth + 1)} {shown}"
    place = _place(selector.get("childOf"))
    return f"{shown} in {place}" if place else shown


def _selector_name(selector: Mapping[str, Any]) -> str | None:
    blocks = [value for key, value in selector.items() if key in DRIVER_BLOCKS and isinstance(value, Mapping)]
    for fields in (selector, *blocks):
        for key in _NAME_FIELDS:
            value = fields.get(key)
            if isinstance(value, str) and value:
                return _readable_pattern(value, key)
        css = fields.get("cssSelector") or fields.get("css")
        if isinstance(css, str) and css:
            named = _css_name(css)
            if named:
                return named
        role = fields.get("ariaRole")
        if isinstance(role, str) and role:
            return role
    for relation in ("containsChild", "containsDescendants"):  # a container named by what it holds
        inner = selector.get(relation)
        inner = inner[0] if isinstance(inner, list) and inner else inner
        if isinstance(inner, Mapping):
            return _selector_name(inner)
    if not blocks and isinstance(selector.get("childOf"), Mapping):  # an element known only by where it is
        return _selector_name(selector["childOf"])
    return None


def _place(container: Any) -> str | None:
    """Where a ``childOf`` container is, as a person says it: ``the Tickets row``, ``the Ryokan
    Sakura group``, ``the caption``; ``of`` the container around it. None for a container known
    only by an id or a path (a wrapper a person does not see)."""
    if not isinstance(container, Mapping):
        return None
    blocks = [value for key, value in container.items() if key in DRIVER_BLOCKS and isinstance(value, Mapping)]
    fields: Mapping[str, Any] = blocks[0] if blocks else {}
    word = _kind_word(fields)
    own = fields.get("ariaNameRegex")
    name = _readable_pattern(own, "ariaNameRegex") if isinstance(own, str) and own else None
    if name is None:
        inner = container.get("containsChild") or container.get("containsDescendants")
        inner = inner[0] if isinstance(inner, list) and inner else inner
        name = _selector_name(inner) if isinstance(inner, Mapping) else None
    if word is None and name is None:
        return None
    here = " ".join(part for part in ("the", name, word or "item") if part)
    outer = _place(container.get("childOf"))
    return f"{here} of {outer}" if outer else here


def _kind_word(fields: Mapping[str, Any]) -> str | None:
    role = fields.get("ariaRole")
    if isinstance(role, str) and role:
        return _ROLE_WORDS.get(role, role)
    test_id = fields.get("dataTestId")
    if isinstance(test_id, str) and test_id:
        return re.sub(r"[-_]+", " ", test_id).strip() or None
    for key in ("resourceIdRegex", "idRegex"):
        resource = fields.get(key)
        if isinstance(resource, str) and resource:
            return re.sub(r"[-_]+", " ", _readable_pattern(resource, key)).strip() or None
    css = fields.get("cssSelector")
    if isinstance(css, str) and re.fullmatch(r"[a-z][a-z0-9-]*", css):
        return css
    return None


def _nth(selector: Mapping[str, Any]) -> int | None:
    web = selector.get("web")
    nth = web.get("nthIndex") if isinstance(web, Mapping) else None
    if nth is None:
        nth = selector.get("index")
    try:
        return int(nth) if nth is not None and int(nth) >= 0 else None
    except (TypeError, ValueError):
        return None


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _readable_pattern(pattern: str, key: str) -> str:
    if key == "resourceIdRegex" or key == "idRegex":
        pattern = pattern.rsplit("/", 1)[-1]  # com.example:id/submit → submit
    if key == "ariaDescriptorRegex":
        quoted = re.search(r'"(.*)"', pattern)
        pattern = quoted.group(1) if quoted else pattern
    literal = javaregex.literal_text(pattern)
    return literal if literal is not None else pattern


def _css_name(css: str) -> str | None:
    """What the last step of a CSS selector names (an attribute's value, its text, its id):
    the steps before it are wrappers, which a person does not see."""
    last = _last_step(css)
    for pattern in _CSS_NAMES:
        found = pattern.search(last)
        if found:
            return re.sub(r"\\(.)", r"\1", found.group(1))
    return None


def _css_kind(selector: Mapping[str, Any]) -> str | None:
    """A CSS selector's element by its kind, when nothing names it: ``a link``."""
    web = selector.get("web")
    css = web.get("cssSelector") if isinstance(web, Mapping) else selector.get("css")
    if not isinstance(css, str) or not css:
        return None
    tag = re.match(r"[a-z][a-z0-9-]*", _last_step(css))
    if tag is None:
        return "an element"
    word = _TAG_WORDS.get(tag.group(0), tag.group(0))
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _last_step(css: str) -> str:
    """The last compound of a CSS selector: after its last combinator outside quotes and brackets."""
    depth, quote, start = 0, "", 0
    for at, char in enumerate(css):
        if quote:
            quote = "" if char == quote and css[at - 1] != "\\" else quote
        elif char in "\"'":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif depth == 0 and (char.isspace() or char in ">+~"):
            start = at + 1
    return css[start:].strip()


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
    shown = element(args)
    return f"{verb} {shown}" if shown else fallback


def _in(args: Mapping[str, Any]) -> str:
    shown = element(args, quote=False)
    return f" in {shown}" if shown else ""


def _of(args: Mapping[str, Any], fallback: str) -> str:
    return element(args) or _quoted(fallback)


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
    what = element(args, quote=False) or "the element"
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
    "web_verifyElementVisible": lambda a: f"Check that {_of(a, 'the element')} is visible",
    "web_verifyListVisible": lambda a: f"Check that the list shows {', '.join(_quoted(i) for i in a['items'])}",
    "web_verifyValue": _verify_value,
    "web_verifyTextNotVisible": lambda a: f"Check that {_quoted(a['text'])} is not visible",
    "web_verifyElementCount": lambda a: f"Check that {_of(a, 'the selector')} finds {int(a['count'])}",
    "web_verifyElementState": lambda a: f"Check that {_of(a, 'the element')} is {str(a['state']).lower()}",
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
    "assertVisibleBySelector": lambda a: f"Check that {_of(a, 'the element')} is visible",
    "assertNotVisibleWithText": lambda a: f"Check that {_quoted(a['text'])} is not visible",
    "assertNotVisibleBySelector": lambda a: f"Check that {_of(a, 'the element')} is not visible",
    "android_grantPermissions": lambda a: f"Grant {', '.join(a['permissions'])} to {a['appId']}",
    # every driver
    "wait": lambda a: f"Wait {_seconds(a.get('timeToWaitInSeconds', 5))}",
    "waitForChange": lambda a: "Wait for the screen to change",
    "takeSnapshot": lambda a: f"Take a snapshot {_quoted(a['screenName'])}",
    "assertEquals": lambda a: f"Check that {_quoted(a['actual'])} is {_quoted(a['expected'])}",
    "assertNotEquals": lambda a: f"Check that {_quoted(a['actual'])} is not {_quoted(a['expected'])}",
    "assertMath": lambda a: f"Check that {a['expression']} is {_quoted(a['expected'])}",
    "rememberText": lambda a: f"Remember {_of(a, 'the text')} as {a['variable']}",
    "runTrail": lambda a: f"Run {a['path']}",
}
