"""On a real Android phone or emulator: run with ANDROID_SERIAL set (README, "Running on a real
phone"). Skipped otherwise. Nothing here clears data: apps are only started and stopped."""

from __future__ import annotations

import os

import pytest

from tests.standins.fixtures import run
from trailblaze.api.driver import DriverOptions
from trailblaze.drivers.android.driver import AndroidDriver

pytestmark = [
    pytest.mark.android_device,
    pytest.mark.skipif(not os.environ.get("ANDROID_SERIAL"), reason="set ANDROID_SERIAL to run on a real device"),
]
SETTINGS = "com.android.settings"


def test_settings_on_a_real_device() -> None:
    async def scenario() -> None:
        device = await AndroidDriver(DriverOptions(timeout=15)).open(os.environ["ANDROID_SERIAL"])
        try:
            info = device.device
            assert info.width > 0
            assert info.classifiers[-1] == "android"
            root = await device.view_hierarchy()
            assert any(node.bounds is not None for node in root.walk())
            await device.launch_app(SETTINGS, "FORCE_RESTART")
            assert await device.current_app() == SETTINGS
            await device.assert_visible(
                selector={"androidAccessibility": {"classNameRegex": ".*", "isScrollable": True}}
            )
            await device.swipe("UP")
            shot = await device.capture_screen()
            assert shot.screenshot
            await device.press_home()
            await device.stop_app(SETTINGS)
        finally:
            await device.close()

    run(scenario())


def test_devices_lists_the_real_device() -> None:
    rows = run(AndroidDriver(DriverOptions()).devices())
    assert os.environ["ANDROID_SERIAL"] in {row.id for row in rows if row.state == "available"}
