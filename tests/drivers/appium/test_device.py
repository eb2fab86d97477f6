"""The appium driver in process against the stand-in Appium server: the device a session shows,
the page source fetched once per screen, the mobile primitives on W3C actions and `mobile:`
methods, a session per trail, and failures that name the server and mask its secrets."""

from __future__ import annotations

import base64
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.drivers.appium.conftest import open_driver, use_appium
from tests.standins.android_phone import FakeAndroid
from tests.standins.appium_server import AppiumStandIn
from tests.standins.fixtures import run
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import Project
from trailblaze.core.errors import InfrastructureError, ToolFailure, UsageError

SUBMIT = {"androidAccessibility": {"resourceIdRegex": ".*submit_button"}}
NAME_FIELD = {"androidAccessibility": {"resourceIdRegex": ".*name_input"}}


def still_forms(phone: FakeAndroid) -> None:
    """The Forms tab with the clock stopped: a screen that does not change by itself."""
    phone.app.launch(SAMPLE_APP, "Forms")
    phone.app.clock = lambda: 1e9


def _trail(title: str) -> Any:
    """What a device reads of a trail: its title."""
    return SimpleNamespace(title=title)


def test_a_session_tells_the_device(appium: AppiumStandIn, project: Project) -> None:
    use_appium(project, appium.url)

    async def main() -> None:
        device = await open_driver(project.root).open(None)
        try:
            info = device.device
            assert (info.id, info.platform, info.driver, info.width, info.height) == (
                "device-1",
                "android",
                "appium",
                1080,
                2400,
            )
            assert info.classifiers == ("android-phone", "android")  # 1080 px at 480 dpi: 360 dp
            assert info.model == "Pixel 7"
            session = await device.current_session()
            assert session is not None and session["id"] == appium.created[0][0]
        finally:
            await device.close()

    run(main())
    assert appium.sessions == {} and len(appium.deleted) == 1


def test_the_page_source_is_fetched_once_per_screen(
    appium: AppiumStandIn, phone: FakeAndroid, project: Project
) -> None:
    use_appium(project, appium.url)
    still_forms(phone)

    async def main() -> None:
        device = await open_driver(project.root).open(None)
        try:
            device._snapshot = None
            before = appium.source_requests()
            await device.assert_visible(selector={"androidAccessibility": {"textRegex": "Submit"}, "below": NAME_FIELD})
            assert appium.source_requests() - before == 1  # target, anchor and index from one source
            device._snapshot = None
            before = appium.source_requests()
            await device.tap(selector=SUBMIT)
            # one to find it, then two to see the screen settled (the same source twice)
            assert appium.source_requests() - before == 3
        finally:
            await device.close()

    run(main())
    assert phone.app.submissions == 1


def test_typing_keys_and_the_keyboard(appium: AppiumStandIn, phone: FakeAndroid, project: Project) -> None:
    use_appium(project, appium.url)
    still_forms(phone)

    async def main() -> None:
        device = await open_driver(project.root).open(None)
        try:
            await device.tap(selector=NAME_FIELD)
            await device.input_text("Adaa")
            await device.erase_text(1)
            assert phone.app.ui.name == "Ada"
            assert await device.hide_keyboard() is True
            assert await device.hide_keyboard() is False
            await device.tap(selector=NAME_FIELD)
            await device.erase_text()  # the whole field: the focused element cleared
            assert phone.app.ui.name == ""
            await device.press_back()
            await device.press_back()
            assert not phone.app.in_front
        finally:
            await device.close()

    run(main())
    executed = [r for r in appium.requests if r == ("POST", "/execute/sync")]
    assert executed and ("GET", "/element/active") in appium.requests


def test_apps_links_clipboard_permissions_and_airplane_mode(
    appium: AppiumStandIn, phone: FakeAndroid, project: Project
) -> None:
    use_appium(project, appium.url)

    async def main() -> None:
        device = await open_driver(project.root).open(None)
        try:
            phone.app.submissions = 3
            await device.launch_app(SAMPLE_APP)  # REINSTALL: data cleared
            assert phone.app.in_front and phone.app.submissions == 0
            await device.stop_app(SAMPLE_APP)
            assert not phone.app.running
            with pytest.raises(ToolFailure, match=r"launchApp com\.example\.nothing: "):
                await device.launch_app("com.example.nothing", "RESUME")
            await device.open_url("sampleapp://lists")
            assert phone.app.ui.tab == "Lists"
            with pytest.raises(ToolFailure, match=r"openUrl https://nowhere\.example"):
                await device.open_url("https://nowhere.example")
            await device.set_clipboard("héllo")
            assert await device.get_clipboard() == "héllo"
            await device.launch_app(SAMPLE_APP, permissions={"android.permission.CAMERA": "allow"})
            assert "android.permission.CAMERA" in phone.app.granted
            assert await device.set_airplane_mode(None) is True and phone.airplane_mode
            assert await device.app_state(SAMPLE_APP) == 4
        finally:
            await device.close()

    run(main())


def test_adb_shell_needs_the_servers_consent(phone: FakeAndroid, project: Project) -> None:
    async def shell(server: AppiumStandIn) -> dict[str, Any]:
        use_appium(project, server.url)
        device = await open_driver(project.root).open(None)
        try:
            result: dict[str, Any] = await device.adb_shell(["getprop", "ro.product.model"])
            return result
        finally:
            await device.close()

    with AppiumStandIn(phone) as server, pytest.raises(ToolFailure, match="--allow-insecure=uiautomator2:adb_shell"):
        run(shell(server))
    with AppiumStandIn(phone, adb_shell=True) as server:
        assert run(shell(server)) == {"output": "Pixel 7\n", "exitCode": 0}


def test_gestures_are_w3c_actions(appium: AppiumStandIn, phone: FakeAndroid, project: Project) -> None:
    use_appium(project, appium.url)
    still_forms(phone)

    async def main() -> None:
        device = await open_driver(project.root).open(None)
        try:
            await device.tap_point(540, 1200, long_press=True)
            await device.pinch(2.0)
            await device.swipe("UP")
        finally:
            await device.close()

    run(main())
    long_press, pinch, swipe = appium.actions
    assert [a["type"] for a in long_press[0]["actions"]] == ["pointerMove", "pointerDown", "pause", "pointerUp"]
    assert long_press[0]["actions"][2]["duration"] >= 500
    assert [source["id"] for source in pinch] == ["finger1", "finger2"]
    assert len(phone.gestures) == 1
    start, end = (swipe[0]["actions"][i] for i in (0, 2))
    assert start["x"] == end["x"] and start["y"] > end["y"]  # the finger goes up


def test_each_trail_has_its_own_session(appium: AppiumStandIn, project: Project) -> None:
    use_appium(project, appium.url)

    async def main() -> None:
        device = await open_driver(project.root).open(None)
        try:
            for title in ("first", "second"):
                trail = _trail(title)
                await device.start_trail(trail)
                await device.screen(fresh=True)
                await device.end_trail(trail)
                assert device.remote_session is not None and device.remote_session.name == title
            assert device.sessions.driver is None
        finally:
            await device.close()

    run(main())
    assert len(appium.created) == 2 and appium.deleted == [sid for sid, _ in appium.created]


def test_a_session_the_server_ends_fails_the_trail_and_not_the_next(appium: AppiumStandIn, project: Project) -> None:
    use_appium(project, appium.url)

    async def main() -> None:
        device = await open_driver(project.root).open(None)
        try:
            trail = _trail("cut short")
            await device.start_trail(trail)
            appium.end_sessions("Your plan's session limit was reached")
            with pytest.raises(InfrastructureError) as caught:
                await device.screen(fresh=True)
            assert f"appium device device-1 at {appium.url}: session " in str(caught.value)
            assert str(caught.value).endswith('is gone: "Your plan\'s session limit was reached"')
            with pytest.raises(InfrastructureError, match="the trail's session is gone"):  # no new session mid-trail
                await device.screen(fresh=True)
            await device.end_trail(trail)
            await device.start_trail(_trail("next"))
            assert (await device.screen(fresh=True)).nodes
        finally:
            await device.close()

    run(main())
    assert len(appium.created) == 2


def test_no_device_of_that_id_is_a_usage_error(appium: AppiumStandIn, project: Project) -> None:
    use_appium(project, appium.url, extra="devices:\n  - {appium:deviceName: Pixel 7}\n")
    with pytest.raises(UsageError, match="no device 'Pixel 9' in the appium: section \\(its devices: 'Pixel 7'"):
        run(open_driver(project.root).open("Pixel 9"))
    device = run(open_driver(project.root).open("pixel 7"))  # any case
    run(device.close())


def test_secrets_never_reach_the_clients_log(
    phone: FakeAndroid, project: Project, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BS_ACCESS_KEY", "log-secret-9a8b")
    caps = (
        "platformName: Android\nappium:automationName: UiAutomator2\nbstack:options: {accessKey: '${BS_ACCESS_KEY}'}\n"
    )
    with AppiumStandIn(phone) as server, caplog.at_level(logging.DEBUG):
        use_appium(project, server.url, caps)
        run(run_and_close(project.root))
    assert "log-secret-9a8b" not in caplog.text
    assert "accessKey" in caplog.text  # the request was logged, masked


async def run_and_close(root: Path) -> None:
    device = await open_driver(root).open(None)
    await device.close()


def test_the_screenshot_is_the_servers_png(appium: AppiumStandIn, project: Project) -> None:
    use_appium(project, appium.url)

    async def main() -> bytes:
        device = await open_driver(project.root).open(None)
        try:
            state = await device.capture_screen()
            assert state.image_format == "png"
            assert state.screenshot is not None
            return state.screenshot
        finally:
            await device.close()

    assert run(main()).startswith(base64.b64decode("iVBORw0KGgo="))
