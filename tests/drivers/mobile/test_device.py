"""The hierarchy-and-coordinates device (trailblaze/drivers/mobile/device.py) without a phone; its
waiting, settling and errors are tested through the real clients in tests/drivers/android and
tests/drivers/ios, and where its gestures go in test_gestures.py."""

from __future__ import annotations

import pytest

from trailblaze.device.commands import DeviceInfo
from trailblaze.drivers.mobile.device import MobileDevice
from trailblaze.drivers.mobile.worker import DeviceWorker


@pytest.fixture
def device() -> MobileDevice:
    worker = DeviceWorker("geometry")
    worker.close()
    return MobileDevice(DeviceInfo("d", "android", "x", 1000, 2000), worker, timeout=1, settle_timeout=0)


def test_a_closed_device_refuses_calls(device: MobileDevice) -> None:
    from tests.standins.fixtures import run
    from trailblaze.core.errors import InfrastructureError

    run(device.close())
    with pytest.raises(InfrastructureError, match="android device d is closed"):
        run(device.view_hierarchy())
