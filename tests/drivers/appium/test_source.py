"""Appium page sources → the shared screen model (trailblaze/drivers/appium/source.py): the
UiAutomator2 driver's hierarchy (also wrapped by a proxy), the XCUITest driver's source, and a
shape neither parser reads."""

from __future__ import annotations

import pytest

from tests.drivers.ios.test_source import forms_source
from tests.standins.android_phone import FakeAndroid
from tests.standins.appium_server import appium_source
from tests.standins.sample_app import SAMPLE_APP
from trailblaze.core.errors import InfrastructureError
from trailblaze.drivers.android.hierarchy import parse_hierarchy
from trailblaze.drivers.appium.source import read_source, source_platform


@pytest.fixture
def forms() -> FakeAndroid:
    phone = FakeAndroid()
    app = phone.app
    app.clock = lambda: 100.0
    app.launch(SAMPLE_APP, "Forms")
    app.clock = lambda: 1000.0
    app.ui.name, app.ui.focused = "Jane", "name"
    return phone


def test_the_uiautomator2_drivers_source_reads_as_the_dump_does(forms: FakeAndroid) -> None:
    platform, root = read_source(appium_source(forms))
    assert platform == "android"
    dumped = parse_hierarchy(forms.dump())
    shown = [(n.class_name, n.text, n.id, n.focused, n.visible, n.bounds and n.bounds.center) for n in root.walk()]
    assert shown == [
        (n.class_name, n.text, n.id, n.focused, n.visible, n.bounds and n.bounds.center) for n in dumped.walk()
    ]
    field = next(n for n in root.walk() if n.id == f"{SAMPLE_APP}:id/name_input")
    assert (field.class_name, field.text, field.focused) == ("android.widget.EditText", "Jane", True)
    assert root.attributes["width"] == "1080"


def test_a_hidden_element_is_not_displayed(forms: FakeAndroid) -> None:
    source = appium_source(forms).replace('displayed="true"', 'displayed="false"', 1)
    _, root = read_source(source)
    assert [n.visible for n in root.walk()][1] is False


def test_a_wrapped_hierarchy_is_found(forms: FakeAndroid) -> None:
    inner = appium_source(forms).split("?>", 1)[1]
    platform, root = read_source(f'<AppiumAUT><app width="1080" height="2400">{inner}</app></AppiumAUT>')
    assert platform == "android"
    assert root.class_name == "hierarchy"
    assert any(n.text == "Submit" for n in root.walk())


def test_the_xcuitest_drivers_source_is_ios() -> None:
    source = forms_source("Jane")
    platform, root = read_source(source)
    assert platform == "ios"
    field = next(n for n in root.walk() if n.id == "name_input")
    assert (field.text, field.focused) == ("Jane", True)
    body = source.split("?>", 1)[1]
    wrapped = f'<AppiumAUT><app width="360" height="800">{body}</app></AppiumAUT>'
    assert source_platform(wrapped) == "ios"
    assert [n.id for n in read_source(wrapped)[1].walk()] == [n.id for n in root.walk()]


def test_a_source_of_another_shape_says_so() -> None:
    with pytest.raises(
        InfrastructureError, match=r"neither a UiAutomator2 hierarchy nor an XCUITest source \(its root is <html>\)"
    ):
        read_source("<html><body/></html>")
    assert source_platform("<html/>") is None
    with pytest.raises(InfrastructureError, match="not XML"):
        read_source("{}")
