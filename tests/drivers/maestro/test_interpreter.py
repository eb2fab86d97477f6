"""Maestro commands through ``mobile_maestro`` (trailblaze/drivers/maestro/interpreter.py), run by the real
engine against the phone stand-ins through the real uiautomator2/adbutils and facebook-wda."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.drivers.maestro import capture
from tests.drivers.mobile.test_tools import steps
from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import FakeIphone, WdaStandIn
from tests.support.project import make_project, run, write
from trailblaze.api.results import RunResult

PLUGINS = ("no:terminal", "tests.drivers.maestro.capture")


def replay(
    root: Path, trail: str, *, driver: str = "android", device: str | None = None, **options: object
) -> RunResult:
    capture.OUTPUTS.clear()
    write(root, "trails/t.trail.yaml", trail)
    project = make_project(root, "timeout: 3\n", PLUGINS)
    return run(project, driver=driver, devices=[device] if device else [], **options)


def maestro(*commands: str, classifier: str = "android") -> str:
    lines = ["trail:", "  - step: go", "    recording:", f"      {classifier}:", "        - mobile_maestro:"]
    lines += ["            commands:"] + [f"              - {c}" for c in commands]
    return "\n".join(lines) + "\n"


def outputs(result: RunResult) -> list[str]:
    """What the (last) mobile_maestro call reported, one line per command."""
    return [line for name, output in capture.OUTPUTS if name == "mobile_maestro" for line in output]


def launched(phone: FakeAndroid) -> str:
    """Start the app the way a test needs it: already on screen, no splash and no slide."""
    phone.app.launch(SAMPLE_APP)
    phone.app.clock = lambda: 1e9
    return f"launchApp: {{appId: {SAMPLE_APP}, stopApp: false}}"


def test_taps_text_and_keys(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        maestro(
            launched(phone),
            "tapOn: forms",  # Maestro's text matching ignores case
            "tapOn: {id: name_input}",  # an id matches after its last '/'
            "inputText: Ada",
            "eraseText: 1",
            "inputText: {text: a Lovelace}",
            "hideKeyboard",
            "tapOn: {text: '.*', below: {id: name_input}, index: 0, enabled: true}",  # the Email field
            "inputRandomEmail",
            "back",
            "tapOn: {text: Clear All, rightOf: Submit}",
            "assertVisible: {id: name_input, text: ''}",
            "assertNotVisible: Ada Lovelace",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert outputs(result)[:4] == [
        f"launchApp: launched {SAMPLE_APP}",
        "tapOn: tapped TextView 'Forms'",
        f"tapOn: tapped EditText '{SAMPLE_APP}:id/name_input'",
        "inputText: typed 3 characters",
    ]
    assert phone.app.ui.name == "" and phone.app.ui.email == ""  # Clear All cleared what was typed


def test_typing_then_checking_what_was_typed(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        maestro(
            f"launchApp: {SAMPLE_APP}",  # the real clock: splash, slides and the delayed result
            "tapOn: Forms",
            "tapOn: Name",
            "inputText: Ada",
            "eraseText: 1",
            "inputText: {text: a Lovelace}",
            "tapOn: Email",
            "inputRandomEmail",
            "tapOn: {id: submit_button}",
            "extendedWaitUntil: {visible: 'Name: Ada Lovelace.*', timeout: 2000}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.ui.submitted is not None
    name, email = phone.app.ui.submitted
    assert name == "Ada Lovelace"
    assert re.fullmatch(r"[a-z]{8}@example\.com", email)


def test_random_inputs(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    values = []
    for command in ("inputRandomText: {length: 5}", "inputRandomNumber: {length: 6}", "inputRandomPersonName"):
        phone.app.ui.name = ""
        result = replay(tmp_path, maestro(launched(phone), "tapOn: Forms", "tapOn: Name", command))
        assert steps(result) == [("passed", None)]
        values.append(phone.app.ui.name)
    assert re.fullmatch(r"[a-z]{5}", values[0])
    assert re.fullmatch(r"[1-9][0-9]{5}", values[1])
    assert re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", values[2])


def test_double_and_long_presses(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        maestro(
            launched(phone),
            "tapOn: Lists",
            "longPressOn: Item 2",
            "assertVisible: Item 2 ★",
            "doubleTapOn: {text: Item 3, delay: 50}",
            "tapOn: {point: '50%, 95%'}",  # the middle tab at the bottom: Forms
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.ui.pinned == {2}
    assert phone.app.ui.tab == "Forms"
    taps = [what for kind, what in phone.calls if kind == "rpc" and what == "click"]
    assert len(taps) >= 5  # tapOn, long press, two for the double tap, the point


def test_scrolling_and_swiping(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        maestro(
            launched(phone),
            "tapOn: Lists",
            "waitForAnimationToEnd: {timeout: 2000}",
            "scroll",
            "scrollUntilVisible: {element: {text: 'item 30'}, timeout: 5000}",
            "swipe: {direction: DOWN, duration: 200}",
            "swipe: {from: {id: item_list}, direction: DOWN}",
            "swipe: {start: '50%, 80%', end: '50%, 40%'}",
            "swipe: {start: '540, 1800', end: '540, 1500'}",
            "scrollUntilVisible: {element: 'Item 1', direction: UP, timeout: 5000}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.ui.list_offset == 0
    swipes = [what for kind, what in phone.calls if kind == "rpc" and what == "swipe"]
    assert len(swipes) >= 6


def test_apps_permissions_arguments_and_links(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    phone.app.submissions = 3
    phone.app.granted.add("android.permission.POST_NOTIFICATIONS")
    result = replay(
        tmp_path,
        maestro(
            f"launchApp: {{appId: {SAMPLE_APP}, clearState: true, permissions: {{android.permission.CAMERA: allow}},"
            " arguments: {user: ada, retries: 3, debug: true, ratio: 0.5}}",
            "assertVisible: 'Camera: granted'",
            "assertVisible: 'Submissions: 0'",
            f"stopApp: {SAMPLE_APP}",
            f"launchApp: {{appId: {SAMPLE_APP}, permissions: {{all: deny}}}}",
            "assertVisible: 'Camera: denied'",
            "openLink: sampleapp://lists",
            "assertVisible: Item 1",
            f"killApp: {SAMPLE_APP}",
            f"clearState: {SAMPLE_APP}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.granted == set()  # "all: deny" revoked what the app asks for
    assert phone.app.launch_arguments == {}  # the second launch had no arguments
    launches = [what for kind, what in phone.calls if kind == "shell" and what.startswith("am start")]
    assert "--es user ada --ei retries 3 --ez debug true --ef ratio 0.5" in launches[0]
    assert not phone.app.running


def test_copy_paste_screenshot_and_flow_control(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    artifacts = tmp_path / "artifacts"
    trail = maestro(
        launched(phone),
        "copyTextFrom: {text: 'Welcome.*'}",
        "tapOn: Forms",
        "tapOn: Name",
        "pasteText",
        "takeScreenshot: forms/filled",
        "runFlow: {when: {platform: iOS}, commands: [{tapOn: Submit}]}",
        "runFlow: {when: {visible: Submit}, commands: [{tapOn: Email}, {inputText: x@y.z}]}",
        "repeat: {times: 2, commands: [{tapOn: Submit}]}",
        "repeat: {while: {notVisible: 'Item 12'}, commands: [{openLink: 'sampleapp://lists'}, {scroll: {}}]}",
        "retry: {maxRetries: 2, commands: [{assertVisible: 'Item 12'}]}",
        "tapOn: {text: Nowhere, optional: true}",
        "pressKey: Home",
    )
    result = replay(tmp_path, trail, artifacts_dir=artifacts)
    assert steps(result) == [("passed", None)], steps(result)
    assert phone.app.ui.name == "Welcome to the sample app"
    assert phone.app.ui.email == "x@y.z"
    assert phone.app.submissions == 2
    assert phone.app.front is None  # Home
    shots = list(artifacts.rglob("filled.jpg"))
    assert len(shots) == 1 and shots[0].read_bytes()[:2] == b"\xff\xd8"
    done = outputs(result)
    assert "runFlow: skipped (its when: condition does not hold)" in done
    assert any(line.startswith("repeat: repeated ") for line in done)
    assert "tapOn: skipped (optional): no element matches" in " ".join(done)


def test_a_screenshot_path_stays_in_the_artifacts_folder(
    adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path
) -> None:
    artifacts = tmp_path / "run" / "artifacts"
    result = replay(tmp_path, maestro(launched(phone), "takeScreenshot: ../../../escaped"), artifacts_dir=artifacts)
    assert steps(result) == [("passed", None)], steps(result)
    assert [p.relative_to(artifacts).as_posix() for p in artifacts.rglob("*.jpg")] == ["t/escaped.jpg"]
    assert not list((tmp_path / "run").glob("*.jpg")) and not list(tmp_path.glob("*.jpg"))


def test_airplane_mode(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(tmp_path, maestro("setAirplaneMode: enabled", "toggleAirplaneMode", "toggleAirplaneMode"))
    assert steps(result) == [("passed", None)]
    assert phone.airplane_mode is True
    assert outputs(result) == [
        "setAirplaneMode: airplane mode on",
        "toggleAirplaneMode: airplane mode off",
        "toggleAirplaneMode: airplane mode on",
    ]


def test_a_failing_command_fails_the_step_naming_it(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(tmp_path, maestro(launched(phone), "assertVisible: {text: Goodbye, label: greeting shown}"))
    trail = result.trails[0]
    assert (trail.status, result.exit_code) == ("failed", 1)
    assert "mobile_maestro: Maestro greeting shown: textRegex='Goodbye' is not visible (waited 3s)" in (
        trail.error or ""
    )


def test_maestro_on_ios(wda_server: WdaStandIn, iphone: FakeIphone, tmp_path: Path) -> None:
    trail = maestro(
        f"launchApp: {{appId: {SAMPLE_APP}, arguments: {{user: ada}}}}",
        "tapOn: forms",
        "tapOn: {id: name_input}",
        "inputText: Ada",
        "copyTextFrom: {id: name_input}",
        "tapOn: {id: email_input}",
        "pasteText",
        "tapOn: Submit",
        "extendedWaitUntil: {visible: {text: 'name: ada.*'}, timeout: 2000}",
        classifier="ios",
    )
    result = replay(tmp_path, trail, driver="ios", device=wda_server.url)
    assert steps(result) == [("passed", None)]
    assert iphone.app.launch_arguments == {"-user": "ada"}
    assert iphone.pasteboard == "Ada"
    assert iphone.app.ui.submitted == ("Ada", "Ada")


def test_what_ios_cannot_do_is_said_plainly(wda_server: WdaStandIn, tmp_path: Path) -> None:
    result = replay(
        tmp_path, maestro("setAirplaneMode: enabled", classifier="ios"), driver="ios", device=wda_server.url
    )
    trail = result.trails[0]
    assert (trail.status, trail.exit_code) == ("error", 3)
    assert "airplane mode cannot be switched on ios here" in (trail.error or "")


@pytest.mark.parametrize("key", ["Enter", "Backspace", "Tab"])
def test_keys_reach_the_device(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path, key: str) -> None:
    result = replay(tmp_path, maestro(launched(phone), f"pressKey: {key}"))
    assert steps(result) == [("passed", None)]
