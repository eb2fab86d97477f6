"""In-process fixtures for the web driver: the real ``PlaywrightDriver`` on the real Chromium,
serving the bundled sample app, with a fresh browser context per test.

These tests are async (anyio's pytest plugin, which comes with httpx); one browser is
launched per module, since launching costs far more than a context.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from trailblaze.api.driver import DriverOptions
from trailblaze.drivers.web.device import WebDevice
from trailblaze.drivers.web.driver import PlaywrightDriver
from trailblaze.drivers.web.settings import WebSettings

from .support import a_trail


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def web_driver(browser: str) -> AsyncIterator[PlaywrightDriver]:
    driver = PlaywrightDriver(DriverOptions(timeout=5), WebSettings(base_url="sample-app"))
    await driver.start()
    try:
        yield driver
    finally:
        await driver.close()


@pytest.fixture
async def device(web_driver: PlaywrightDriver) -> AsyncIterator[WebDevice]:
    """A device with a fresh context and page, as a trail gets it."""
    device = await web_driver.open(None)
    await device.start_trail(a_trail())
    try:
        yield device
    finally:
        await device.close()
