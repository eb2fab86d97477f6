"""uiautomator2's hierarchy XML → ViewNode (trailblaze/drivers/android/hierarchy.py), on dumps in the
server's exact format (from the stand-in phone)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from trailblaze.core.errors import InfrastructureError
from trailblaze.drivers.android.hierarchy import hierarchy_from_element, parse_bounds, parse_hierarchy


@pytest.fixture
def forms() -> str:
    phone = FakeAndroid(app=None)
    app = phone.app
    app.clock = lambda: 100.0
    app.launch(SAMPLE_APP, "Forms")
    app.clock = lambda: 1000.0  # long after the start: no splash, no slide
    app.ui.name = "Jane"
    app.ui.focused = "name"
    app.ui.subscribe = True
    app.ui.submitted, app.ui.submitted_at = ("Jane", "j@x.io"), 0.0
    return phone.dump()


def test_nodes_carry_uiautomator_attributes(forms: str) -> None:
    root = parse_hierarchy(forms)
    assert root.class_name == "hierarchy"
    assert root.attributes["rotation"] == "0"
    field = next(n for n in root.walk() if n.id == f"{SAMPLE_APP}:id/name_input")
    assert (field.class_name, field.text, field.focused, field.clickable) == (
        "android.widget.EditText",
        "Jane",
        True,
        True,
    )
    assert field.bounds is not None
    assert (field.bounds.left, field.bounds.top, field.bounds.right, field.bounds.bottom) == (48, 300, 1032, 480)
    assert field.attributes["package"] == SAMPLE_APP
    assert [c.text for c in field.children] == ["Name"]
    assert field.children[0].parent is field


def test_checked_is_only_known_for_checkable_nodes(forms: str) -> None:
    root = parse_hierarchy(forms)
    switch = next(n for n in root.walk() if n.class_name == "android.widget.Switch")
    assert switch.checked is True
    assert switch.attributes["checkable"] is True
    assert next(n for n in root.walk() if n.text == "Submit").checked is None


def test_text_keeps_line_breaks(forms: str) -> None:
    root = parse_hierarchy(forms)
    assert any(n.text == "Name: Jane\nEmail: j@x.io" for n in root.walk())


def test_refs_follow_document_order_and_are_unique(forms: str) -> None:
    nodes = list(parse_hierarchy(forms).walk())
    assert [n.ref for n in nodes] == [f"n{i}" for i in range(len(nodes))]


def test_status_bar_and_empty_attributes() -> None:
    root = parse_hierarchy(FakeAndroid().dump())
    clock = next(n for n in root.walk() if n.text == "12:00")
    assert clock.attributes["package"] == "com.android.systemui"
    assert clock.id is None
    assert clock.description is None
    assert clock.visible is True


def test_bounds() -> None:
    box = parse_bounds("[0,-10][1080,2400]")
    assert box is not None
    assert (box.left, box.top, box.width, box.height, box.center) == (0, -10, 1080, 2410, (540, 1195))
    assert parse_bounds("") is None
    assert parse_bounds("0,0,1,1") is None


def test_a_dump_that_is_not_xml_is_an_infrastructure_error() -> None:
    with pytest.raises(InfrastructureError, match="not XML"):
        parse_hierarchy("<hierarchy><node")


def test_appiums_source_names_elements_after_their_class() -> None:
    """Appium's UiAutomator2 driver serves the hierarchy with each element named after its class
    and ``displayed`` for ``visible-to-user``; an element without bounds is not a node."""
    xml = (
        '<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">'
        '<android.widget.FrameLayout index="0" class="android.widget.FrameLayout" text="" bounds="[0,0][1080,2400]" '
        'displayed="true"><android.widget.Button index="0" text="Sign in" resource-id="shop:id/go" clickable="true" '
        'bounds="[0,10][100,60]" displayed="false"/><extras note="not a view"/></android.widget.FrameLayout>'
        "</hierarchy>"
    )
    root = parse_hierarchy(xml)
    frame, button = root.children[0], root.children[0].children[0]
    assert (frame.class_name, frame.visible) == ("android.widget.FrameLayout", True)
    assert (button.class_name, button.text, button.id, button.visible) == (
        "android.widget.Button",
        "Sign in",
        "shop:id/go",
        False,
    )
    assert [n.ref for n in root.walk()] == ["n0", "n1", "n2"]
    assert [n.text for n in hierarchy_from_element(ET.fromstring(xml)).walk()] == [n.text for n in root.walk()]
