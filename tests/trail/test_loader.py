from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.project import write
from trailblaze.trail.loader import TrailErrors, load_trail


def load(tmp_path: Path, text: str, name: str = "t.trail.yaml", **kwargs: object) -> object:
    return load_trail(write(tmp_path, name, text), root=tmp_path, **kwargs)  # type: ignore[arg-type]


def problems(tmp_path: Path, text: str, name: str = "t.trail.yaml", **kwargs: object) -> list[str]:
    with pytest.raises(TrailErrors) as info:
        load(tmp_path, text, name, **kwargs)
    return [str(e).split(": ", 1)[1] if ": " in str(e) else str(e) for e in info.value.errors]


CURRENT = """
config:
  id: shop/checkout
  title: Checkout
  devices: {android: ANDROID_ONDEVICE_ACCESSIBILITY, web: PLAYWRIGHT_NATIVE}
  args:
    user: {type: string, default: ada}
    count: {type: integer, default: 2}
trailhead:
  step: Launch
  recording:
    android:
      launchApp: {appId: com.shop}
trail:
  - step: Sign in as {{args.user}}
    recording:
      web:
        - web_click:
            reason: keep me
            nodeSelector: {web: {cssSelector: "#go"}}
        - web_currentUrl
      android: []
  - verify: Done
    maxRetries: 2
  - step: Free text, no recording
    recordable: false
"""


def test_current_format_loads_everything(tmp_path: Path) -> None:
    trail = load(tmp_path, CURRENT)
    assert trail.format == "current"
    assert trail.id == "shop/checkout"
    assert trail.title == "Checkout"
    assert trail.arg_values == {"user": "ada", "count": 2}
    head = trail.trailhead
    assert head is not None and head.kind == "trailhead" and head.index == -1
    assert [c.name for c in head.recordings["android"]] == ["launchApp"]
    first, second, third = trail.steps
    assert (first.index, first.kind, first.text) == (0, "step", "Sign in as {{args.user}}")
    web = first.recordings["web"]
    assert [c.name for c in web] == ["web_click", "web_currentUrl"]
    assert web[0].args["reason"] == "keep me"  # kept in the model, stripped before the tool runs
    assert str(web[0].location).endswith("t.trail.yaml:17:11")
    assert first.recordings["android"] == []
    assert (second.kind, second.max_retries, second.recordings) == ("verify", 2, None)
    assert third.recordable is False


def test_id_defaults_to_the_path_under_the_trails_root(tmp_path: Path) -> None:
    trail = load(tmp_path, "trail:\n  - step: x\n", "shop/cart/trail.yaml")
    assert trail.id == "shop/cart"
    trail = load(tmp_path, "trail:\n  - step: x\n", "shop/pay.trail.yaml")
    assert trail.id == "shop/pay"


LEGACY = """
- config:
    id: sample/forms
    app: com.example
    platform: android
- tools:
  - launchApp: {appId: com.example, launchMode: REINSTALL}
- prompts:
  - step: Tap Forms
    recording:
      tools:
        - tapOnElementBySelector:
            selector: {containsChild: {textRegex: Forms}}
  - verify: Check it
"""


def test_legacy_format_keys_recordings_by_the_file_name_classifier(tmp_path: Path) -> None:
    trail = load(tmp_path, LEGACY, "android-phone.trail.yaml")
    assert trail.format == "legacy"
    assert trail.config.app == "com.example"
    tools, tap, check = trail.steps
    assert tools.text is None and tools.label == "tools: launchApp"
    assert list(tools.recordings) == ["android-phone"]
    assert tap.recordings["android-phone"][0].args == {"selector": {"containsChild": {"textRegex": "Forms"}}}
    assert check.kind == "verify" and check.recordings is None
    assert tap.recording_for(["android-phone", "android"]) is not None


def test_legacy_format_falls_back_to_config_platform(tmp_path: Path) -> None:
    trail = load(tmp_path, LEGACY, "blaze.yaml")
    assert list(trail.steps[0].recordings) == ["android"]


def test_every_problem_in_a_file_is_reported(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        """
        config: {colour: red}
        extra: 1
        trail:
          - step: a
            verify: b
          - step: c
            recording: [oops]
          - step: d
            maxRetries: -1
            recording:
              web:
                - {a: 1, b: 2}
                - tool: 3
          - just text
        """,
    )
    assert found == [  # in file order
        "colour: unknown key (expected one of: app, args, context, description, devices, driver, id, memory, "
        "metadata, platform, priority, skip, tags, target, timeout, title)",
        "unknown top-level key 'extra' (expected config, trailhead, trail)",
        "a step has exactly one of 'step:' or 'verify:'",
        "'recording:' maps a device classifier (web, android, ios…) to tool calls",
        "'maxRetries:' must be a whole number ≥ 0",
        "a tool call is a one-key mapping '- toolName: {args}' (or just '- toolName')",
        "arguments of 'tool' must be a mapping, got int",
        "a step is a mapping: '- step: text' or '- verify: text'",
    ]


def test_problems_carry_file_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(TrailErrors) as info:
        load(tmp_path, "trail:\n  - step: ok\n  - nope: 1\n")
    assert str(info.value.errors[0]).startswith(f"{tmp_path / 't.trail.yaml'}:3:5: ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a trail file is a mapping with 'trail:'"),
        ("config: {}\n", "missing 'trail:'"),
        ("trail: []\n", "'trail:' must be a non-empty list"),
        ("- prompts: 3\n", "'prompts:' must be a list"),
        ("- maestro: []\n", "legacy '- maestro:' blocks are not supported"),
        (
            "trailhead: {step: a, recording: {web: [{x: {}}, {y: {}}]}}\ntrail: [{step: b}]\n",
            "a trailhead runs exactly one tool per device, found 2 for 'web'",
        ),
    ],
)
def test_structural_mistakes(tmp_path: Path, text: str, message: str) -> None:
    assert any(p.startswith(message) for p in problems(tmp_path, text)), problems(tmp_path, text)


ARGS = """
config:
  args:
    name: {type: string}
    retries: {type: integer, default: 1}
    fast: {type: boolean, default: false}
trail:
  - step: Hello {{args.name}}, ${HOME_FOR_TEST}
    recording:
      web:
        - web_type: {text: "{{args.name}}"}
"""


def test_args_are_typed_and_required_ones_must_be_given(tmp_path: Path) -> None:
    env = {"HOME_FOR_TEST": "/home"}
    trail = load(tmp_path, ARGS, arg_values={"name": "Ada", "retries": "3", "fast": "yes"}, environ=env)
    assert trail.arg_values == {"name": "Ada", "retries": 3, "fast": True}
    assert problems(tmp_path, ARGS, environ=env) == ["trail argument 'name' is required: pass --arg name=VALUE"]
    assert problems(tmp_path, ARGS, arg_values={"name": "x", "retries": "many"}, environ=env) == [
        "--arg retries: expected an integer, got 'many'"
    ]
    trail = load(tmp_path, ARGS, require_args=False, environ=env)
    assert "name" not in trail.arg_values


def test_unknown_references_are_load_errors(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        """
        trail:
          - step: "{{args.nope}} {{memory.later}} {{vars.x}} ${SURELY_NOT_SET_ANYWHERE}"
        """,
        environ={},
    )
    assert found == [
        "{{args.nope}} is not declared in config.args",
        "unknown reference {{vars.x}}: use {{args.x}}, {{memory.x}} or ${ENV}",
        "environment variable SURELY_NOT_SET_ANYWHERE is not set (${SURELY_NOT_SET_ANYWHERE})",
    ]


def test_a_reference_deep_in_a_calls_arguments_is_checked(tmp_path: Path) -> None:
    text = "trail:\n  - step: s\n    recording:\n      web:\n        - web_x: {a: [1, {b: [x, '${NOT_SET_HERE}']}]}\n"
    assert problems(tmp_path, text, environ={}) == ["environment variable NOT_SET_HERE is not set (${NOT_SET_HERE})"]


def test_every_upstream_file_loads_with_nothing_lost(upstream_format: Path) -> None:
    files = sorted(upstream_format.rglob("*.yaml"))
    assert len(files) == 7
    for path in files:
        trail = load_trail(path, root=upstream_format, require_args=False)
        assert trail.steps, path
    alarm = load_trail(upstream_format / "clock/set-alarm-730am/trail.yaml")
    assert alarm.config.target == "clock"
    assert alarm.trailhead is not None and alarm.trailhead.recordings["android"][0].name == "clock_android_launchApp"
    pick = alarm.steps[2].recordings["android"]
    assert len(pick) == 5 and pick[3].args["reason"].startswith("Force the AM/PM toggle to AM.")
    assert pick[3].args["nodeSelector"]["androidAccessibility"]["isClickable"] is True
    legacy = load_trail(upstream_format / "legacy_v1/ClockTest/setAnAlarm.trail.yaml")
    off = legacy.steps[2].recordings["*"][0]
    assert off.args["selector"] == {"textRegex": "ON", "idRegex": "com.android.deskclock:id/onoff", "checked": True}
    args = load_trail(upstream_format / "android-sample-app/forms/text-input-args.trail.yaml")
    assert args.arg_values == {"name": "Jane Doe", "email": "jane@example.com"}
    assert all(step.recordings is None for step in args.steps)


def test_a_big_trail_costs_a_small_multiple_of_its_size(tmp_path: Path) -> None:
    """A 10 MB trail needed about 1 GB: positions were a tuple of the path and a tuple of line
    and column for each of a million values, and a log of them all beside."""
    import tracemalloc

    step = "  - step: Open the page\n    recording:\n      web:\n        - web_navigate: {url: /index.html}\n"
    path = tmp_path / "big.trail.yaml"
    path.write_text("trail:\n" + step * 10_000, encoding="utf-8")
    tracemalloc.start()
    try:
        trail = load_trail(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(trail.steps) == 10_000
    assert trail.steps[-1].location.line == 4 * 9_999 + 2  # positions are still exact
    assert peak < 45 * path.stat().st_size  # a generous bound: it was 54×, it is about 39×
