from __future__ import annotations

from dataclasses import replace

import pytest

import trailblaze
from trailblaze.core.errors import UsageError
from trailblaze.tools.authoring import spec_of
from trailblaze.tools.registry import ToolRegistry


@trailblaze.tool(name="shared_tap", platforms=["web"])
def web_only() -> None:
    """Web."""


@trailblaze.tool(name="android_thing", drivers=["android-uiautomator2"])
def android_only() -> None:
    """Android."""


@trailblaze.tool(name="everywhere")
def everywhere() -> None:
    """All."""


def test_two_sources_registering_one_name_is_an_error_naming_both() -> None:
    registry = ToolRegistry()
    registry.add(web_only, source="plugin-a")
    with pytest.raises(UsageError, match="'shared_tap' is registered twice: by plugin-a and by plugin-b"):
        registry.add(web_only, source="plugin-b")


def test_filtering_by_driver_and_platform() -> None:
    registry = ToolRegistry()
    for fn in (web_only, android_only, everywhere):
        registry.add(fn, source="test")
    assert registry.for_device("playwright-native", "web").names() == ["everywhere", "shared_tap"]
    assert registry.for_device("android-uiautomator2", "android").names() == ["android_thing", "everywhere"]
    assert registry.for_device("ios-wda", "ios").names() == ["everywhere"]


def test_unknown_names_suggest_close_ones() -> None:
    registry = ToolRegistry()
    registry.add(web_only, source="test")
    with pytest.raises(UsageError, match=r"unknown tool 'shared_tab' for driver web; did you mean 'shared_tap'\?"):
        registry.require("shared_tab", driver="web")


def test_only_tools_can_be_registered() -> None:
    with pytest.raises(TypeError, match=r"decorate the function with @trailblaze\.tool"):
        ToolRegistry().add(lambda: None, source="x")


def test_the_registry_entry_uses_the_seed_keys() -> None:
    spec = spec_of(web_only)
    assert spec is not None
    entry = replace(spec, source="plugin-a").to_registry()
    assert {k: entry[k] for k in ("name", "source", "platforms", "drivers", "isRecordable", "isDelegating")} == {
        "name": "shared_tap",
        "source": "plugin-a",
        "platforms": ["web"],
        "drivers": None,
        "isRecordable": True,
        "isDelegating": False,
    }
    assert set(entry) >= {"description", "inputSchema", "groups", "exposedToLlm", "requiresHost"}
