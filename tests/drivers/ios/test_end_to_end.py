"""`trailblaze run … --driver ios --device URL` and `trailblaze devices` in a subprocess, against
the stand-in WebDriverAgent."""

from __future__ import annotations

import json
import socket

from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import FakeIphone, WdaStandIn
from tests.support.cli import CliRunner, Project

TRAIL = f"""
config:
  devices: {{ios-iphone: IOS_HOST}}
trail:
  - step: open the form and submit
    recording:
      ios:
        - launchApp: {{appId: {SAMPLE_APP}, launchMode: FORCE_RESTART}}
        - tapOnElementWithText: {{text: Forms}}
        - tapOnElementBySelector: {{nodeSelector: {{iosMaestro: {{resourceIdRegex: email_input}}}}}}
        - inputText: {{text: a@b.c}}
        - tapOnElementWithText: {{text: Submit}}
  - verify: the result
    recording:
      ios-iphone:
        - assertVisibleBySelector: {{nodeSelector: {{iosMaestro: {{textRegex: "Name: \\nEmail: a@b.c"}}}}}}
"""


def test_an_ios_trail_through_the_cli(
    cli: CliRunner, wda_server: WdaStandIn, iphone: FakeIphone, project: Project
) -> None:
    project.trail("ios-form", TRAIL)
    result = cli("run", "--driver", "ios", "--device", wda_server.url, "--json", "r.json")
    assert result.returncode == 0, result.output
    trail = result.json("r.json")["trails"][0]
    assert (trail["status"], trail["driver"], trail["device"]) == ("passed", "ios-wda", wda_server.url)
    assert iphone.app.submissions == 1


def test_patterns_in_javas_syntax_match_on_the_iphone(
    cli: CliRunner, wda_server: WdaStandIn, iphone: FakeIphone, project: Project
) -> None:
    java = (
        TRAIL.replace("{text: Forms}", '{text: "\\\\QForms\\\\E"}')
        .replace("resourceIdRegex: email_input", 'resourceIdRegex: "\\\\p{Ll}++_input(?<!name_input)"')
        .replace('"Name: \\nEmail: a@b.c"', '"\\\\QName: \\\\E\\\\REmail: \\\\p{Alnum}@b\\\\.c"')
    )
    assert java.count("\\\\") == 8
    project.trail("ios-form", java)
    result = cli("run", "--driver", "ios", "--device", wda_server.url)
    assert result.returncode == 0, result.output
    assert iphone.app.submissions == 1


def test_wda_url_picks_the_endpoint_and_devices_lists_it(
    cli: CliRunner, wda_server: WdaStandIn, project: Project
) -> None:
    project.trail("ios-form", TRAIL)
    result = cli("run", "--driver", "IOS_HOST", env={"WDA_URL": wda_server.url})
    assert result.returncode == 0, result.output
    listing = cli("devices", "--driver", "ios", "--json", env={"WDA_URL": wda_server.url})
    assert json.loads(listing.stdout) == [
        {
            "id": wda_server.url,
            "platform": "ios",
            "driver": "ios-wda",
            "width": 0,
            "height": 0,
            "model": "iphone iOS 17.5",
            "classifiers": ["ios-iphone", "ios"],
            "state": "available",
        }
    ]


def test_an_unreachable_webdriveragent_is_exit_2(cli: CliRunner, project: Project) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    project.trail("ios-form", TRAIL)
    result = cli("run", "--driver", "ios", "--device", url)
    assert result.returncode == 2, result.output
    assert f"WebDriverAgent at {url} is unreachable (ConnectionRefusedError" in result.output
    assert "Traceback" not in result.output


def test_a_device_id_that_is_not_a_url_is_exit_3(cli: CliRunner, project: Project) -> None:
    project.trail("ios-form", TRAIL)
    result = cli("run", "--driver", "ios", "--device", "iPhone-15")
    assert result.returncode == 3, result.output
    assert "'iPhone-15' is not a WebDriverAgent URL" in result.output


def test_devices_says_how_to_name_a_webdriveragent_when_none_is(cli: CliRunner, project: Project) -> None:
    result = cli("devices", "--driver", "ios", env={"WDA_URL": ""})  # it used to print nothing at all
    assert result.returncode == 0, result.output
    assert result.stdout == (
        "ios-wda: no WebDriverAgent named: set WDA_URL=http://HOST:8100 (several: comma-separated), or device: or "
        "ios: devices: in trailblaze.yaml; starting WebDriverAgent is up to you (Xcode, Appium, tidevice)\n"
    )
    listing = cli("devices", "--driver", "ios", "--json", env={"WDA_URL": ""})
    assert json.loads(listing.stdout) == []
    assert listing.stderr.startswith("note: ios-wda: no WebDriverAgent named")
