"""uiautomator2's hierarchy XML → ViewNode (trailblaze/drivers/android/hierarchy.py), on dumps in the
server's exact format (from the stand-in phone)."""

from __future__ import annotations

import pytest

from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from trailblaze.core.errors import InfrastructureError
from trailblaze.drivers.android.hierarchy import parse_bounds, parse_hierarchy


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
