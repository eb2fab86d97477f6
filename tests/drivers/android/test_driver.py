"""The android-uiautomator2 driver: the real uiautomator2 and adbutils against the stand-in adb
server and phone (tests/standins/)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.fixtures import run
from tests.standins.sample_app import CRASHING_APP, SAMPLE_APP
from trailblaze.api.driver import DriverOptions
from trailblaze.core.errors import InfrastructureError, ToolFailure, UsageError
from trailblaze.drivers.android.device import AndroidDevice
from trailblaze.drivers.android.driver import AndroidDriver, classify
from trailblaze.drivers.android.shell import screen_metrics
from trailblaze.drivers.mobile import settings as mobile_settings

FORMS_TAB = {"containsChild": {"textRegex": "Forms"}}


@asynccontextmanager
async def android(serial: str | None = None, **options: Any) -> AsyncIterator[AndroidDevice]:
    """A device on the stand-in phone; ``options`` are the driver's own (``settle_timeout``) and ``timeout``."""
    timeout = options.pop("timeout", 3.0)
    device = await AndroidDriver(DriverOptions(timeout=timeout), **options).open(serial)
    try:
        yield device
    finally:
        await device.close()


def on_device(
    scenario: Callable[[AndroidDevice], Coroutine[Any, Any, Any]], serial: str | None = None, **options: Any
) -> Any:
    async def main() -> Any:
        async with android(serial, **options) as device:
            return await scenario(device)

    return run(main())


async def open_forms(device: AndroidDevice) -> None:
    await device.launch_app(SAMPLE_APP)
    await device.tap(selector=FORMS_TAB)


# -- connecting ---------------------------------------------------------------------------------------


def test_the_only_device_is_the_default_and_uiautomator2_gets_started(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    async def check(device: AndroidDevice) -> None:
        assert device.device.id == "emulator-5554"
        assert (device.device.width, device.device.height, device.device.model) == (1080, 2400, "Pixel 7")
        assert device.device.classifiers == ("android-phone", "android")
        assert phone.u2_running

    on_device(check)
    assert "/data/local/tmp/u2.jar" in phone.files
    assert not phone.u2_running  # closing the session stops uiautomator2's server again


def test_a_tablet_is_classified_by_its_smallest_width(adb: AdbHostStandIn) -> None:
    adb.add(FakeAndroid("tablet-1", model="Pixel Tablet", scale=2, density=160))

    async def check(device: AndroidDevice) -> None:
        assert device.device.classifiers == ("android-tablet", "android")

    on_device(check, "tablet-1")


def test_serial_comes_from_device_option_then_android_serial(
    adb: AdbHostStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    adb.add(FakeAndroid("second"))

    async def serial(device: AndroidDevice) -> str:
        return device.device.id

    with pytest.raises(UsageError, match=r"several Android devices are online \(emulator-5554 \(device\), second"):
        on_device(serial)
    assert on_device(serial, "second") == "second"
    monkeypatch.setenv("ANDROID_SERIAL", "second")
    assert on_device(serial) == "second"


def test_unknown_offline_and_missing_devices(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    with pytest.raises(InfrastructureError, match=r"'nope' is not at the adb server .*emulator-5554 \(device\)"):
        on_device(lambda d: asyncio.sleep(0), "nope")
    phone.state = "unauthorized"
    with pytest.raises(InfrastructureError, match="emulator-5554 is unauthorized — accept the USB debugging prompt"):
        on_device(lambda d: asyncio.sleep(0), "emulator-5554")
    adb.unplug("emulator-5554")
    with pytest.raises(InfrastructureError, match="no Android device online"):
        on_device(lambda d: asyncio.sleep(0))


def test_devices_lists_every_device_with_its_state(adb: AdbHostStandIn) -> None:
    adb.add(FakeAndroid("tablet-1", model="Pixel Tablet", scale=2, density=160))
    offline = FakeAndroid("offline-1")
    offline.state = "offline"
    adb.add(offline)
    rows = run(AndroidDriver(DriverOptions()).devices())
    summary = [(d.id, d.state, d.width, d.height, d.model, d.classifiers) for d in rows]
    assert summary == [
        ("emulator-5554", "available", 1080, 2400, "Pixel 7", ("android-phone", "android")),
        ("tablet-1", "available", 720, 1600, "Pixel Tablet", ("android-tablet", "android")),
        ("offline-1", "offline", 0, 0, "Pixel 7", ("android",)),
    ]


def test_screen_metrics_prefer_the_override() -> None:
    output = "Physical size: 1080x2400\nOverride size: 720x1600\nPhysical density: 420\nOverride density: 320\n"
    assert screen_metrics(output) == (720, 1600, 320)
    assert classify(1080, 2400, 420) == ("android-phone", "android")
    assert classify(0, 0, 0) == ("android",)


# -- apps -----------------------------------------------------------------------------------------------


def test_launch_modes(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    app = phone.app

    async def scenario(device: AndroidDevice) -> list[tuple[str, int, str]]:
        seen = []

        async def state() -> tuple[str, int, str]:
            screen = await device.screen(fresh=True)
            field = screen.target(id="name_input")
            return (app.ui.tab, app.submissions, field.text or "" if field else "")

        await open_forms(device)
        await device.tap(selector={"containsChild": {"textRegex": "Name"}})
        await device.input_text("Ada")
        await device.tap(selector={"containsChild": {"textRegex": "Submit"}})
        seen.append(await state())
        await device.press_home()
        await device.launch_app(SAMPLE_APP, "RESUME")  # as it was
        seen.append(await state())
        await device.launch_app(SAMPLE_APP, "FORCE_RESTART")  # a fresh start, data kept
        seen.append(await state())
        await device.launch_app(SAMPLE_APP)  # REINSTALL: data cleared
        seen.append(await state())
        return seen

    assert on_device(scenario) == [("Forms", 1, "Ada"), ("Forms", 1, "Ada"), ("Home", 1, ""), ("Home", 0, "")]


def test_an_app_that_never_reaches_the_front_fails_the_launch(adb: AdbHostStandIn) -> None:
    """`am start` says nothing when the app dies at once; the window with focus does."""

    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app(CRASHING_APP, "FORCE_RESTART")

    start = time.monotonic()
    with pytest.raises(ToolFailure, match=r"did not come to the front within 1s \(com.android.launcher3 has focus"):
        on_device(scenario, timeout=1.0)
    assert time.monotonic() - start < 30  # a bound on a hang: the launch gave up


def test_launching_an_app_that_is_not_installed(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app("com.example.absent", "RESUME")

    with pytest.raises(ToolFailure, match="no such app on emulator-5554"):
        on_device(scenario)


def test_stop_clear_open_url_and_permissions(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        await device.grant_permission(SAMPLE_APP, "android.permission.CAMERA")
        await device.launch_app(SAMPLE_APP, "FORCE_RESTART")
        await device.assert_visible(text="Camera: granted")
        with pytest.raises(ToolFailure, match=r"has not requested permission android\.permission\.READ_SMS"):
            await device.grant_permission(SAMPLE_APP, "android.permission.READ_SMS")
        await device.stop_app(SAMPLE_APP)
        assert await device.current_app() == "com.android.launcher3"
        await device.open_url("sampleapp://lists")
        await device.assert_visible(text="Item 1")
        with pytest.raises(ToolFailure, match="unable to resolve Intent"):
            await device.open_url("nowhere://at-all")
        await device.clear_app_data(SAMPLE_APP)
        assert not phone.app.running
        with pytest.raises(ToolFailure, match=r"clearing the data of com\.example\.absent failed"):
            await device.clear_app_data("com.example.absent")

    on_device(scenario)


def test_shell_install_and_uninstall(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    apk = tmp_path / "new.apk"
    apk.write_bytes(b"FAKEAPK:com.example.new")
    broken = tmp_path / "broken.apk"
    broken.write_bytes(b"not an apk")

    async def scenario(device: AndroidDevice) -> dict[str, Any]:
        await device.install_app(str(apk))
        with pytest.raises(ToolFailure, match="INSTALL_PARSE_FAILED_NOT_APK"):
            await device.install_app(str(broken))
        listing = await device.adb_shell(["pm", "list", "packages"])
        await device.uninstall_app("com.example.new")
        return listing

    listing = on_device(scenario)
    assert listing["exitCode"] == 0
    assert "package:com.example.new" in listing["output"]
    assert "com.example.new" not in phone.app.installed
    assert not any(path.startswith("/data/local/tmp/trailblaze-") for path in phone.files)


def test_the_log_since_a_moment(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    phone.add_log("Old", "before", at=1_700_000_000.0)
    phone.add_log("New", "after\nand its second line", "W", at=1_700_000_100.25)

    async def scenario(device: AndroidDevice) -> tuple[list[str], list[str]]:
        return await device.log_lines(1_700_000_050.0), await device.log_lines()

    since, everything = on_device(scenario)
    assert since == [
        "   1700000100.250  4242  4242 W New     : after",
        "   1700000100.250  4242  4242 W New     : and its second line",
    ]
    assert len(everything) == 3 and everything[0].endswith("I Old     : before")


def test_a_log_the_device_cannot_dump_is_a_failure_not_lines(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    """The shell's "logcat: not found" comes back with exit code 127: that is no log line."""
    phone.missing_commands.add("logcat")

    async def scenario(device: AndroidDevice) -> None:
        with pytest.raises(ToolFailure, match=r"logcat failed on the device \(exit code 127\): .*logcat: not found"):
            await device.log_lines()

    on_device(scenario)


# -- the screen ------------------------------------------------------------------------------------------


def test_fill_and_submit_the_form(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await open_forms(device)
        await device.tap(selector={"containsChild": {"textRegex": "Name"}})
        await device.input_text("Jane Dow")
        await device.erase_text(1)
        await device.input_text("e")
        assert await device.hide_keyboard() is True
        assert await device.hide_keyboard() is False
        await device.tap(selector={"androidAccessibility": {"resourceIdRegex": ".*email_input"}})
        await device.input_text("jane@example.com")
        await device.tap(text="Submit")
        await device.assert_visible(selector={"textRegex": "Name: Jane Doe\nEmail: jane@example.com"})
        await device.tap(selector={"containsChild": {"textRegex": "Email"}})
        await device.erase_text()
        await device.tap(text="Clear All")
        await device.assert_not_visible(text="Jane Doe")

    on_device(scenario)
    assert phone.app.submissions == 1


def test_waiting_for_an_element_that_appears_later(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> float:
        await device.launch_app(SAMPLE_APP)
        await device.tap(text="Show details")
        start = time.monotonic()
        await device.assert_visible(text="Details loaded")
        return time.monotonic() - start

    assert on_device(scenario) > 0.2  # it waited for the details, and found them


def test_an_element_that_never_appears_fails_with_what_was_on_screen(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        await device.tap(text="Sign in", timeout_ms=300)

    with pytest.raises(ToolFailure) as info:
        on_device(scenario)
    message = str(info.value)
    # nothing reads like it: the first five elements say which screen it was, the rest is evidence
    assert message.startswith("no element matches text 'Sign in' (waited 0.3s); on screen: ")
    assert "'Welcome to the sample app'" in message and message.endswith("; …")
    assert "'Forms'" not in message and message.count("; ") == 6


def test_an_element_that_never_appears_names_what_reads_like_it(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        await device.tap(text="Welcome to the sample", timeout_ms=300)

    with pytest.raises(ToolFailure) as info:
        on_device(scenario)
    assert str(info.value) == (
        "no element matches text 'Welcome to the sample' (waited 0.3s); "
        "nearest on screen: android.widget.TextView 'Welcome to the sample app'"
    )


def test_assertions_report_what_they_saw(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        await device.assert_visible(id="submissions", timeout_ms=10_000)  # loaded, however busy the machine
        with pytest.raises(ToolFailure, match=r"shows 'Submissions: 0', expected 'Submissions: 9' \(waited 0.2s\)"):
            await device.assert_visible(id="submissions", timeout_ms=200, expected_text="Submissions: 9")
        with pytest.raises(
            ToolFailure, match=r"text 'Welcome.*' is still visible after 0.2s: 'Welcome to the sample app'"
        ):
            await device.assert_not_visible(text="Welcome.*", timeout_ms=200)
        assert await device.is_visible(text="Welcome.*") is True
        assert await device.is_visible(text="Nothing") is False
        assert await device.get_element_count(selector={"textRegex": "Home|Forms|Lists"}) == 3
        assert await device.get_element_text(id="submissions") == "Submissions: 0"

    on_device(scenario)


def test_scrolling_until_an_item_is_visible_and_the_end_of_the_list(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.open_url("sampleapp://lists")
        node = await device.scroll_until_visible({"textRegex": "Item 25"})
        assert node.text == "Item 25"
        await device.tap(text="Item 25", long_press=True)
        await device.assert_visible(text="Item 25 ★")
        with pytest.raises(ToolFailure, match="scrolled down to the end without finding textRegex='Item 99'"):
            await device.scroll_until_visible({"textRegex": "Item 99"})
        await device.scroll_until_visible({"textRegex": "Item 1"}, direction="UP")

    on_device(scenario)


def test_keys_back_and_home(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await open_forms(device)
        await device.tap(selector={"containsChild": {"textRegex": "Name"}})
        await device.input_text("abc")
        await device.press_key("backspace")
        await device.press_back()  # hides the keyboard
        assert not phone.app.ui.keyboard
        await device.press_key("BACK")  # leaves the app
        assert await device.current_app() == "com.android.launcher3"
        with pytest.raises(ToolFailure, match="unknown key 'F13'"):
            await device.press_key("F13")

    on_device(scenario)
    assert phone.app.ui.name == "ab"


def test_tapping_points_and_screenshots(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    async def scenario(device: AndroidDevice) -> Any:
        await device.launch_app(SAMPLE_APP)
        await device.assert_visible(text="Welcome.*")
        await device.tap_point(540, 2280)  # the Forms tab
        with pytest.raises(ToolFailure, match=r"outside the screen \(1080x2400\)"):
            await device.tap_point(1080, 10)
        return await device.capture_screen()

    shot = on_device(scenario)
    assert phone.app.ui.tab == "Forms"
    assert shot.image_format == "jpeg"
    assert shot.screenshot[:2] == b"\xff\xd8"
    assert (shot.width, shot.height) == (1080, 2400)
    assert any(n.text == "Submit" for n in shot.hierarchy.walk())


def test_pinch_moves_two_fingers_apart_or_together_around_the_centre(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        await device.pinch(2.0)
        await device.pinch(0.5, duration_ms=200)
        for wrong in (1.0, 0.0, -2.0, 100.0):
            with pytest.raises(ValueError, match=r"scale must be between 0.05 and 20 and not 1"):
                await device.pinch(wrong)
        with pytest.raises(ValueError, match=r"duration_ms must be from 0 to 60000"):
            await device.pinch(2.0, duration_ms=10**9)  # a gesture of eleven days

    on_device(scenario)
    # the layout is 360 wide: the fingers end (or start) 0.6 × 360 = 216 apart, on the centre line
    zoom_in, zoom_out = phone.gestures
    assert zoom_in == ((126, 400), (234, 400), (72, 400), (288, 400))  # start1, start2, end1, end2
    assert zoom_out == ((72, 400), (288, 400), (126, 400), (234, 400))


# -- polling, settling, refs ---------------------------------------------------------------------------------


def test_one_hierarchy_fetch_serves_every_query_of_a_poll(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    async def scenario(device: AndroidDevice) -> int:
        await open_forms(device)
        await device.screen(fresh=True)
        before = phone.rpc_methods().count("dumpWindowHierarchy")
        await device.assert_visible(
            selector={
                "textRegex": ".*",
                "below": {"textRegex": "Email"},
                "leftOf": {"textRegex": "Clear All"},
                "containsChild": {"textRegex": "Submit"},
                "index": 0,
            }
        )
        return phone.rpc_methods().count("dumpWindowHierarchy") - before

    assert on_device(scenario) == 0  # the snapshot just taken is reused, and nothing else is fetched


def test_an_action_waits_for_the_screen_to_settle(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    """Switching tabs slides the content in for a quarter of a second; the settled hierarchy
    shows it in place, and it is what the next query looks at."""

    async def scenario(device: AndroidDevice, settle: float) -> tuple[int, int]:
        await device.launch_app(SAMPLE_APP)
        await device.assert_visible(text="Welcome.*")
        device.settle_timeout = settle
        before = phone.rpc_methods().count("dumpWindowHierarchy")
        await device.tap(selector=FORMS_TAB)
        fetched = phone.rpc_methods().count("dumpWindowHierarchy") - before
        kept = device._snapshot
        left = kept.screen.target(id="name_input").bounds.left if kept else -1
        return fetched, left

    async def settled(device: AndroidDevice) -> tuple[int, int]:
        return await scenario(device, 2.0)

    async def unsettled(device: AndroidDevice) -> tuple[int, int]:
        return await scenario(device, 0)

    fetched, left = on_device(settled)
    assert left == 48
    assert fetched >= 3  # the settle saw the screen change at least once before it stood still
    assert on_device(unsettled) == (0, -1)  # the last snapshot finds the tab; nothing is kept after the tap


def test_settling_gives_up_after_its_timeout(
    adb: AdbHostStandIn, phone: FakeAndroid, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A screen that never stops changing: the action returns once the settle timeout passes."""

    async def scenario(device: AndroidDevice) -> float:
        await device.launch_app(SAMPLE_APP)
        await device.assert_visible(text="Welcome.*")
        start = time.monotonic()
        await device.open_url("sampleapp://ticker")
        return time.monotonic() - start

    monkeypatch.setattr(mobile_settings, "DEFAULT_SETTLE_TIMEOUT", 120.0)  # were 0.3 ignored: unmissable
    assert 0.3 <= on_device(scenario, settle_timeout=0.3) < 60  # waited its 0.3 s, then gave up (no hang)


def test_refs_from_the_hierarchy_become_stable_selectors(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        await open_forms(device)
        root = await device.view_hierarchy()
        submit = next(n for n in root.walk() if n.text == "Submit")
        assert submit.parent is not None
        selector = await device.selector_for_ref(submit.parent.ref or "")
        await device.tap(selector=selector)
        return selector, await device.selector_for_ref("n9999")

    selector, missing = on_device(scenario)
    assert selector == {"androidAccessibility": {"resourceIdRegex": f"{SAMPLE_APP}:id/submit_button"}}
    assert missing is None


# -- failures of the device itself ---------------------------------------------------------------------------


def test_a_device_that_goes_away_mid_run_is_an_infrastructure_error(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        adb.unplug("emulator-5554")
        await device.tap(text="Forms")

    with pytest.raises(InfrastructureError, match=r"android device emulator-5554: .*"):
        on_device(scenario)


def test_blocking_calls_leave_the_event_loop_free(adb: AdbHostStandIn) -> None:
    async def scenario(device: AndroidDevice) -> tuple[int, set[str]]:
        ticks = 0
        threads: set[str] = set()

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        def where() -> str:
            return threading.current_thread().name

        task = asyncio.create_task(ticker())
        await device.launch_app(SAMPLE_APP)
        await device.tap(selector=FORMS_TAB)
        threads.add(await device.worker.run(where))
        task.cancel()
        return ticks, threads

    ticks, threads = on_device(scenario)
    assert ticks > 5
    assert threading.current_thread().name not in threads  # never the loop's own thread
    assert all(name.startswith("trailblaze-android-") for name in threads)


def test_two_devices_work_at_the_same_time(adb: AdbHostStandIn, phone: FakeAndroid) -> None:
    second = FakeAndroid("emulator-5556")
    adb.add(second)

    async def fill(device: AndroidDevice, name: str) -> None:
        await open_forms(device)
        await device.tap(selector={"containsChild": {"textRegex": "Name"}})
        await device.input_text(name)
        await device.tap(text="Submit")
        await device.assert_visible(text=f"Name: {name}\nEmail: ")

    async def main() -> None:
        async with android("emulator-5554") as one, android("emulator-5556") as two:
            assert one.worker is not two.worker
            phone.call_times.clear()
            second.call_times.clear()
            await asyncio.gather(fill(one, "One"), fill(two, "Two"))

    run(main())
    assert (phone.app.ui.name, second.app.ui.name) == ("One", "Two")
    # the two phones were worked on during the same stretch of time, not one after the other
    assert max(phone.call_times[0], second.call_times[0]) < min(phone.call_times[-1], second.call_times[-1])
