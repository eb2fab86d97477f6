"""An Appium page source as the screen model every phone driver shares.

Appium's drivers serve the hierarchies trailblaze already reads: the UiAutomator2 driver's
source is uiautomator's ``<hierarchy>`` (elements named after their class), the XCUITest
driver's is WebDriverAgent's (``XCUIElementType…`` elements, wrapped in ``<AppiumAUT>``). So the
source is read by the Android and iOS parsers, and its shape says which platform it is when the
capabilities do not. A proxy, hub or test double may wrap the document further (Appium's fake
driver puts it in ``<AppiumAUT><app>``): the ``<hierarchy>``, or the first ``XCUIElementType``
elements, are looked for at any depth. The document is parsed once.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from trailblaze.core.errors import InfrastructureError
from trailblaze.device.commands import ViewNode

_XCUI = "XCUIElementType"


def read_source(raw: str) -> tuple[str, ViewNode]:
    """The platform (``android``, ``ios``) whose shape the source has, and its tree."""
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        raise InfrastructureError(f"the Appium server returned a page source that is not XML ({exc})") from None
    if root.tag == "hierarchy":
        return "android", _android(root)
    if root.tag.startswith(_XCUI):
        return "ios", _ios(root)
    hierarchy = next(root.iter("hierarchy"), None)
    if hierarchy is not None:
        return "android", _android(hierarchy)
    for parent in root.iter():
        elements = [child for child in parent if child.tag.startswith(_XCUI)]
        if elements:
            wrapper = ET.Element("AppiumAUT")
            wrapper.extend(elements)
            return "ios", _ios(wrapper)
    raise InfrastructureError(
        f"the page source is neither a UiAutomator2 hierarchy nor an XCUITest source (its root is <{root.tag}>): "
        f"this driver reads Android and iOS apps"
    )


def source_platform(raw: str) -> str | None:
    """The platform the source's shape shows, or None for a shape neither parser reads."""
    try:
        return read_source(raw)[0]
    except InfrastructureError:
        return None


def _android(element: ET.Element) -> ViewNode:
    from trailblaze.drivers.android.hierarchy import hierarchy_from_element

    return hierarchy_from_element(element)


def _ios(element: ET.Element) -> ViewNode:
    from trailblaze.drivers.ios.source import source_from_element

    return source_from_element(element)
