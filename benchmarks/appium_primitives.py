"""The appium driver: a tap by selector and a visibility check against the same calls made by a
plain Appium-Python-Client script.

Everything runs against the stand-in Appium server from tests/standins (its UiAutomator2 driver
on the fake phone; the real Appium-Python-Client on both sides, no phone needed), on a still
screen. For every primitive the benchmark first records which requests trailblaze sends (the
page source, W3C actions, ``mobile:`` methods), then times

* **trailblaze**: the primitive through ``AppiumDevice`` (worker thread, page source parsing,
  selector matching, settling);
* **script**: a script making those requests with Appium-Python-Client as its documentation
  shows — ``driver.page_source``, a tap as ``ActionChains`` with a touch pointer — with no
  trailblaze in between;

interleaved, medians compared, over one session each. It checks that both sent the same
requests, and that a primitive fetches the page source once per screen: a tap is one source to
find its element and two to see the screen settle, a check is one. (The screen does not change:
trailblaze parses it once and matches each selector on it once, as it does while it waits on a
still screen.)
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tests.standins.android_phone import FakeAndroid
from tests.standins.appium_server import AppiumStandIn
from tests.standins.sample_app import SAMPLE_APP

SUBMIT = {"androidAccessibility": {"resourceIdRegex": ".*submit_button"}}
NAME_FIELD = {"containsChild": {"textRegex": "Name"}}
CAPABILITIES = {"platformName": "Android", "appium:automationName": "UiAutomator2", "appium:deviceName": "Pixel 7"}


@dataclass
class Timing:
    primitive: str
    trailblaze: float
    script: float


@contextmanager
def stand_in() -> Any:
    phone = FakeAndroid("bench-1")
    phone.app.launch(SAMPLE_APP, "Forms")
    phone.app.clock = lambda: 1e9  # a still screen, as between the steps of a trail
    with AppiumStandIn(phone, shared=True) as server:
        yield server


def open_device(url: str) -> Any:
    """The appium driver's device for the stand-in, as a run opens it."""
    from trailblaze.device.commands import DeviceInfo
    from trailblaze.drivers.appium.clouds import cloud_for
    from trailblaze.drivers.appium.device import AppiumDevice
    from trailblaze.drivers.appium.sessions import Sessions, Timeouts
    from trailblaze.drivers.appium.settings import AppiumConfig, capability_sets, hub
    from trailblaze.drivers.mobile.worker import DeviceWorker

    config = AppiumConfig(url=url, capabilities=CAPABILITIES)
    (device,) = capability_sets(config, {})
    where = hub(config, {})
    sessions = Sessions(
        where, device, cloud_for(None, where.url, device.capabilities), Timeouts(30, 30), report_status=False
    )
    info = DeviceInfo(device.id, "android", "appium")
    return AppiumDevice(info, DeviceWorker("bench"), sessions, timeout=5, settle_timeout=2)


def primitives(device: Any) -> dict[str, Callable[[], Awaitable[Any]]]:
    """The primitives, their selectors made once, as a recorded call's arguments arrive validated."""
    submit, name_field = _selector(SUBMIT), _selector(NAME_FIELD)

    async def tap() -> None:
        device._snapshot = None  # a fresh look at the screen each time: no reuse of the last one
        await device.tap(selector=submit)

    async def check() -> None:
        device._snapshot = None
        await device.assert_visible(selector=name_field)

    return {"tap (selector)": tap, "assertVisible (selector)": check}


def script_for(driver: Any, requests: list[tuple[str, str]], tap_at: tuple[int, int]) -> Callable[[], None]:
    """A plain Appium-Python-Client script making ``requests`` (as recorded from trailblaze)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    def source() -> None:
        driver.page_source  # noqa: B018 - the request is the point

    def tap() -> None:
        actions = ActionChains(driver)
        actions.w3c_actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
        actions.w3c_actions.pointer_action.move_to_location(*tap_at).pointer_down().pause(0.08).release()
        actions.perform()

    steps = {("GET", "/source"): source, ("POST", "/actions"): tap}
    missing = [r for r in requests if r not in steps]
    assert not missing, f"no script step for {missing}"
    chosen = [steps[r] for r in requests]

    def script() -> None:
        for step in chosen:
            step()

    return script


async def elapsed(fn: Callable[..., Awaitable[Any]], *args: Any) -> float:
    start = time.perf_counter()
    await fn(*args)
    return time.perf_counter() - start


def measure(runs: int) -> list[Timing]:
    """Interleaved medians of every primitive and its plain-client script."""
    from appium import webdriver
    from appium.options.common.base import AppiumOptions

    with stand_in() as server:

        async def main() -> list[Timing]:
            device = open_device(server.url)
            await device.worker.run(device.begin, None)
            options = AppiumOptions()
            options.load_capabilities(CAPABILITIES)
            driver = await asyncio.to_thread(webdriver.Remote, server.url, options=options)
            submit = (await device.screen(fresh=True)).target(_selector(SUBMIT))
            tap_at = submit.bounds.center
            timings = []
            try:
                for name, primitive in primitives(device).items():
                    await primitive()  # warm up, and record the requests it makes
                    mark = len(server.requests)
                    await primitive()
                    ours_sent = server.requests[mark:]
                    if name.startswith("tap"):
                        assert ours_sent.count(("GET", "/source")) == 3, ours_sent  # find it, then settle
                    if name.startswith("assert"):
                        assert ours_sent == [("GET", "/source")], ours_sent
                    script = script_for(driver, ours_sent, tap_at)
                    mark = len(server.requests)
                    await asyncio.to_thread(script)
                    assert server.requests[mark:] == ours_sent, (name, ours_sent, server.requests[mark:])
                    ours: list[float] = []
                    theirs: list[float] = []
                    for i in range(runs):  # alternate who goes first, so neither always follows the other
                        if i % 2:
                            theirs.append(await elapsed(asyncio.to_thread, script))
                            ours.append(await elapsed(primitive))
                        else:
                            ours.append(await elapsed(primitive))
                            theirs.append(await elapsed(asyncio.to_thread, script))
                    timings.append(Timing(name, statistics.median(ours), statistics.median(theirs)))
            finally:
                await asyncio.to_thread(driver.quit)
                await device.close()
            return timings

        return asyncio.run(main())


def _selector(raw: dict[str, Any]) -> Any:
    from trailblaze.drivers.mobile.matching import as_selector

    return as_selector(raw)


if __name__ == "__main__":
    for timing in measure(30):
        ratio = timing.trailblaze / timing.script
        print(f"{timing.primitive}: {timing.trailblaze * 1000:.2f} vs {timing.script * 1000:.2f} ms = {ratio:.2f}×")
