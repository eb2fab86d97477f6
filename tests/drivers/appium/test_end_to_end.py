"""`trailblaze run --driver appium` and `trailblaze devices --driver appium` in a subprocess, against
the stand-in Appium server: whole trails that type and check, one session per trail, a cloud's
conventions, sharding over capability sets, and what goes wrong (a hub that does not answer,
capabilities it refuses, credentials it quotes back, a session it ends mid-trail, Ctrl-C)."""

from __future__ import annotations

import json
import signal
import socket
import time

import pytest

from tests.drivers.appium.conftest import use_appium
from tests.standins.android_phone import FakeAndroid
from tests.standins.appium_server import AppiumStandIn
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import CliProcess, CliRunner, Project

FORM = f"""
config:
  title: Send the form
  devices: {{android: appium}}
trail:
  - step: open the form and type
    recording:
      android:
        - launchApp: {{appId: {SAMPLE_APP}, launchMode: FORCE_RESTART}}
        - tapOnElementWithText: {{text: Forms}}
        - tapOnElementBySelector: {{nodeSelector: {{androidAccessibility: {{resourceIdRegex: ".*name_input"}}}}}}
        - inputText: {{text: Ada}}
        - tapOnElementBySelector: {{nodeSelector: {{androidAccessibility: {{resourceIdRegex: ".*email_input"}}}}}}
        - inputText: {{text: ada@example.com}}
        - tapOnElementWithText: {{text: Submit}}
  - verify: the form shows what was typed
    recording:
      android-phone:
        - assertVisibleBySelector:
            nodeSelector: {{androidAccessibility: {{textRegex: "Name: Ada\\\\nEmail: ada@example.com"}}}}
"""
FAILING = f"""
config:
  title: Look for what is not there
  devices: {{android: appium}}
trail:
  - step: open the app
    recording:
      android:
        - launchApp: {{appId: {SAMPLE_APP}, launchMode: FORCE_RESTART}}
  - verify: a button that does not exist
    recording:
      android:
        - assertVisibleWithText: {{text: Checkout, timeoutMs: 300}}
"""
BROWSERSTACK = """\
    platformName: Android
    appium:automationName: UiAutomator2
    bstack:options: {userName: "${BS_USER}", accessKey: "${BS_ACCESS_KEY}"}
"""
CREDENTIALS = {"BS_USER": "ada", "BS_ACCESS_KEY": "right-key-7f3a"}


def test_a_trail_types_and_checks_through_appium(
    cli: CliRunner, appium: AppiumStandIn, phone: FakeAndroid, project: Project
) -> None:
    use_appium(project, appium.url)
    project.trail("form", FORM)
    result = cli("run", "--json", "r.json")
    assert result.returncode == 0, result.output
    assert phone.app.submissions == 1
    trail = result.json("r.json")["trails"][0]
    assert (trail["status"], trail["driver"], trail["device"]) == ("passed", "appium", "device-1")
    ((sid, _),) = appium.created
    assert trail["remote_session"] == {
        "id": sid,
        "service": "appium",
        "hub": appium.url,
        "url": None,
        "name": "Send the form",
    }
    assert appium.deleted == [sid] and appium.sessions == {}
    assert ("POST", "/actions") in appium.requests
    assert ("GET", "/element/active") not in appium.requests  # UiAutomator2 types with mobile: type


def test_each_trail_gets_a_session_named_after_it_and_the_cloud_hears_how_it_went(
    cli: CliRunner, phone: FakeAndroid, project: Project
) -> None:
    with AppiumStandIn(phone, credentials=("ada", "right-key-7f3a")) as hub:
        use_appium(project, hub.url, BROWSERSTACK, "cloud: browserstack\nreport_status: true\n")
        project.trail("a-form", FORM)
        project.trail("b-missing", FAILING)
        result = cli("run", "--json", "r.json", env=CREDENTIALS)
        assert result.returncode == 1, result.output
        (first, first_caps), (second, second_caps) = hub.created
        assert "sessionName" not in first_caps["bstack:options"]  # opened before the device knew its trail
        assert second_caps["bstack:options"]["sessionName"] == "Look for what is not there"
        assert hub.deleted == [first, second]
        said = [(sid, json.loads(script.partition(": ")[2])) for sid, script in hub.scripts]
        assert said[0] == (first, {"action": "setSessionName", "arguments": {"name": "Send the form"}})
        assert said[1] == (first, {"action": "setSessionStatus", "arguments": {"status": "passed"}})
        assert said[2][0] == second
        assert said[2][1]["arguments"]["status"] == "failed"
        assert "Checkout" in said[2][1]["arguments"]["reason"]
        trails = {t["id"]: t for t in result.json("r.json")["trails"]}
        assert trails["a-form"]["remote_session"]["url"] == (
            f"https://app-automate.browserstack.com/dashboard/v2/sessions/{first}"
        )
        assert trails["b-missing"]["remote_session"]["id"] == second
        assert "right-key-7f3a" not in result.output + (project.root / "r.json").read_text()


def test_pass_and_fail_are_not_sent_unless_asked(cli: CliRunner, appium: AppiumStandIn, project: Project) -> None:
    use_appium(project, appium.url, extra="cloud: saucelabs\n")
    project.trail("form", FORM)
    assert cli("run").returncode == 0
    assert [script for _, script in appium.scripts] == ["sauce:job-name=Send the form"]


def test_devices_lists_the_capability_sets_and_shards_run_over_them(cli: CliRunner, project: Project) -> None:
    phones = (FakeAndroid("cloud-1"), FakeAndroid("cloud-2"))
    with AppiumStandIn(phones[0], more_phones=phones[1:]) as hub:
        devices = "devices:\n  - {appium:deviceName: Pixel 7, appium:platformVersion: '14'}\n"
        use_appium(project, hub.url, extra=devices + "  - {appium:deviceName: Pixel 7, appium:platformVersion: '14'}\n")
        listing = cli("devices", "--driver", "appium", "--json")
        assert listing.returncode == 0, listing.output
        assert [(d["id"], d["model"], d["state"]) for d in json.loads(listing.stdout)] == [
            ("Pixel 7 14", "Pixel 7 14", "available"),
            ("Pixel 7 14 #2", "Pixel 7 14", "available"),
        ]
        project.trail("form", FORM)
        project.trail("form-again", FORM.replace("Send the form", "Send it again"))
        result = cli("run", "--shard-split", "2", "--json", "r.json")
        assert result.returncode == 0, result.output
        assert sorted(t["device"] for t in result.json("r.json")["trails"]) == ["Pixel 7 14", "Pixel 7 14 #2"]
        assert [p.app.submissions for p in phones] == [1, 1]
        result = cli("run", "--all-devices", "--device", "Pixel 7 14 #2", "--json", "r.json")
        assert result.returncode == 3  # --all-devices and --device exclude each other
        result = cli("run", "--device", "Pixel 7 14 #2", "--json", "r.json")
        assert result.returncode == 0, result.output
        assert {t["device"] for t in result.json("r.json")["trails"]} == {"Pixel 7 14 #2"}
        assert hub.sessions == {}


def test_a_hub_that_does_not_answer_is_exit_2_naming_it(cli: CliRunner, project: Project) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    use_appium(project, url)
    project.trail("form", FORM)
    result = cli("run")
    assert result.returncode == 2, result.output
    assert f"the Appium server at {url} does not answer (connection refused)" in result.output
    assert "Traceback" not in result.output
    listing = cli("devices", "--driver", "appium", "--json")
    assert [d["state"] for d in json.loads(listing.stdout)] == ["unreachable (connection refused)"]


def test_capabilities_the_hub_refuses_are_exit_2_quoting_it(
    cli: CliRunner, appium: AppiumStandIn, project: Project
) -> None:
    use_appium(project, appium.url, "platformName: Android\nappium:automationName: Espresso\n")
    project.trail("form", FORM)
    result = cli("run")
    assert result.returncode == 2, result.output
    assert (
        f'the Appium server at {appium.url} refused a session for device-1: "A new session could not be'
        in result.output
    )


def test_credentials_a_hub_quotes_back_are_masked(cli: CliRunner, phone: FakeAndroid, project: Project) -> None:
    wrong = {"BS_USER": "ada", "BS_ACCESS_KEY": "wrong-key-5c1d"}
    with AppiumStandIn(phone, credentials=("ada", "right-key-7f3a")) as hub:
        use_appium(project, hub.url, BROWSERSTACK)
        project.trail("form", FORM)
        result = cli("run", "--json", "r.json", "--junit", "r.xml", env=wrong)
        assert result.returncode == 2, result.output
        assert f'the Appium server at {hub.url} refused a session for device-1: "' in result.output
        assert "Invalid username or access key: ***:*** was not found" in result.output
        written = "".join((project.root / name).read_text() for name in ("r.json", "r.xml"))
        assert "wrong-key-5c1d" not in result.output + written


def test_credentials_in_the_hubs_url_go_as_basic_auth_and_stay_out_of_reports(
    cli: CliRunner, phone: FakeAndroid, project: Project
) -> None:
    with AppiumStandIn(phone, credentials=("ada", "right-key-7f3a")) as hub:
        use_appium(project, f"http://${{HUB_USER}}:${{HUB_KEY}}@127.0.0.1:{hub.port}/wd/hub")
        project.trail("form", FORM)
        result = cli("run", "--json", "r.json", env={"HUB_USER": "ada", "HUB_KEY": "right-key-7f3a"})
        assert result.returncode == 0, result.output
        assert result.json("r.json")["trails"][0]["remote_session"]["hub"] == f"{hub.url}/wd/hub"
        result = cli("run", "--json", "r.json", env={"HUB_USER": "ada", "HUB_KEY": "wrong-key-5c1d"})
        assert result.returncode == 2, result.output
        assert f"the Appium server at {hub.url}/wd/hub refused the credentials for device-1" in result.output
        assert "wrong-key-5c1d" not in result.output + (project.root / "r.json").read_text()


def test_a_session_the_cloud_ends_mid_trail_is_exit_2_quoting_it(
    cli: CliRunner, appium: AppiumStandIn, phone: FakeAndroid, project: Project
) -> None:
    appium.ending = ("POST", "/execute/sync", "Session timed out after 90s of inactivity (BROWSERSTACK_IDLE_TIMEOUT)")
    use_appium(project, appium.url)
    project.trail("a-form", FORM)
    project.trail("b-form-again", FORM.replace("Send the form", "Send it again"))
    result = cli("run", "--json", "r.json")
    assert result.returncode == 2, result.output
    first, second = result.json("r.json")["trails"]
    assert first["status"] == "error"
    assert f"appium device device-1 at {appium.url}: session " in first["error"]
    assert 'is gone: "Session timed out after 90s of inactivity (BROWSERSTACK_IDLE_TIMEOUT)"' in first["error"]
    assert second["status"] == "passed"  # the next trail gets a new session
    assert len(appium.created) == 2 and appium.sessions == {}


def test_a_variable_that_is_not_set_is_exit_3_at_its_line(
    cli: CliRunner, appium: AppiumStandIn, project: Project
) -> None:
    use_appium(project, appium.url, BROWSERSTACK)
    project.trail("form", FORM)
    result = cli("run", env={"BS_USER": "ada"})
    assert result.returncode == 3, result.output
    assert "trailblaze.yaml:7:" in result.output
    assert "${BS_ACCESS_KEY} is not set in the environment" in result.output


def test_both_platforms_in_one_section_are_refused_when_the_file_loads(cli: CliRunner, project: Project) -> None:
    project.write(
        "trailblaze.yaml",
        "appium:\n  devices:\n    - {platformName: Android}\n    - {platformName: iOS}\n",
    )
    result = cli("validate")
    assert result.returncode == 3, result.output
    assert "both Android and iOS" in result.output


@pytest.mark.slow
def test_ctrl_c_deletes_the_session(cli_process: CliProcess, appium: AppiumStandIn, project: Project) -> None:
    use_appium(project, appium.url)
    project.trail(
        "waits",
        "config: {devices: {android: appium}}\ntrail:\n  - step: wait for what never comes\n"
        "    recording:\n      android:\n        - assertVisibleWithText: {text: Never, timeoutMs: 60000}\n",
    )
    proc = cli_process("run", cwd=project.root, session=True)
    deadline = time.monotonic() + 60
    while appium.source_requests() < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # polling for the session to start, not timing anything
    assert appium.sessions, "the trail never started"
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    assert appium.sessions == {} and appium.deleted == [appium.created[0][0]]


def test_maestro_commands_scrolling_and_a_failed_steps_source(
    cli: CliRunner, appium: AppiumStandIn, phone: FakeAndroid, project: Project
) -> None:
    use_appium(project, appium.url, extra="devices:\n  - {appium:deviceName: Pixel 7}\n")
    project.trail(
        "maestro",
        f"""
        config: {{devices: {{android: appium}}}}
        trail:
          - step: fill the form the Maestro way
            recording:
              android:
                - mobile_maestro:
                    commands:
                      - launchApp: {{appId: {SAMPLE_APP}, stopApp: true}}
                      - tapOn: Forms
                      - tapOn: {{id: name_input}}
                      - inputText: Grace
                      - hideKeyboard
                      - tapOn: Submit
                      - extendedWaitUntil: {{visible: "Name: Grace.*", timeout: 5000}}
          - step: scroll the list to its 30th item
            recording:
              android:
                - tapOnElementWithText: {{text: Lists}}
                - scrollUntilTextIsVisible: {{text: Item 30}}
          - verify: something that is not there
            recording:
              android:
                - assertVisibleWithText: {{text: Item 99, timeoutMs: 200}}
        """,
    )
    result = cli("run", "--json", "r.json")
    assert result.returncode == 1, result.output
    trail = result.json("r.json")["trails"][0]
    assert [s["status"] for s in trail["steps"]] == ["passed", "passed", "failed"]
    assert phone.app.submissions == 1 and phone.app.ui.list_offset > 0
    sources = [a["path"] for a in trail["steps"][2]["artifacts"] if a["path"].endswith(".source.xml")]
    artifacts = project.root / result.json("r.json")["artifacts_dir"]
    assert "<hierarchy" in (artifacts / sources[0]).read_text()
    assert any(
        len(sequence[0]["actions"]) == 4 and sequence[0]["actions"][2]["type"] == "pointerMove"
        for sequence in appium.actions
    )
