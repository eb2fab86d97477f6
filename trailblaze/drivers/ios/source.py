"""WebDriverAgent's page source (``GET /source?format=xml``) as a :class:`ViewNode` tree.

Each element is named after its XCUI type (``XCUIElementTypeButton``) and carries ``type``,
``name`` (the accessibility identifier, or the label when there is none), ``label``, ``value``,
``placeholderValue``, ``enabled``, ``visible``, ``selected``/``focused`` where WebDriverAgent
reports them, and the frame in points (``x``, ``y``, ``width``, ``height``).

The mapping to the shared model, chosen so Maestro-style selectors mean on iOS what they mean on
Android: ``id`` is ``name``; ``description`` is the accessibility label; ``text`` is what the
element shows — the typed value of a text input, the label of anything else; ``hint`` is the
placeholder. A switch's ``value`` ("1"/"0") becomes ``checked``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from trailblaze.core.errors import InfrastructureError
from trailblaze.device.commands import Bounds, ViewNode

_INPUTS = frozenset(
    {
        "XCUIElementTypeTextField",
        "XCUIElementTypeSecureTextField",
        "XCUIElementTypeTextView",
        "XCUIElementTypeSearchField",
    }
)
_TAPPABLE = frozenset(
    {
        "XCUIElementTypeButton",
        "XCUIElementTypeCell",
        "XCUIElementTypeLink",
        "XCUIElementTypeSwitch",
        "XCUIElementTypeTab",
        "XCUIElementTypeMenuItem",
        "XCUIElementTypeSegmentedControl",
        "XCUIElementTypeKey",
        *_INPUTS,
    }
)
_TOGGLES = frozenset({"XCUIElementTypeSwitch", "XCUIElementTypeCheckBox", "XCUIElementTypeToggle"})
_SCROLLING = frozenset(
    {"XCUIElementTypeTable", "XCUIElementTypeCollectionView", "XCUIElementTypeScrollView", "XCUIElementTypeWebView"}
)


def parse_source(xml: str) -> ViewNode:
    """The source as a tree under a node for the document (which has no bounds)."""
    try:
        element = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise InfrastructureError(f"WebDriverAgent returned a page source that is not XML ({exc})") from None
    return source_from_element(element)


def source_from_element(element: ET.Element) -> ViewNode:
    """The tree of a parsed page source: ``element`` itself, or the elements of Appium's
    ``<AppiumAUT>`` wrapper."""
    root = ViewNode(class_name="source", ref="n0")
    count = 0

    def build(xml_node: ET.Element, parent: ViewNode) -> None:
        nonlocal count
        count += 1
        node = _node(xml_node, f"n{count}")
        node.parent = parent
        parent.children.append(node)
        for child in xml_node:
            build(child, node)

    if element.tag == "AppiumAUT":  # Appium's WebDriverAgent wraps the application element
        for child in element:
            build(child, root)
    else:
        build(element, root)
    return root


def _node(element: ET.Element, ref: str) -> ViewNode:
    attrs = element.attrib
    kind = attrs.get("type") or element.tag

    def flag(name: str, default: bool = False) -> bool:
        value = attrs.get(name)
        return default if value is None else value.lower() in ("true", "1", "yes")

    label = attrs.get("label") or None
    value = attrs.get("value") or None
    placeholder = attrs.get("placeholderValue") or None
    # a text input shows its value (not its placeholder); anything else shows its label
    shows = value if value != placeholder else None
    text = shows if kind in _INPUTS else label or value
    hittable = attrs.get("hittable")
    return ViewNode(
        text=text,
        id=attrs.get("name") or None,
        class_name=kind,
        description=label,
        hint=placeholder,
        bounds=_frame(attrs),
        enabled=flag("enabled", True),
        checked=(value == "1") if kind in _TOGGLES else None,
        selected=flag("selected"),
        focused=flag("focused") or flag("hasFocus"),
        clickable=flag("hittable") if hittable is not None else kind in _TAPPABLE,
        scrollable=kind in _SCROLLING,
        password=kind == "XCUIElementTypeSecureTextField",
        visible=flag("visible", True),
        ref=ref,
        attributes={key: attrs[key] for key in ("value", "label", "name", "index", "accessible") if key in attrs},
    )


def _frame(attrs: dict[str, str]) -> Bounds | None:
    try:
        x, y, w, h = (round(float(attrs[key])) for key in ("x", "y", "width", "height"))
    except (KeyError, ValueError):
        return None
    return Bounds(x, y, x + w, y + h)
