"""WebDriverAgent's page source → ViewNode (trailblaze/drivers/ios/source.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import FakeIphone
from trailblaze.core.errors import InfrastructureError
from trailblaze.drivers.ios.source import parse_source, source_from_element


def forms_source(name: str = "", focused: bool = True) -> str:
    phone = FakeIphone()
    app = phone.app
    app.clock = lambda: 100.0
    app.launch(SAMPLE_APP, "Forms")
    app.clock = lambda: 1000.0  # long after the start: no splash, no slide
    app.ui.name = name
    app.ui.focused = "name" if focused else None
    app.ui.keyboard = focused
    app.ui.subscribe = True
    return phone.source()


def test_elements_map_to_the_shared_model() -> None:
    root = parse_source(forms_source("Jane"))
    application = root.children[0]
    assert (application.class_name, application.id) == ("XCUIElementTypeApplication", "Sample")
    field = next(n for n in root.walk() if n.id == "name_input")
    assert field.class_name == "XCUIElementTypeTextField"
    assert (field.text, field.description, field.hint, field.focused) == ("Jane", "Name", "Name", True)
    assert field.bounds is not None
    assert (field.bounds.left, field.bounds.top, field.bounds.right, field.bounds.bottom) == (16, 100, 344, 160)
    button = next(n for n in root.walk() if n.id == "submit_button")
    assert (button.text, button.clickable) == ("Submit", True)
    assert next(n for n in root.walk() if n.class_name == "XCUIElementTypeKeyboard")


def test_an_empty_text_field_shows_no_text_only_its_placeholder() -> None:
    field = next(n for n in parse_source(forms_source("")).walk() if n.id == "name_input")
    assert field.text is None
    assert field.hint == "Name"


def test_a_switch_value_is_its_checked_state() -> None:
    switch = next(n for n in parse_source(forms_source()).walk() if n.class_name == "XCUIElementTypeSwitch")
    assert switch.checked is True


def test_appium_wrapper_and_fractional_frames() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?><AppiumAUT>'
        '<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Contacts" label="Contacts" '
        'enabled="true" visible="true" x="0" y="0" width="390" height="844">'
        '<XCUIElementTypeButton type="XCUIElementTypeButton" name="Add" label="Add" enabled="false" visible="true" '
        'x="339.5" y="47.33" width="44" height="44" hittable="false"/>'
        "</XCUIElementTypeApplication></AppiumAUT>"
    )
    root = parse_source(xml)
    add = root.children[0].children[0]
    assert add.bounds is not None
    assert (add.bounds.left, add.bounds.top, add.bounds.right) == (340, 47, 384)
    assert (add.enabled, add.clickable) == (False, False)
    assert [n.ref for n in root.walk()] == ["n0", "n1", "n2"]


def test_a_source_that_is_not_xml_is_an_infrastructure_error() -> None:
    with pytest.raises(InfrastructureError, match="not XML"):
        parse_source("{}")


def test_a_parsed_source_reads_the_same() -> None:
    source = forms_source("Jane")
    parsed = source_from_element(ET.fromstring(source))
    assert [(n.id, n.text) for n in parsed.walk()] == [(n.id, n.text) for n in parse_source(source).walk()]
