"""The trailblaze/* metadata: every key, the precedence of its four layers, overlays checked."""

from __future__ import annotations

from typing import Any

import pytest

from trailblaze.core.errors import InfrastructureError
from trailblaze.tools import metadata
from trailblaze.tools.model import ToolMetadata


def test_merge_takes_each_key_from_the_highest_layer_that_has_it() -> None:
    server = metadata.tool_meta_layer({"trailblaze/isDelegating": True, "other.vendor/x": 1}, "s")
    registry = metadata.registry_layer({"groups": ["reg"], "isDelegating": False, "exposedToLlm": False}, "s")
    tool_meta = metadata.overlay_layer({"trailblaze/groups": ["tool"], "trailblaze/requiresHost": True})
    default = metadata.overlay_layer({"trailblaze/requiresHost": False, "trailblaze/toolset": "d"})
    merged = metadata.merge([server, registry, tool_meta, default], toolset="fallback")
    assert merged == ToolMetadata(
        delegating=True,
        recordable=False,  # delegating tools record what they delegate to
        groups=("reg",),
        exposed_to_llm=False,
        requires_host=True,
        toolset="d",
    )
    assert metadata.merge([], toolset="fallback") == ToolMetadata(toolset="fallback")


def test_platforms_are_case_insensitive_and_drivers_match_keys_and_aliases() -> None:
    meta = metadata.merge([metadata.tool_meta_layer({"trailblaze/supportedPlatforms": ["WEB", "Android"]}, "s")])
    assert meta.platforms == frozenset({"web", "android"})
    assert metadata.applies(meta, ["playwright-native", "web"], "web")
    assert not metadata.applies(meta, ["ios-wda"], "ios")
    by_alias = metadata.merge([metadata.tool_meta_layer({"trailblaze/supportedDrivers": ["WEB"]}, "s")])
    assert metadata.applies(by_alias, ["playwright-native", "web"], "web")
    assert not metadata.applies(by_alias, ["android-uiautomator2"], "android")


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"isRecordable": False}, "unknown key 'isRecordable'"),
        ({"trailblaze/isRecorded": False}, "unknown key 'trailblaze/isRecorded'"),
        ({"trailblaze/isRecordable": "no"}, "trailblaze/isRecordable must be true or false, got 'no'"),
        ({"trailblaze/groups": "auth"}, "trailblaze/groups must be a list of names, got 'auth'"),
        ({"trailblaze/toolset": ""}, "trailblaze/toolset must be a name"),
    ],
)
def test_overlays_are_validated(meta: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        metadata.check_overlay(meta, "default_meta")


def test_a_server_shipping_a_wrong_type_is_named() -> None:
    with pytest.raises(
        InfrastructureError, match=r"server x, tool y: _meta trailblaze/isDelegating must be true or false"
    ):
        metadata.tool_meta_layer({"trailblaze/isDelegating": "yes"}, "server x, tool y")
    assert metadata.tool_meta_layer({"trailblaze/fromTheFuture": 1}, "s") == {}  # unknown keys: ignored


def test_a_query_is_never_recorded() -> None:
    """A server marks a read-only query with trailblaze/isQuery: recording it would replay a
    question nobody asks."""
    meta = metadata.merge([metadata.tool_meta_layer({"trailblaze/isQuery": True}, "mcp:test")])
    assert meta.query is True and meta.recordable is False
    assert meta.to_registry()["isQuery"] is True
    assert metadata.merge([]).to_registry()["isQuery"] is False
