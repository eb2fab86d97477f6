"""The appium driver against a real Appium 3 server with its fake driver (npm ``appium`` and
``@appium/fake-driver`` from tests/drivers/appium/peers, installed by ``make peers``), which
serves an XML file as the app's page source: a UiAutomator2-shaped one and an XCUITest-shaped
one (tests/drivers/appium/fake_apps). Covered: ``/status``, session creation with capabilities
and refused capabilities, the page source of both shapes (the platform read from it, since the
fake's ``platformName`` is neither), W3C actions (the fake keeps a log of them), element
commands (typing falls back to them where a driver has no ``mobile: type`` and no focused
element), screenshots, and every session deleted.

One server for the module: it takes seconds to start."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.drivers.appium.conftest import open_driver, use_appium
from tests.standins.fixtures import run
from tests.support.cli import CliRunner, Project

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
PEERS = HERE / "peers"
APPS = HERE / "fake_apps"


def fake_caps(app: str) -> str:
    return f"platformName: Fake\nappium:automationName: Fake\nappium:deviceName: Fake Phone\nappium:app: {APPS / app}\n"


@pytest.fixture(scope="module")
def appium_server() -> Iterator[str]:
    """A real Appium server on a free port, with APPIUM_HOME at the peers folder (where the fake
    driver is installed); fails (not skips) when the peers are missing, since CI must notice."""
    binary = PEERS / "node_modules" / ".bin" / "appium"
    if not (binary.exists() and (PEERS / "node_modules" / "@appium" / "fake-driver").is_dir()):
        pytest.fail(
            "Appium and its fake driver are not installed: `make peers` (npm ci --prefix tests/drivers/appium/peers)"
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "APPIUM_HOME": str(PEERS), "NO_COLOR": "1"}
    command = [str(binary), "--address", "127.0.0.1", "--port", str(port), "--log-level", "error", "--log-no-colors"]
    command.append("--allow-insecure=*:session_discovery")  # GET /appium/sessions: what is still open
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while True:  # waiting for the server to listen, not timing it
            try:
                if httpx.get(f"{url}/status", timeout=2).json()["value"]["ready"]:
                    break
            except (httpx.HTTPError, ValueError, KeyError):
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Appium did not start: {server.stderr.read() if server.stderr else ''}")
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stderr is not None:
            server.stderr.close()


def open_sessions(url: str) -> list[Any]:
    value: list[Any] = httpx.get(f"{url}/appium/sessions", timeout=10).json()["value"]
    return value


def test_devices_and_doctor_read_the_servers_status(cli: CliRunner, appium_server: str, project: Project) -> None:
    use_appium(project, appium_server, fake_caps("shop-android.xml"))
    listing = cli("devices", "--driver", "appium", "--json")
    assert listing.returncode == 0, listing.output
    (device,) = json.loads(listing.stdout)
    assert (device["id"], device["driver"], device["state"]) == ("Fake Phone", "appium", "available")


def test_trails_on_a_uiautomator2_shaped_source(cli: CliRunner, appium_server: str, project: Project) -> None:
    use_appium(project, appium_server, fake_caps("shop-android.xml"))
    project.trail(
        "sign-in",
        """
        config: {title: Sign in, devices: {android: appium}}
        trail:
          - step: sign in
            recording:
              android:
                - assertVisibleWithText: {text: Welcome to the shop}
                - tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: ".*sign_in"}}}
          - verify: the name field asks for a name
            recording:
              android:
                - assertVisibleBySelector: {nodeSelector: {androidAccessibility: {hintTextRegex: Your name}}}
        """,
    )
    project.trail(
        "checkout",
        """
        config: {title: Check out, devices: {android: appium}}
        trail:
          - verify: a checkout button
            recording:
              android:
                - assertVisibleWithText: {text: Checkout, timeoutMs: 300}
        """,
    )
    result = cli("run", "--json", "r.json")
    assert result.returncode == 1, result.output
    trails = {t["id"]: t for t in result.json("r.json")["trails"]}
    assert trails["sign-in"]["status"] == "passed", trails["sign-in"]["error"]
    assert trails["checkout"]["status"] == "failed"
    evidence = [a["path"] for a in trails["checkout"]["steps"][0]["artifacts"] if a["kind"] == "screenshot"]
    artifacts = Path(result.json("r.json")["artifacts_dir"])
    folder = artifacts if artifacts.is_absolute() else project.root / artifacts
    assert (folder / evidence[0]).read_bytes().startswith(b"\x89PNG")
    assert trails["sign-in"]["remote_session"]["id"] != trails["checkout"]["remote_session"]["id"]
    assert trails["sign-in"]["remote_session"]["service"] == "appium"
    assert open_sessions(appium_server) == []


def test_an_xcuitest_shaped_source_is_ios_and_actions_reach_the_server(appium_server: str, project: Project) -> None:
    use_appium(project, appium_server, fake_caps("shop-ios.xml"))

    async def main() -> tuple[Any, ...]:
        device = await open_driver(project.root).open(None)
        try:
            info = device.device
            await device.tap(text="Sign in")
            await device.input_text("Ada")  # the fake has no focused element: the field is found by its id
            client = device.sessions.driver
            logged = client.execute("getLog", {"type": "actions"})["value"]
            typed = client.find_element("accessibility id", "name_field").text
            return info, logged, typed
        finally:
            await device.close()

    info, logged, typed = run(main())
    assert (info.platform, info.width, info.height) == ("ios", 390, 844)
    assert info.classifiers == ("ios-iphone", "ios")
    (sequence,) = logged
    (finger,) = sequence
    assert finger["actions"][0] == {"type": "pointerMove", "duration": 0, "x": 195, "y": 225}  # the button's centre
    assert [a["type"] for a in finger["actions"][1:]] == ["pointerDown", "pause", "pointerUp"]
    assert typed == "Ada"
    assert open_sessions(appium_server) == []


def test_typing_on_the_uiautomator2_shape_falls_back_to_the_element(appium_server: str, project: Project) -> None:
    use_appium(project, appium_server, fake_caps("shop-android.xml"))

    async def main() -> tuple[str, bytes]:
        device = await open_driver(project.root).open(None)
        try:
            assert device.device.platform == "android" and device.device.classifiers == ("android",)
            await device.input_text("Grace")
            field = device.sessions.driver.find_element("id", "com.example.shop:id/name")
            state = await device.capture_screen()
            assert state.screenshot is not None
            return field.text, state.screenshot
        finally:
            await device.close()

    typed, screenshot = run(main())
    assert typed == "Grace"
    assert screenshot.startswith(b"\x89PNG")
    assert open_sessions(appium_server) == []


def test_capabilities_no_driver_takes_are_exit_2(cli: CliRunner, appium_server: str, project: Project) -> None:
    use_appium(project, appium_server, "platformName: Android\nappium:automationName: UiAutomator2\n")
    trail = "config: {devices: {android: appium}}\ntrail:\n  - step: back\n    recording: {android: [pressBack: {}]}\n"
    project.trail("any", trail)
    result = cli("run")
    assert result.returncode == 2, result.output
    assert f'the Appium server at {appium_server} refused a session for device-1: "' in result.output
    assert open_sessions(appium_server) == []
