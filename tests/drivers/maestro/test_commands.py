"""Reading Maestro commands (trailblaze/drivers/maestro/commands.py): Maestro's YAML shapes, and every
mistake reported by ``validate`` with the command's line before any device is touched."""

from __future__ import annotations

import re

import pytest

from tests.support.cli import CliRunner, Project
from trailblaze.drivers.maestro.commands import parse_commands
from trailblaze.drivers.mobile.matching import MaestroSelector


def test_maestros_short_forms() -> None:
    commands = parse_commands(
        [
            "back",
            {"tapOn": "Submit"},
            {"inputText": 1234},
            {"eraseText": 5},
            {"launchApp": "com.example"},
            {"stopApp": "com.example"},
            {"openLink": "app://x"},
            {"pressKey": "enter"},
            {"takeScreenshot": "shot"},
            {"action": "hideKeyboard"},
            {"setAirplaneMode": "Enabled"},
            "waitForAnimationToEnd",
        ]
    )
    assert [c.name for c in commands] == [
        "back",
        "tapOn",
        "inputText",
        "eraseText",
        "launchApp",
        "stopApp",
        "openLink",
        "pressKey",
        "takeScreenshot",
        "hideKeyboard",
        "setAirplaneMode",
        "waitForAnimationToEnd",
    ]
    assert commands[1].args.text == "Submit"
    assert commands[2].args.text == "1234"
    assert commands[3].args.charactersToErase == 5
    assert commands[4].args.appId == "com.example"
    assert commands[7].args.key == "ENTER"
    assert commands[10].args.value == "enabled"


def test_selectors_become_maestro_selectors_with_their_relations() -> None:
    (command,) = parse_commands(
        [
            {
                "tapOn": {
                    "text": "Sub.*",
                    "id": "submit_button",
                    "index": 1,
                    "enabled": True,
                    "below": "Email",
                    "childOf": {"id": "form"},
                    "containsDescendants": ["a", {"text": "b"}],
                    "traits": "text, square",
                    "width": 100,
                    "tolerance": 5,
                }
            }
        ]
    )
    element = command.args.element()
    assert isinstance(element, MaestroSelector)
    assert isinstance(element.below, MaestroSelector) and element.below.textRegex == "Email"
    assert isinstance(element.childOf, MaestroSelector) and element.childOf.idRegex == "form"
    assert [d.textRegex for d in element.containsDescendants or []] == ["a", "b"]
    assert (element.textRegex, element.idRegex, element.index, element.traits) == (
        "Sub.*",
        "submit_button",
        1,
        ["text", "square"],
    )
    assert element.size is not None and (element.size.width, element.size.tolerance) == (100, 5)


def test_nested_commands_are_read_too() -> None:
    (repeat,) = parse_commands(
        [{"repeat": {"times": "2", "commands": [{"runFlow": {"when": {"platform": "iOS"}, "commands": ["back"]}}]}}]
    )
    assert [c.name for c in repeat.inner] == ["runFlow"]
    assert [c.name for c in repeat.inner[0].inner] == ["back"]
    with pytest.raises(ValueError, match=r"repeat.commands\[0\]: runFlow.commands\[0\]: unknown Maestro command 'bak'"):
        parse_commands([{"repeat": {"times": 1, "commands": [{"runFlow": {"commands": ["bak"]}}]}}])


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ({"tapOnn": "x"}, "unknown Maestro command 'tapOnn'; did you mean 'tapOn'?"),
        ({"setLocation": {"latitude": 1}}, "the Maestro command 'setLocation' is not supported here"),
        ({"assertWithAI": {"assertion": "x"}}, "the Maestro command 'assertWithAI' is not supported here"),
        ({"tapOn": {"txt": "x"}}, "tapOn: txt: unknown field"),
        ({"tapOn": {"text": "x", "enabled": "yes"}}, "tapOn: enabled: input should be a valid boolean"),
        ({"pressKey": "Volume Uup"}, "pressKey: key: unknown key name 'Volume Uup'"),
        ({"pressKey": "Remote Dpad Up"}, "the key 'Remote Dpad Up' (a TV remote's) cannot be pressed here"),
        ({"swipe": {"start": "10, 10"}}, "swipe: a swipe with coordinates needs both start and end"),
        ({"swipe": {"direction": "UP", "start": "1,1", "end": "2,2"}}, "a swipe takes direction or start/end"),
        ({"swipe": {"start": "10%, 10%", "end": "20, 20"}}, "start and end must both be percentages"),
        ({"swipe": {}}, "a swipe needs direction"),
        ({"launchApp": None}, "launchApp: needs an appId"),
        ({"launchApp": {"appId": "a", "permissions": {"camera": "maybe"}}}, "'maybe' is not allow, deny or unset"),
        ({"launchApp": {"appId": "a", "clearKeychain": True}}, "cannot clear the iOS keychain"),
        ({"stopApp": None}, "stopApp: needs an appId"),
        ({"runFlow": "other.yaml"}, "runFlow with a flow file is not supported"),
        ({"repeat": {"commands": []}}, "repeat needs times: or while:"),
        ({"repeat": {"times": "many", "commands": []}}, "repeat times 'many' is not a whole number"),
        ({"extendedWaitUntil": {"timeout": 100}}, "extendedWaitUntil needs one of visible: or notVisible:"),
        ({"extendedWaitUntil": {"visible": "x", "timeout": "soon"}}, "timeout 'soon' is not a number"),
        ("tapOn", "tapOn needs arguments"),
        ("nope", "unknown Maestro command 'nope'"),
        (["back"], "a Maestro command is one name with its arguments"),
    ],
)
def test_mistakes_name_the_command(command: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_commands([command])


@pytest.mark.parametrize(
    "command",
    [
        {"evalScript": "${1}"},
        {"runScript": "a.js"},
        {"assertTrue": True},
        {"runFlow": {"when": {"true": "${x}"}, "commands": []}},
    ],
)
def test_javascript_needs_node(command: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Maestro's JavaScript runs on Node.js; without ``node`` on PATH each such command is a
    mistake named when the trail is read (trailblaze/drivers/maestro/javascript.py)."""
    from trailblaze.drivers.maestro import javascript

    monkeypatch.setattr(javascript, "node", lambda: None)
    with pytest.raises(ValueError, match=re.escape("needs Node.js")):
        parse_commands([command])


def test_validate_reports_bad_commands_with_their_lines_before_any_device(cli: CliRunner, project: Project) -> None:
    project.trail(
        "maestro",
        """
        trail:
          - step: s
            recording:
              android:
                - mobile_maestro:
                    commands:
                      - tapOn: OK
                      - tapOnn: x
                      - swipe: {direction: UP, fromm: x}
                      - repeat:
                          times: 2
                          commands:
                            - extractTextWithAI: x
        """,
    )
    result = cli("validate", env={"ANDROID_ADB_SERVER_PORT": "1"})  # no adb server: nothing is contacted
    assert result.returncode == 3
    assert result.output.splitlines() == [
        "error: trails/maestro.trail.yaml:8:17: mobile_maestro: commands.1: unknown Maestro command 'tapOnn'; "
        "did you mean 'tapOn'?",
        "error: trails/maestro.trail.yaml:9:17: mobile_maestro: commands.2: swipe: fromm: unknown field",
        "error: trails/maestro.trail.yaml:10:17: mobile_maestro: commands.3: repeat.commands[0]: the Maestro "
        "command 'extractTextWithAI' is not supported here: it needs Maestro's AI service",
        "3 problems",
    ]
    run = cli("run", "--driver", "android", env={"ANDROID_ADB_SERVER_PORT": "1"})
    assert run.returncode == 3
    assert "no adb server" not in run.output and "unknown Maestro command 'tapOnn'" in run.output


def test_maestro_commands_that_only_look_may_be_a_verify_step(cli: CliRunner, project: Project) -> None:
    project.trail(
        "verify",
        """
        trail:
          - verify: the welcome is shown
            recording:
              android:
                - mobile_maestro:
                    commands:
                      - assertVisible: Welcome
                      - extendedWaitUntil: {visible: Ready, timeout: 1000}
          - verify: this one taps
            recording:
              android:
                - mobile_maestro:
                    commands:
                      - assertVisible: Welcome
                      - tapOn: OK
        """,
    )
    result = cli("validate", env={"ANDROID_ADB_SERVER_PORT": "1"})
    assert result.returncode == 3
    assert result.output.splitlines() == [
        "error: trails/verify.trail.yaml:12:11: verify steps may only use verification (read-only) tools; "
        "'mobile_maestro' is not one",
    ]
