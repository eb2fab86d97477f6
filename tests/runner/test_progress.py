"""Finished steps kept in .trailblaze/record/ until the trail file is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trailblaze.core.errors import UsageError
from trailblaze.runner.progress import RecordingProgress
from trailblaze.tools.model import ToolCall
from trailblaze.trail.loader import load_trail
from trailblaze.trail.writer import RecordingEdit


def test_saved_steps_come_back_for_the_same_trail_and_driver(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("trail:\n  - step: Go\n  - step: Stay\n")
    trail = load_trail(path)
    progress = RecordingProgress.fresh(tmp_path, trail, "playwright-native")
    calls = [ToolCall("web_navigate", {"url": "/"})]
    progress.add(RecordingEdit.for_step(trail, trail.steps[0], "web", calls))
    assert json.loads(progress.path.read_text())["steps"][0]["calls"] == [{"web_navigate": {"url": "/"}}]
    assert progress.path.parent == tmp_path / ".trailblaze" / "record"

    again = RecordingProgress.load(tmp_path, trail, "playwright-native")
    assert again is not None
    assert again.calls_for(trail.steps[0]) == calls
    assert again.calls_for(trail.steps[1]) is None
    assert RecordingProgress.load(tmp_path, trail, "android-uiautomator2") is None  # another driver's is separate
    again.clear()
    assert not progress.path.exists()


def test_saved_steps_that_no_longer_fit_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("trail:\n  - step: Go\n")
    trail = load_trail(path)
    progress = RecordingProgress.fresh(tmp_path, trail, "web")
    progress.add(RecordingEdit.for_step(trail, trail.steps[0], "web", []))
    path.write_text("trail:\n  - step: Went\n")
    with pytest.raises(UsageError, match="the trail changed since the interrupted recording"):
        RecordingProgress.load(tmp_path, load_trail(path), "web")
    progress.path.write_text("{not json")
    with pytest.raises(UsageError, match="cannot read the saved recording"):
        RecordingProgress.load(tmp_path, trail, "web")


@given(
    st.sampled_from(["dev-zero", "fifo", "deep", "other"]),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=12,
    ),
)
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_damaged_saved_recording_is_refused_by_name(tmp_path: Path, damage: str, saved: object) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("trail:\n  - step: Go\n")
    trail = load_trail(path)
    cache = RecordingProgress.location(tmp_path, trail, "web")
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.unlink(missing_ok=True)
    if damage == "dev-zero":
        cache.symlink_to("/dev/zero")
    elif damage == "fifo":
        os.mkfifo(cache)
    elif damage == "deep":
        cache.write_text("[" * 100_000)
    else:  # any JSON at all that is not what trailblaze writes
        cache.write_text(json.dumps({"steps": [saved]} if isinstance(saved, dict) else saved))
    with pytest.raises(UsageError, match=f"cannot read the saved recording.*{cache.name}.*delete it to start over"):
        RecordingProgress.load(tmp_path, trail, "web")
