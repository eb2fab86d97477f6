"""Geometry of the hierarchy-and-coordinates device (trailblaze/drivers/mobile/device.py); its waiting,
settling and errors are tested through the real clients in tests/drivers/android and tests/drivers/ios."""

from __future__ import annotations

import pytest

from trailblaze.core.errors import ToolFailure
from trailblaze.device.commands import Bounds, DeviceInfo, ViewNode
from trailblaze.drivers.mobile.device import MobileDevice, opposite, parse_relative_point, point_in
from trailblaze.drivers.mobile.worker import DeviceWorker


@pytest.fixture
def device() -> MobileDevice:
    worker = DeviceWorker("geometry")
    worker.close()
    return MobileDevice(DeviceInfo("d", "android", "x", 1000, 2000), worker, timeout=1, settle_timeout=0)


def test_swipes_cross_the_middle_of_the_screen(device: MobileDevice) -> None:
    assert device.swipe_path("UP", None) == ((500, 1400), (500, 600))
    assert device.swipe_path("down", None) == ((500, 600), (500, 1400))
    assert device.swipe_path("LEFT", None) == ((700, 1000), (300, 1000))
    assert device.swipe_path("RIGHT", None) == ((300, 1000), (700, 1000))
    with pytest.raises(ToolFailure, match="unknown direction 'SIDEWAYS'"):
        device.swipe_path("SIDEWAYS", None)


def test_a_swipe_on_an_element_starts_there_and_stays_on_screen(device: MobileDevice) -> None:
    near_the_top = ViewNode(bounds=Bounds(0, 0, 200, 200))
    assert device.swipe_path("UP", near_the_top) == ((100, 100), (100, 1))
    assert device.swipe_path("DOWN", near_the_top) == ((100, 100), (100, 900))


def test_points_inside_elements() -> None:
    node = ViewNode(bounds=Bounds(100, 200, 300, 600))
    assert point_in(node, (0.5, 0.5)) == (200, 400)
    assert point_in(node, parse_relative_point("10%, 90%")) == (120, 560)
    with pytest.raises(ToolFailure, match="not 'X%,Y%'"):
        parse_relative_point("middle")
    with pytest.raises(ToolFailure, match="outside the element"):
        parse_relative_point("150%,50%")
    with pytest.raises(ToolFailure, match="has no position"):
        point_in(ViewNode(class_name="View"), (0.5, 0.5))
    assert opposite("down") == "UP"


def test_a_closed_device_refuses_calls(device: MobileDevice) -> None:
    from tests.standins.fixtures import run
    from trailblaze.core.errors import InfrastructureError

    run(device.close())
    with pytest.raises(InfrastructureError, match="android device d is closed"):
        run(device.view_hierarchy())
