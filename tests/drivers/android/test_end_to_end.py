"""`trailblaze run … --driver android` and `trailblaze devices` in a subprocess, against the
stand-in adb server (its address passed through adb's own variables)."""

from __future__ import annotations

import json
import shutil
import socket
import time
from pathlib import Path

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import CliProcess, CliRunner, Project

LEGACY_FORMS = "legacy_v1/android-ondevice-instrumentation/forms/text-input/android-phone.trail.yaml"

FORM_TRAIL = f"""
config: {{title: Fill the form}}
trailhead:
  step: start the app
  recording:
    android:
      launchApp: {{appId: {SAMPLE_APP}}}
trail:
  - step: fill in the name
    recording:
      android:
        - tapOnElementWithText: {{text: Forms}}
        - tapOnElementBySelector: {{selector: {{containsChild: {{textRegex: Name}}}}}}
        - inputText: {{text: "{{{{args.name}}}}"}}
        - tapOnElementWithText: {{text: Submit}}
  - verify: the result shows it
    recording:
      android-phone:
        - assertVisibleWithText: {{text: "Name: {{{{args.name}}}}\\nEmail: "}}
"""


def form_project(project: Project) -> Project:
    project.write("trailblaze.yaml", "driver: android\ntimeout: 5\n")
    project.trail("form", "config: {args: {name: {default: Ada}}}\n" + FORM_TRAIL.split("\n", 2)[2])
    return project


def test_upstreams_legacy_trail_replays_through_the_cli(
    cli: CliRunner, adb: AdbHostStandIn, upstream_format: Path, tmp_path: Path
) -> None:
    shutil.copy(upstream_format / LEGACY_FORMS, tmp_path / "android-phone.trail.yaml")
    result = cli(
        "run", "android-phone.trail.yaml", "--driver", "android", "--device", "emulator-5554", "--json", "r.json"
    )
    assert result.returncode == 0, result.output
    trail = result.json("r.json")["trails"][0]
    assert (trail["status"], trail["driver"], trail["device"]) == ("passed", "android-uiautomator2", "emulator-5554")
    assert [t["name"] for s in trail["steps"] for t in s["tools"]] == [
        "launchApp",
        "tapOnElementBySelector",
        "tapOnElementBySelector",
        "inputText",
        "tapOnElementBySelector",
        "inputText",
        "tapOnElementBySelector",
        "assertVisibleBySelector",
        "tapOnElementBySelector",
        "assertNotVisibleWithText",
    ]


def test_a_trail_that_fails_says_what_was_on_screen(cli: CliRunner, adb: AdbHostStandIn, project: Project) -> None:
    project.write("trailblaze.yaml", "timeout: 1\n")
    project.trail(
        "missing",
        f"""
        trail:
          - step: start
            recording:
              android: [{{launchApp: {{appId: {SAMPLE_APP}}}}}]
          - step: sign in
            recording:
              android: [{{tapOnElementWithText: {{text: Sign in}}}}]
        """,
    )
    result = cli("run", "--driver", "android")
    assert result.returncode == 1, result.output
    assert (
        "tapOnElementWithText: no element matches textRegex='Sign in', index=0 (waited 1s); on screen:" in result.output
    )
    assert "TextView 'Welcome to the sample app'" in result.output


def test_patterns_in_javas_syntax_match_on_the_phone(cli: CliRunner, adb: AdbHostStandIn, project: Project) -> None:
    """Upstream records names quoted the JVM way (\\Q…\\E) and writes Java regexes: possessive
    quantifiers, \\p{…} classes; nodeSelectors, legacy selectors and Maestro's rules alike."""
    project.write("trailblaze.yaml", "driver: android\ntimeout: 5\n")
    project.trail(
        "java",
        f"""
        trail:
          - step: fill in the form
            recording:
              android:
                - launchApp: {{appId: {SAMPLE_APP}}}
                - tapOnElementBySelector: {{selector: {{textRegex: "(?i)\\\\Qforms\\\\E"}}}}
                - tapOnElementBySelector:
                    nodeSelector: {{androidAccessibility: {{resourceIdRegex: "n\\\\p{{Ll}}++_input"}}}}
                - inputText: {{text: Zoë}}
                - tapOnElementBySelector: {{nodeSelector: {{androidMaestro: {{textRegex: "S\\\\p{{Ll}}++"}}}}}}
          - verify: the result
            recording:
              android:
                - assertVisibleBySelector:
                    nodeSelector:
                      androidAccessibility: {{textRegex: "Name: \\\\p{{IsLatin}}{{3}}\\\\RE\\\\Qmail: \\\\E"}}
        """,
    )
    result = cli("run", "--json", "r.json")
    assert result.returncode == 0, result.output
    trail = result.json("r.json")["trails"][0]
    assert trail["status"] == "passed"


def test_a_java_class_with_no_equivalent_is_an_error_before_the_phone_is_touched(
    cli: CliRunner, adb: AdbHostStandIn, project: Project
) -> None:
    project.trail(
        "java-only",
        """
        trail:
          - step: tap
            recording:
              android:
                - tapOnElementBySelector: {selector: {textRegex: "\\\\p{javaJavaIdentifierStart}+"}}
        """,
    )
    result = cli("run", "--driver", "android")
    assert result.returncode == 3, result.output
    assert "java-only.trail.yaml:5:58: tapOnElementBySelector: selector.textRegex: invalid regex" in result.output
    assert "\\p{javaJavaIdentifierStart} is a Java-only class with no equivalent here" in result.output
    assert "Traceback" not in result.output


def test_no_adb_server_is_exit_2_and_no_daemon_is_started(cli: CliRunner, project: Project) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    form_project(project)
    env = {"ANDROID_ADB_SERVER_PORT": str(port), "ANDROID_ADB_SERVER_HOST": "127.0.0.1"}
    result = cli("run", env=env)
    assert result.returncode == 2, result.output
    assert f"no adb server at 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output
    listing = cli("devices", "--driver", "android", env=env)
    assert listing.returncode == 0
    assert f"android-uiautomator2: no adb server at 127.0.0.1:{port}" in listing.output


def test_devices_lists_the_phones(cli: CliRunner, adb: AdbHostStandIn) -> None:
    adb.add(FakeAndroid("tablet-1", model="Pixel Tablet", scale=2, density=160))
    result = cli("devices", "--driver", "android", "--json")
    assert result.returncode == 0, result.output
    assert json.loads(result.stdout) == [
        {
            "id": "emulator-5554",
            "platform": "android",
            "driver": "android-uiautomator2",
            "width": 1080,
            "height": 2400,
            "model": "Pixel 7",
            "classifiers": ["android-phone", "android"],
            "state": "available",
        },
        {
            "id": "tablet-1",
            "platform": "android",
            "driver": "android-uiautomator2",
            "width": 720,
            "height": 1600,
            "model": "Pixel Tablet",
            "classifiers": ["android-tablet", "android"],
            "state": "available",
        },
    ]
    plain = cli("devices", "--driver", "android")
    assert "emulator-5554  android  android-uiautomator2  1080x2400  Pixel 7  available" in plain.output


def test_two_phones_in_one_run(cli: CliRunner, adb: AdbHostStandIn, phone: FakeAndroid, project: Project) -> None:
    second = FakeAndroid("emulator-5556")
    adb.add(second)
    form_project(project)
    result = cli(
        "run", "--device", "emulator-5554", "--device", "emulator-5556", "--arg", "name=Bo", "--json", "r.json"
    )
    assert result.returncode == 0, result.output
    trails = result.json("r.json")["trails"]
    assert sorted((t["id"], t["device"], t["status"]) for t in trails) == [
        ("form", "emulator-5554", "passed"),
        ("form", "emulator-5556", "passed"),
    ]
    assert phone.app.ui.submitted == second.app.ui.submitted == ("Bo", "")


def test_all_devices_skips_the_ones_that_are_not_online(
    cli: CliRunner, adb: AdbHostStandIn, phone: FakeAndroid, project: Project
) -> None:
    offline = FakeAndroid("offline-1")
    offline.state = "offline"
    adb.add(offline)
    adb.add(FakeAndroid("emulator-5556"))
    form_project(project)
    result = cli("run", "--all-devices", "--json", "r.json")
    assert result.returncode == 0, result.output
    assert sorted(t["device"] for t in result.json("r.json")["trails"]) == ["emulator-5554", "emulator-5556"]


def test_a_phone_unplugged_mid_run_is_exit_2(
    cli_process: CliProcess, adb: AdbHostStandIn, phone: FakeAndroid, project: Project
) -> None:
    form_project(project)
    project.trail(
        "slow",
        f"""
        trail:
          - step: start
            recording:
              android: [{{launchApp: {{appId: {SAMPLE_APP}}}}}, {{wait: {{timeToWaitInSeconds: 1}}}}]
          - step: look
            recording:
              android: [{{tapOnElementWithText: {{text: Forms}}}}]
        """,
    )
    process = cli_process("run", "trails/slow.trail.yaml", "--json", "r.json", cwd=project.root, merge_stderr=True)
    started = ("shell", f"pm clear {SAMPLE_APP}; echo X4EXIT:$?")  # the trail is running: unplug now
    deadline = time.monotonic() + 120
    while started not in phone.calls and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert started in phone.calls, "the run never reached the phone"
    adb.unplug("emulator-5554")
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2, output
    trail = json.loads((project.root / "r.json").read_text())["trails"][0]
    assert trail["status"] == "error"
    assert "android device emulator-5554:" in trail["error"]
