"""Where gestures go on a phone's screen (trailblaze/drivers/mobile/gestures.py); the gestures
themselves are tested through the real clients in tests/drivers/android and tests/drivers/ios."""

from __future__ import annotations

import pytest

from trailblaze.core.errors import ToolFailure
from trailblaze.device.commands import Bounds, ViewNode
from trailblaze.drivers.mobile.gestures import opposite, parse_relative_point, pinch_path, point_in, swipe_path

WIDTH, HEIGHT = 1000, 2000


def test_swipes_cross_the_middle_of_the_screen() -> None:
    assert swipe_path("UP", None, WIDTH, HEIGHT) == ((500, 1400), (500, 600))
    assert swipe_path("down", None, WIDTH, HEIGHT) == ((500, 600), (500, 1400))
    assert swipe_path("LEFT", None, WIDTH, HEIGHT) == ((700, 1000), (300, 1000))
    assert swipe_path("RIGHT", None, WIDTH, HEIGHT) == ((300, 1000), (700, 1000))
    with pytest.raises(ToolFailure, match="unknown direction 'SIDEWAYS'"):
        swipe_path("SIDEWAYS", None, WIDTH, HEIGHT)


def test_a_swipe_on_an_element_starts_there_and_stays_on_screen() -> None:
    near_the_top = ViewNode(bounds=Bounds(0, 0, 200, 200))
    assert swipe_path("UP", near_the_top, WIDTH, HEIGHT) == ((100, 100), (100, 1))
    assert swipe_path("DOWN", near_the_top, WIDTH, HEIGHT) == ((100, 100), (100, 900))


def test_a_pinch_moves_two_fingers_apart_or_together_across_the_centre() -> None:
    apart = pinch_path(2, WIDTH, HEIGHT)
    assert apart == (((350, 1000), (650, 1000)), ((200, 1000), (800, 1000)))
    together = pinch_path(0.5, WIDTH, HEIGHT)
    assert together == (((200, 1000), (800, 1000)), ((350, 1000), (650, 1000)))
    with pytest.raises(ValueError, match="not 1"):
        pinch_path(1, WIDTH, HEIGHT)


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
