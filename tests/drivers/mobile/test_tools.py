"""Upstream's mobile tools (trailblaze/drivers/mobile/tools.py), run by the real engine on the stand-in
phone and iPhone: trails in, results out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import FakeIphone, WdaStandIn
from tests.support.project import make_project, run, write
from trailblaze.api.results import RunResult
from trailblaze.drivers.android.hierarchy import parse_hierarchy

NO_PLUGINS = ("no:terminal",)
LEGACY_FORMS = "legacy_v1/android-ondevice-instrumentation/forms/text-input/android-phone.trail.yaml"


def replay(
    root: Path, trail: str, *, driver: str = "android", device: str | None = None, config: str = ""
) -> RunResult:
    write(root, "trails/t.trail.yaml", trail)
    project = make_project(root, f"timeout: 3\n{config}", NO_PLUGINS)
    return run(project, driver=driver, devices=[device] if device else [])


def steps(result: RunResult) -> list[tuple[str, str | None]]:
    return [(s.status, s.error) for t in result.trails for s in t.steps]


def calls(result: RunResult) -> list[tuple[str, str, list[str]]]:
    return [(tool.name, tool.status, tool.delegated_from) for t in result.trails for s in t.steps for tool in s.tools]


def android_trail(*calls: str) -> str:
    lines = ["trail:", "  - step: go", "    recording:", "      android:"]
    lines += [f"        - {call}" for call in calls]
    return "\n".join(lines) + "\n"


def test_upstreams_recorded_forms_trail_replays(
    adb: AdbHostStandIn, phone: FakeAndroid, upstream_format: Path, tmp_path: Path
) -> None:
    """The legacy android-phone recording from upstream's sample app, unchanged."""
    target = tmp_path / "trails" / "forms" / "android-phone.trail.yaml"
    target.parent.mkdir(parents=True)
    shutil.copy(upstream_format / LEGACY_FORMS, target)
    result = run(make_project(tmp_path, "timeout: 5\n", NO_PLUGINS))
    trail = result.trails[0]
    assert (trail.status, trail.driver, trail.device, trail.error) == (
        "passed",
        "android-uiautomator2",
        "emulator-5554",
        None,
    )
    assert [s.status for s in trail.steps] == ["passed"] * 7
    assert phone.app.submissions == 1
    assert phone.app.ui.name == ""  # "Clear All" really cleared the form


def test_apps_and_keys(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(
            f"launchApp: {{appId: {SAMPLE_APP}}}",
            "android_grantPermissions: {appId: " + SAMPLE_APP + ", permissions: [android.permission.CAMERA]}",
            f"launchApp: {{appId: {SAMPLE_APP}, launchMode: FORCE_RESTART}}",
            "assertVisibleWithText: {text: 'Camera: granted'}",
            "openUrl: {url: 'sampleapp://forms'}",
            "tapOnElementWithText: {text: Name}",
            "inputText: {text: Ada, hideKeyboardAfter: false}",
            "pressKey: {keyCode: BACKSPACE}",
            "hideKeyboard",
            "pressBack",
            f"stopApp: {{appId: {SAMPLE_APP}}}",
            f"mobile_clearAppData: {{appId: {SAMPLE_APP}}}",
            "android_adbShell: {command: [pm, list, packages]}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.granted == set()  # cleared with the app's data
    assert ("shell", "pm list packages; echo X4EXIT:$?") in phone.calls


def test_text_tools_and_selectors(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(
            f"launchApp: {{appId: {SAMPLE_APP}}}",
            "tapOnElementBySelector: {nodeSelector: {androidAccessibility: {textRegex: Forms}}}",
            "tapOn: {selector: {androidAccessibility: {resourceIdRegex: '.*name_input'}}, relativePoint: '10%,90%'}",
            "inputText: {text: Jane Doe}",
            "tapOnElementBySelector: {selector: {containsChild: {textRegex: Email}}}",
            "inputText: {text: oops}",
            "eraseText: {charactersToErase: 2}",
            "eraseText",
            "inputText: {text: jane@example.com}",
            "tapOnElementWithAccessibilityText: {accessibilityText: '.*', id: submit_button}",
            "assertVisibleBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: '.*result_text'}},"
            " expectedText: 'Name: Jane Doe\\nEmail: jane@example.com'}",
            "tapOnElementWithText: {text: Clear All}",
            "assertNotVisibleWithText: {text: 'Name: .*'}",
            "assertNotVisibleBySelector: {nodeSelector: {androidAccessibility: {textRegex: 'Jane Doe'}}}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.submissions == 1


def test_gestures(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(
            "openUrl: {url: 'sampleapp://lists'}",
            "scrollUntilTextIsVisible: {text: Item 22}",
            "longPressOnElementWithText: {text: Item 22}",
            "assertVisibleWithText: {text: Item 22 ★}",
            "swipe: {direction: DOWN, swipeOnElementText: Item 22 ★}",
            "scrollUntilTextIsVisible: {textRegex: 'Item [1-3]', direction: UP}",
            "tapOnPoint: {x: 900, y: 2280}",
            "assertVisibleWithText: {text: Item 1, index: 0}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.ui.pinned == {22}


def test_a_failing_check_fails_the_trail_with_what_was_on_screen(adb: AdbHostStandIn, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(
            f"launchApp: {{appId: {SAMPLE_APP}}}",
            "assertVisibleBySelector: {selector: {textRegex: Goodbye}, timeoutMs: 300}",
        ),
    )
    trail = result.trails[0]
    assert (trail.status, result.exit_code) == ("failed", 1)
    assert trail.error is not None
    assert "assertVisibleBySelector: textRegex='Goodbye' is not visible (waited 0.3s); on screen: " in trail.error
    assert "TextView 'Welcome to the sample app'" in trail.error


def test_an_app_that_dies_at_launch_fails_the_trailhead(adb: AdbHostStandIn, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        "trailhead:\n  step: start\n  recording:\n    android:\n      launchApp: {appId: com.example.crashes}\n"
        "trail:\n  - step: nothing\n    recording: {android: []}\n",
    )
    trail = result.trails[0]
    assert (trail.status, result.exit_code) == ("failed", 1)
    assert "the app did not come to the front within 3s (com.android.launcher3 has focus" in (trail.error or "")


def test_a_device_that_goes_away_is_an_infrastructure_error(adb: AdbHostStandIn, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(f"launchApp: {{appId: {SAMPLE_APP}}}", "android_adbShell: {command: [reboot]}", "pressBack"),
    )
    assert result.trails[0].status == "failed"  # "reboot" is not a command the phone knows
    adb.unplug("emulator-5554")
    again = replay(tmp_path, android_trail("pressBack"))
    assert again.exit_code == 2
    assert "no Android device online" in (again.trails[0].error or "")


def test_the_generic_tap_tool_records_a_stable_node_selector(
    adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path
) -> None:
    """``tap`` takes a ref from the current hierarchy and delegates to tapOnElementBySelector."""
    app = phone.app
    app.launch(SAMPLE_APP, "Forms")
    app.clock = lambda: 1e9  # the app is long started: no splash, no slide
    submit = next(n for n in parse_hierarchy(phone.dump()).walk() if n.id and n.id.endswith("submit_button"))
    result = replay(tmp_path, android_trail(f"tap: {{ref: {submit.ref}}}"))
    assert calls(result) == [("tapOnElementBySelector", "passed", ["tap"])]
    tool = result.trails[0].steps[0].tools[0]
    assert tool.args == {
        "nodeSelector": {"androidAccessibility": {"resourceIdRegex": f"{SAMPLE_APP}:id/submit_button"}}
    }
    assert app.submissions == 1


def test_remember_text_reads_with_either_selector(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    phone.app.submissions = 4
    result = replay(
        tmp_path,
        android_trail(
            f"launchApp: {{appId: {SAMPLE_APP}, launchMode: FORCE_RESTART}}",
            "rememberText: {variable: count, selector: {textRegex: 'Submissions: .*', below: {textRegex: 'Welc.*'}}}",
            "rememberText: {variable: camera, nodeSelector: {androidAccessibility: {resourceIdRegex: '.*camera'}}}",
            "assertEquals: {actual: '{{memory.count}}, {{memory.camera}}', expected: 'Submissions: 4, Camera: denied'}",
        ),
    )
    assert steps(result) == [("passed", None)]


def test_an_ios_trail(wda_server: WdaStandIn, iphone: FakeIphone, tmp_path: Path) -> None:
    trail = """
    config: {devices: {ios-iphone: IOS_HOST}}
    trail:
      - step: fill
        recording:
          ios-iphone:
            - launchApp: {appId: xyz.block.trailblaze.examples.sampleapp}
            - tapOnElementWithText: {text: Forms}
            - tapOnElementBySelector: {nodeSelector: {iosMaestro: {resourceIdRegex: name_input}}}
            - inputText: {text: Ada}
            - tapOnElementWithText: {text: Submit}
      - verify: result
        recording:
          ios:
            - assertVisibleBySelector: {nodeSelector: {iosMaestro: {textRegex: "Name: Ada.*"}}}
    """
    result = replay(tmp_path, trail, driver="ios", device=wda_server.url)
    assert steps(result) == [("passed", None), ("passed", None)]
    assert result.trails[0].device == wda_server.url
    launch = result.trails[0].steps[0].tools[0]
    assert launch.name == "launchApp"
    assert iphone.app.submissions == 1


def test_android_only_tools_are_not_offered_on_ios(wda_server: WdaStandIn, tmp_path: Path) -> None:
    write(
        tmp_path,
        "trails/t.trail.yaml",
        "trail:\n  - step: x\n    recording:\n      ios:\n        - android_adbShell: {command: [ls]}\n",
    )
    project = make_project(tmp_path, "", NO_PLUGINS)
    with pytest.raises(Exception, match="unknown tool 'android_adbShell' for driver ios-wda"):
        run(project, driver="ios", devices=[wda_server.url])
