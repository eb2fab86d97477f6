"""uiautomator2's window hierarchy XML (``dumpWindowHierarchy``) as a :class:`ViewNode` tree.

The dump is ``<hierarchy rotation="0">`` holding nested ``<node>`` elements with the
attributes of Android's ``AccessibilityNodeInfoDumper``: ``text``, ``resource-id``, ``class``,
``package``, ``content-desc``, the boolean states, ``visible-to-user``, ``hint`` and ``bounds``
written ``[left,top][right,bottom]``. Every node gets a ref (``n1``, ``n2``… in document order)
that is valid for this snapshot only.

Appium's UiAutomator2 driver serves the same hierarchy as its page source, with each element
named after its class (``<android.widget.Button …>``) and ``displayed`` where the dump has
``visible-to-user``: :func:`hierarchy_from_element` reads both.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from trailblaze.core.errors import InfrastructureError
from trailblaze.device.commands import Bounds, ViewNode

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_KEPT = ("package", "checkable", "focusable", "long-clickable", "drawing-order", "display-id")


def parse_hierarchy(xml: str) -> ViewNode:
    """The dump as a tree under a node for ``<hierarchy>`` (which has no bounds)."""
    try:
        element = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise InfrastructureError(f"uiautomator2 returned a hierarchy that is not XML ({exc})") from None
    return hierarchy_from_element(element)


def hierarchy_from_element(element: ET.Element) -> ViewNode:
    """The tree under a parsed ``<hierarchy>`` element: its ``<node>`` children (uiautomator2's
    dump), or its children named after their class (Appium's page source, where an element has
    bounds)."""
    root = ViewNode(class_name="hierarchy", ref="n0", attributes=dict(element.attrib))
    count = 0

    def build(xml_parent: ET.Element, parent: ViewNode) -> None:
        nonlocal count
        for child in xml_parent:
            if child.tag != "node" and "bounds" not in child.attrib:
                continue
            count += 1
            node = _node(child.attrib, f"n{count}", None if child.tag == "node" else child.tag)
            node.parent = parent
            parent.children.append(node)
            build(child, node)

    build(element, root)
    return root


def _node(attrs: dict[str, str], ref: str, tag: str | None = None) -> ViewNode:
    def flag(name: str, default: bool = False) -> bool:
        value = attrs.get(name)
        return default if value is None else value == "true"

    checkable = flag("checkable")
    extra: dict[str, object] = {key: attrs[key] for key in _KEPT if key in attrs}
    extra["checkable"] = checkable
    extra["focusable"] = flag("focusable")
    extra["long-clickable"] = flag("long-clickable")
    return ViewNode(
        text=attrs.get("text") or None,
        id=attrs.get("resource-id") or None,
        class_name=attrs.get("class") or tag,
        description=attrs.get("content-desc") or None,
        hint=attrs.get("hint") or None,
        bounds=parse_bounds(attrs.get("bounds")),
        enabled=flag("enabled", True),
        checked=flag("checked") if checkable else None,
        selected=flag("selected"),
        focused=flag("focused"),
        clickable=flag("clickable") or flag("long-clickable"),
        scrollable=flag("scrollable"),
        password=flag("password"),
        visible=flag("visible-to-user", True) if "visible-to-user" in attrs else flag("displayed", True),
        ref=ref,
        attributes=extra,
    )


def parse_bounds(text: str | None) -> Bounds | None:
    if not text:
        return None
    m = _BOUNDS.fullmatch(text.strip())
    if m is None:
        return None
    left, top, right, bottom = (int(g) for g in m.groups())
    return Bounds(left, top, right, bottom)
