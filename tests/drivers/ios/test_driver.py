"""The ios-wda driver: the real facebook-wda against the stand-in WebDriverAgent."""

from __future__ import annotations

import gc
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from tests.standins.fixtures import run
from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import FakeIphone, WdaStandIn
from trailblaze.api.driver import DriverOptions
from trailblaze.core.errors import InfrastructureError, ToolFailure, UsageError
from trailblaze.drivers.ios.driver import IosDevice, IosDriver


@asynccontextmanager
async def iphone_at(url: str | None, **options: Any) -> AsyncIterator[IosDevice]:
    """A device on the WebDriverAgent stand-in; ``options``: ``timeout`` and the driver's own."""
    timeout = options.pop("timeout", 3.0)
    device = await IosDriver(DriverOptions(timeout=timeout), **options).open(url)
    try:
        yield device
    finally:
        await device.close()


def on_iphone(url: str | None, scenario: Callable[[IosDevice], Coroutine[Any, Any, Any]], **options: Any) -> Any:
    async def main() -> Any:
        async with iphone_at(url, **options) as device:
            return await scenario(device)

    return run(main())


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()
    gc.collect()  # facebook-wda leaves its timed-out socket to the garbage collector: collect it here


def test_connects_with_a_session_and_knows_the_device(wda_server: WdaStandIn) -> None:
    async def check(device: IosDevice) -> None:
        info = device.device
        assert (info.id, info.platform, info.driver) == (wda_server.url, "ios", "ios-wda")
        assert (info.width, info.height) == (360, 800)
        assert info.classifiers == ("ios-iphone", "ios")
        assert info.model == "Test iPhone iPhone"
        assert wda_server.session_id is not None

    on_iphone(wda_server.url, check)
    assert wda_server.session_id is None  # closing the device ends the session


def test_an_ipad_and_the_wda_url_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    with WdaStandIn(FakeIphone(name="Tab", model="iPad", idiom=1)) as server:
        monkeypatch.setenv("WDA_URL", server.url)

        async def classifiers(device: IosDevice) -> tuple[str, ...]:
            return device.device.classifiers

        assert on_iphone(None, classifiers) == ("ios-ipad", "ios")
        rows = run(IosDriver(DriverOptions()).devices())
    assert [(r.id, r.state, r.classifiers) for r in rows] == [(server.url, "available", ("ios-ipad", "ios"))]


def test_a_locked_device_is_unlocked(wda_server: WdaStandIn, iphone: FakeIphone) -> None:
    iphone.locked = True
    on_iphone(wda_server.url, lambda d: d.is_visible(text="Sample App"))
    assert not iphone.locked


def test_no_url_and_bad_urls_are_usage_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WDA_URL", raising=False)
    with pytest.raises(UsageError, match="pass --device http://HOST:PORT, set WDA_URL or list them under ios:"):
        run(IosDriver(DriverOptions()).open(None))
    with pytest.raises(UsageError, match="'00008030-001A' is not a WebDriverAgent URL"):
        run(IosDriver(DriverOptions()).open("00008030-001A"))


def test_an_unreachable_endpoint_is_an_infrastructure_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(InfrastructureError, match=rf"WebDriverAgent at {url} is unreachable \(ConnectionRefusedError"):
        on_iphone(url, lambda d: d.view_hierarchy())


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # facebook-wda leaks the socket
@pytest.mark.filterwarnings("ignore::ResourceWarning")  # the same leak, when the collector finds it here
def test_requests_time_out_after_the_runs_timeout_not_three_minutes(silent_port: int) -> None:
    start = time.monotonic()
    with pytest.raises(InfrastructureError, match=r"unreachable .*timed out"):
        on_iphone(f"http://127.0.0.1:{silent_port}", lambda d: d.view_hierarchy(), timeout=0.5)
    assert time.monotonic() - start < 60  # the run's 0.5 s, not facebook-wda's three minutes (a bound on a hang)


def test_listing_reports_unreachable_endpoints(wda_server: WdaStandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WDA_URL", f"{wda_server.url}, http://127.0.0.1:9")
    rows = run(IosDriver(DriverOptions()).devices())
    assert [(r.id, r.state) for r in rows] == [(wda_server.url, "available"), ("http://127.0.0.1:9", "unreachable")]


def test_fill_the_form_with_the_keyboard(wda_server: WdaStandIn, iphone: FakeIphone) -> None:
    async def scenario(device: IosDevice) -> None:
        await device.launch_app(SAMPLE_APP, "FORCE_RESTART")
        await device.tap(text="Forms")
        with pytest.raises(ToolFailure, match="no keyboard is shown"):
            await device.input_text("too early")
        await device.tap(selector={"iosMaestro": {"resourceIdRegex": "name_input"}})
        await device.input_text("Jane Dox")
        await device.erase_text(1)
        await device.input_text("e")
        await device.assert_visible(selector={"iosMaestro": {"textRegex": "Jane Doe", "resourceIdRegex": "name_input"}})
        assert await device.hide_keyboard() is True
        assert await device.hide_keyboard() is False
        await device.tap(selector={"iosMaestro": {"accessibilityTextRegex": "Email"}})
        await device.input_text("jane@example.com")
        await device.press_key("ENTER")
        await device.tap(text="Submit")
        await device.assert_visible(text="Name: Jane Doe\nEmail: jane@example.com")
        await device.tap(selector={"iosMaestro": {"resourceIdRegex": "email_input"}})
        await device.erase_text()
        await device.assert_not_visible(selector={"iosMaestro": {"textRegex": "jane@example.com"}}, timeout_ms=500)

    on_iphone(wda_server.url, scenario)
    assert (iphone.app.ui.name, iphone.app.ui.email, iphone.app.submissions) == ("Jane Doe", "", 1)


def test_apps_links_and_home(wda_server: WdaStandIn, iphone: FakeIphone) -> None:
    async def scenario(device: IosDevice) -> list[int]:
        states = []
        await device.launch_app(SAMPLE_APP, "RESUME")
        states.append(await device.app_state(SAMPLE_APP))
        await device.press_home()
        states.append(await device.app_state(SAMPLE_APP))
        await device.open_url("sampleapp://lists")
        await device.scroll_until_visible({"textRegex": "Item 30"})
        await device.stop_app(SAMPLE_APP)
        states.append(await device.app_state(SAMPLE_APP))
        with pytest.raises(
            ToolFailure,
            match=r"launchApp com\.example\.absent: The application 'com\.example\.absent' is not installed",
        ):
            await device.launch_app("com.example.absent")
        with pytest.raises(NotImplementedError, match="not possible through WebDriverAgent"):
            await device.clear_app_data(SAMPLE_APP)
        with pytest.raises(ToolFailure, match="iOS has no ESCAPE key"):
            await device.press_key("ESCAPE")
        return states

    assert on_iphone(wda_server.url, scenario) == [4, 3, 1]


def test_alerts(wda_server: WdaStandIn, iphone: FakeIphone) -> None:
    async def scenario(device: IosDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        assert await device.alert_text() is None
        with pytest.raises(ToolFailure, match="no alert is shown"):
            await device.accept_alert()
        await device.tap(text="Reset counter")
        assert await device.alert_text() == "Reset the counter?"
        await device.dismiss_alert()
        await device.tap(text="Reset counter")
        with pytest.raises(ToolFailure, match="the alert has no button 'Maybe' \\(it has 'Cancel', 'Reset'\\)"):
            await device.accept_alert("Maybe")
        await device.accept_alert("Reset")
        await device.assert_visible(text="Submissions: 0")

    iphone.app.submissions = 5
    on_iphone(wda_server.url, scenario)
    assert iphone.app.submissions == 0


def test_back_is_the_edge_swipe_and_long_press_holds(wda_server: WdaStandIn, iphone: FakeIphone) -> None:
    async def scenario(device: IosDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        await device.tap(text="Lists")
        await device.tap(text="Item 2", long_press=True)
        await device.assert_visible(text="Item 2 ★")
        await device.press_back()

    on_iphone(wda_server.url, scenario)
    assert iphone.app.front is None


def test_pinch_is_one_two_finger_gesture(wda_server: WdaStandIn, iphone: FakeIphone) -> None:
    async def scenario(device: IosDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        await device.pinch(0.5)

    on_iphone(wda_server.url, scenario)
    [fingers] = iphone.gestures  # each finger: (down, up), on the centre line, ending half as far apart
    (down1, up1), (down2, up2) = fingers
    assert down1[1] == up1[1] == down2[1] == up2[1]
    assert (down2[0] - down1[0]) == 2 * (up2[0] - up1[0])


def test_screenshots_are_png(wda_server: WdaStandIn) -> None:
    shot = on_iphone(wda_server.url, lambda d: d.capture_screen())
    assert shot.image_format == "png"
    assert shot.screenshot.startswith(b"\x89PNG")
    assert any(n.text == "Sample App" for n in shot.hierarchy.walk())


def test_webdriveragent_going_away_mid_run(wda_server: WdaStandIn) -> None:
    async def scenario(device: IosDevice) -> None:
        await device.launch_app(SAMPLE_APP)
        wda_server.stop()
        await device.tap(text="Forms")

    with pytest.raises(InfrastructureError, match=f"ios device {wda_server.url}: WebDriverAgent at .* is unreachable"):
        on_iphone(wda_server.url, scenario)


def test_the_trails_timeout_is_the_request_timeout(wda_server: WdaStandIn) -> None:
    async def scenario(device: IosDevice) -> float:
        device.default_timeout = 7.5
        return float(device.client._timeout())

    assert on_iphone(wda_server.url, scenario) == 7.5
