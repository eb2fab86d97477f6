from __future__ import annotations

from trailblaze.core.errors import Location
from trailblaze.tools.model import ToolCall
from trailblaze.trail.model import ANY_CLASSIFIER, Step


def step(recordings: dict[str, list[ToolCall]] | None) -> Step:
    return Step(0, "step", "x", recordings, Location("t.yaml"))


def test_exact_classifier_wins_then_prefix_fallback_then_any() -> None:
    phone, generic, anywhere = [ToolCall("a")], [ToolCall("b")], [ToolCall("c")]
    s = step({"android-phone": phone, "android": generic, ANY_CLASSIFIER: anywhere})
    assert s.recording_for(["android-phone", "android"]) is phone
    assert s.recording_for(["android-tablet", "android"]) is generic
    assert s.recording_for(["android-phone-large"]) is phone
    assert s.recording_for(["ios"]) is anywhere
    assert step({"android": generic}).recording_for(["android-phone"]) is generic


def test_no_recording_and_deliberately_empty_recording_differ() -> None:
    assert step(None).recording_for(["web"]) is None
    assert step({"web": []}).recording_for(["web"]) == []
    assert step({"android": []}).recording_for(["web"]) is None


def test_label_names_the_tools_of_a_text_less_step() -> None:
    assert Step(0, "step", None, {"web": [ToolCall("web_navigate")]}, Location(None)).label == "tools: web_navigate"
