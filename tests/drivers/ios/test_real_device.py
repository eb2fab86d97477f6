"""On a real iPhone or simulator with WebDriverAgent running: run with WDA_URL set (README,
"Running on a real phone"). Skipped otherwise. Only Settings is started and stopped."""

from __future__ import annotations

import os

import pytest

from tests.standins.fixtures import run
from trailblaze.api.driver import DriverOptions
from trailblaze.drivers.ios.driver import IosDriver

pytestmark = [
    pytest.mark.ios_device,
    pytest.mark.skipif(not os.environ.get("WDA_URL"), reason="set WDA_URL to run on a real device"),
]
SETTINGS = "com.apple.Preferences"


def test_settings_on_a_real_device() -> None:
    async def scenario() -> None:
        device = await IosDriver(DriverOptions(timeout=20)).open(None)
        try:
            assert device.device.width > 0
            assert device.device.classifiers[-1] == "ios"
            await device.launch_app(SETTINGS, "FORCE_RESTART")
            assert await device.app_state(SETTINGS) == 4
            await device.assert_visible(selector={"iosMaestro": {"textRegex": "Settings"}})
            await device.swipe("UP")
            shot = await device.capture_screen()
            assert shot.screenshot.startswith(b"\x89PNG")
            await device.press_home()
            await device.stop_app(SETTINGS)
        finally:
            await device.close()

    run(scenario())
