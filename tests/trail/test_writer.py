"""The round-trip writer: only the recordings written change, byte for byte."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from trailblaze.core.errors import UsageError
from trailblaze.tools.model import ToolCall
from trailblaze.trail.loader import load_trail
from trailblaze.trail.writer import RecordingEdit, TrailChangedError, TrailFile, call_text

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parents[2]


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copyfile(GOLDEN / name, target)
    return target


def _round_trip_edits(path: Path) -> list[RecordingEdit]:
    trail = load_trail(path)
    head, first, second, third, flow, null = [trail.trailhead, *trail.steps[:5]]
    assert head is not None
    calls = [
        (head, [ToolCall("web_navigate", {"url": "/index.html"})]),
        (
            first,
            [
                ToolCall(
                    "web_click",
                    {"nodeSelector": {"web": {"dataTestId": "sign-in"}}, "reason": "The sign-in button has a test id"},
                ),
                ToolCall(
                    "web_type",
                    {
                        "text": "{{args.user}}",
                        "nodeSelector": {"web": {"ariaRole": "textbox", "ariaNameRegex": "User name"}},
                    },
                ),
            ],
        ),
        (
            second,
            [
                ToolCall("web_pressKey", {"key": "Enter"}),
                ToolCall(
                    "web_selectOption", {"values": ["yes", "Pro"], "nodeSelector": {"web": {"cssSelector": "#plan"}}}
                ),
            ],
        ),
        (third, [ToolCall("web_verifyTextVisible", {"text": "Settings: on"})]),
        (flow, [ToolCall("dumpMemory", {})]),
        (null, []),
    ]
    return [RecordingEdit.for_step(trail, step, "web", recorded) for step, recorded in calls]


def test_a_record_changes_only_the_recordings_it_writes(tmp_path: Path) -> None:
    path = _copy(tmp_path, "round_trip.trail.yaml")
    outcome = TrailFile(path).save(_round_trip_edits(path))
    assert outcome.changed
    assert not outcome.merged
    assert path.read_text(encoding="utf-8") == (GOLDEN / "round_trip.expected.trail.yaml").read_text(encoding="utf-8")


def test_legacy_files_get_their_one_recording_per_step(tmp_path: Path) -> None:
    path = _copy(tmp_path, "legacy.trail.yaml")
    trail = load_trail(path)
    edits = [
        RecordingEdit.for_step(
            trail,
            trail.steps[1],
            "web",
            [ToolCall("web_type", {"text": "Ada", "nodeSelector": {"web": {"dataTestId": "name-input"}}})],
        ),
        RecordingEdit.for_step(
            trail,
            trail.steps[2],
            "web",
            [ToolCall("web_click", {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Submit"}}})],
        ),
    ]
    TrailFile(path).save(edits)
    assert path.read_text(encoding="utf-8") == (GOLDEN / "legacy.expected.trail.yaml").read_text(encoding="utf-8")


def test_windows_line_endings_and_double_quotes_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "crlf.trail.yaml"
    path.write_bytes(b'trail:\r\n  - step: "Go"\r\n  - step: "Stay"\r\n')
    trail = load_trail(path)
    TrailFile(path).save(
        [RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("web_type", {"text": "yes"})])]
    )
    assert path.read_bytes() == (
        b'trail:\r\n  - step: "Go"\r\n    recording:\r\n      web:\r\n        - web_type: {text: "yes"}\r\n'
        b'  - step: "Stay"\r\n'
    )


def test_a_file_edited_while_recording_gets_the_recording_merged_in(tmp_path: Path) -> None:
    path = _copy(tmp_path, "round_trip.trail.yaml")
    file = TrailFile(path)
    edits = _round_trip_edits(path)
    edited = path.read_text(encoding="utf-8").replace(
        "# A hand-written trail", "# Edited meanwhile. A hand-written trail"
    )
    path.write_text(edited, encoding="utf-8")
    outcome = file.save(edits)
    assert outcome.merged
    expected = (GOLDEN / "round_trip.expected.trail.yaml").read_text(encoding="utf-8")
    assert path.read_text(encoding="utf-8") == expected.replace(
        "# A hand-written trail", "# Edited meanwhile. A hand-written trail"
    )


def test_a_file_whose_steps_moved_while_recording_is_not_overwritten(tmp_path: Path) -> None:
    path = _copy(tmp_path, "round_trip.trail.yaml")
    file = TrailFile(path)
    edits = _round_trip_edits(path)
    moved = path.read_text(encoding="utf-8").replace("Sign in as 'ada'", "Log in as 'ada'")
    path.write_text(moved, encoding="utf-8")
    with pytest.raises(TrailChangedError, match="changed on disk while recording"):
        file.save(edits)
    assert path.read_text(encoding="utf-8") == moved


def test_writes_are_atomic_and_keep_the_file_mode(tmp_path: Path) -> None:
    path = _copy(tmp_path, "round_trip.trail.yaml")
    os.chmod(path, 0o640)
    TrailFile(path).save(_round_trip_edits(path))
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["round_trip.trail.yaml"]  # no temporary file left


def test_a_save_that_changes_nothing_does_not_touch_the_file(tmp_path: Path) -> None:
    path = tmp_path / "same.trail.yaml"
    path.write_text("trail:\n  - step: Go\n    recording:\n      web:\n        - web_pressKey: {key: Enter}\n")
    trail = load_trail(path)
    before = path.stat().st_mtime_ns
    outcome = TrailFile(path).save(
        [RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("web_pressKey", {"key": "Enter"})])]
    )
    assert not outcome.changed
    assert path.stat().st_mtime_ns == before


def test_the_diff_shows_only_the_new_recording(tmp_path: Path) -> None:
    path = tmp_path / "d.trail.yaml"
    path.write_text("trail:\n  - step: Go   # go\n")
    trail = load_trail(path)
    diff = TrailFile(path).diff(
        [RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("web_wait", {"seconds": 1})])], "d.trail.yaml"
    )
    assert diff.splitlines() == [
        "--- a/d.trail.yaml",
        "+++ b/d.trail.yaml",
        "@@ -1,2 +1,5 @@",
        " trail:",
        "   - step: Go   # go",
        "+    recording:",
        "+      web:",
        "+        - web_wait: {seconds: 1}",
    ]
    assert path.read_text() == "trail:\n  - step: Go   # go\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("trail:\n  - {step: Go}\n", "flow style"),
        (
            "config:\n  metadata:\n    calls: &calls [web_wait: {seconds: 1}]\n"
            "trail:\n  - step: Go\n    recording:\n      web: *calls\n",
            "alias",
        ),
    ],
)
def test_steps_it_cannot_edit_in_place_are_refused_with_a_reason(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "odd.trail.yaml"
    path.write_text(text)
    trail = load_trail(path)
    edit = RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("web_wait", {"seconds": 2})])
    with pytest.raises(UsageError, match=message):
        TrailFile(path).save([edit])
    assert path.read_text() == text


def test_call_text_is_one_yaml_line() -> None:
    assert (
        call_text(ToolCall("web_type", {"text": "{{args.x}}", "values": ["on"]}))
        == "web_type: {text: '{{args.x}}', values: ['on']}"
    )


@pytest.mark.parametrize("folder", ["trails", "upstream"])
def test_adding_a_recording_to_real_trail_files_only_adds_lines(
    tmp_path: Path, folder: str, request: pytest.FixtureRequest
) -> None:
    """Every step of every example and upstream trail gets one more recording: the diff must
    consist of added lines only, and the file must read back with it."""
    if folder == "upstream":
        source: Path = request.getfixturevalue("upstream_format")
    else:
        source = ROOT / "trails"
    checked = 0
    for original in sorted(source.rglob("*.yaml")):
        try:
            trail = load_trail(original, require_args=False)
        except UsageError:
            continue  # not a trail (a config file, a shared fragment with its own rules)
        path = tmp_path / f"{checked}-{original.name}"
        shutil.copyfile(original, path)
        extra = "recorder-test" if trail.format == "current" else "web"
        edits = [
            RecordingEdit.for_step(trail, step, extra, [ToolCall("wait", {"timeToWaitInSeconds": 1})])
            for step in trail.all_steps
            if trail.format == "current" or step.recordings is None
        ]
        if not edits:
            continue
        file = TrailFile(path)
        diff = file.diff(edits)
        changed = [line for line in diff.splitlines()[2:] if line[:1] in "+-"]
        assert changed
        assert all(line.startswith("+") for line in changed), f"{original}:\n{diff}"
        file.save(edits)
        reread = load_trail(path, require_args=False)
        for step in reread.all_steps:
            if trail.format == "current":
                assert step.recordings is not None
                assert [c.name for c in step.recordings[extra]] == ["wait"]
        checked += 1
    assert checked


def test_a_flow_recording_keeps_the_other_devices_text_and_its_comment(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n"
        "  - step: Type\n"
        '    recording: {android: [{inputText: {text: "keep me"}}], web: [{web_wait: {}}]}   # c5\n'
        "  - step: Next\n",
        encoding="utf-8",
    )
    trail = load_trail(path)
    edit = RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("web_type", {"text": "a, b"})])
    TrailFile(path).save([edit])
    assert path.read_text(encoding="utf-8") == (
        "trail:\n"
        "  - step: Type\n"
        "    recording: # c5\n"
        '      android: [{inputText: {text: "keep me"}}]\n'  # byte for byte
        "      web:\n"
        '        - web_type: {text: "a, b"}\n'
        "  - step: Next\n"
    )


def test_steps_no_recording_can_go_into_are_found_before_recording(tmp_path: Path) -> None:
    from trailblaze.trail.writer import unwritable_steps

    path = tmp_path / "t.trail.yaml"
    path.write_text("trail:\n  - step: Block\n  - {step: Flow}\n", encoding="utf-8")
    trail = load_trail(path)
    problems = unwritable_steps(path, trail.steps)
    assert [str(p) for p in problems] == [
        f"{path}:3:5: cannot write a recording into a step written in flow style ({{...}}); write the step as a "
        "block mapping"
    ]
    assert unwritable_steps(path, trail.steps[:1]) == []


def _one_step(path: Path, recording: str = "") -> None:
    path.write_text(f"trail:\n  - step: Go\n{recording}  - step: Stay\n", encoding="utf-8")


def test_a_recording_that_appeared_on_disk_while_recording_is_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    _one_step(path)
    trail = load_trail(path)
    file = TrailFile(path)
    mine = RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("web_pressKey", {"key": "Enter"})])
    _one_step(path, "    recording:\n      web:\n        - web_navigate: {url: /theirs}\n")  # another record's
    theirs = path.read_text(encoding="utf-8")
    with pytest.raises(TrailChangedError, match="step 1 got another recording for web meanwhile"):
        file.save([mine])
    assert path.read_text(encoding="utf-8") == theirs


def test_a_recording_for_another_device_that_appeared_meanwhile_is_merged_with(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    _one_step(path)
    trail = load_trail(path)
    file = TrailFile(path)
    mine = RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("web_pressKey", {"key": "Enter"})])
    _one_step(path, "    recording:\n      android:\n        - pressBack: {}\n")
    assert file.save([mine]).merged
    recordings = load_trail(path).steps[0].recordings or {}
    assert sorted(recordings) == ["android", "web"]


def test_a_trail_that_is_a_link_is_not_recorded_into(tmp_path: Path) -> None:
    """Written through, a recording would edit a file elsewhere (a cloned repository can hold a
    link in trails/); replaced, the link would be lost: the save says which file to record."""
    real = tmp_path / "elsewhere.trail.yaml"
    real.write_text("trail:\n  - step: Go\n", encoding="utf-8")
    link = tmp_path / "trails" / "go.trail.yaml"
    link.parent.mkdir()
    link.symlink_to(real)
    trail = load_trail(link)
    with pytest.raises(UsageError, match=r"go\.trail\.yaml is a link, which trailblaze does not write through"):
        TrailFile(link).save([RecordingEdit.for_step(trail, trail.steps[0], "web", [ToolCall("wait", {"seconds": 0})])])
    assert real.read_text(encoding="utf-8") == "trail:\n  - step: Go\n" and link.is_symlink()
