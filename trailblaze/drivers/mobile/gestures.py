"""Where on a phone's screen a gesture goes: swipe and pinch paths, points inside an element,
and the directions and spans the hierarchy-and-coordinates device uses. Pure arithmetic on screen
sizes and node bounds, shared by the device's commands, the mobile tools and the Maestro runner.
"""

from __future__ import annotations

from trailblaze.core.errors import ToolFailure
from trailblaze.device.commands import ViewNode

Point = tuple[int, int]
#: where two fingers are
Fingers = tuple[Point, Point]

DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
#: how far a swipe travels, as a fraction of the screen (or from the element it starts on)
SWIPE_SPAN = 0.4
LONG_PRESS_MS = 1000
#: the distance between a pinch's fingers when they are furthest apart, as a fraction of the
#: screen's shorter side
PINCH_SPAN = 0.6
#: how far a pinch may scale: beyond this the fingers would start or end on top of each other
PINCH_LIMITS = (0.05, 20.0)


def swipe_path(direction: str, start: ViewNode | None, width: int, height: int) -> tuple[Point, Point]:
    """Where a swipe in ``direction`` (UP moves the content up) begins and ends on a screen of
    ``width`` × ``height``: across its middle, or from the ``start`` element's centre."""
    name = direction.upper()
    if name not in DIRECTIONS:
        raise ToolFailure(f"unknown direction {direction!r} (known: {', '.join(DIRECTIONS)})")
    if start is not None:
        x, y = point_in(start, (0.5, 0.5))
    else:
        x, y = width // 2, height // 2
    dx = {"LEFT": -1, "RIGHT": 1}.get(name, 0) * int(width * SWIPE_SPAN)
    dy = {"UP": -1, "DOWN": 1}.get(name, 0) * int(height * SWIPE_SPAN)
    if start is None:  # centre the gesture on the screen
        x, y = x - dx // 2, y - dy // 2
    end = (clamp(x + dx, width), clamp(y + dy, height))
    return (clamp(x, width), clamp(y, height)), end


def pinch_path(scale: float, width: int, height: int) -> tuple[Fingers, Fingers]:
    """Where a pinch's two fingers start and end: on a horizontal line through the centre of
    the screen, the wider pair :data:`PINCH_SPAN` of the shorter side apart."""
    low, high = PINCH_LIMITS
    if not (low <= scale <= high) or scale == 1:
        raise ValueError(f"scale must be between {low:g} and {high:g} and not 1 (got {scale:g})")
    wide = PINCH_SPAN * min(width, height)
    start_distance, end_distance = (wide / scale, wide) if scale > 1 else (wide, wide * scale)
    x, y = width // 2, height // 2

    def fingers(distance: float) -> Fingers:
        half = int(distance / 2)
        return (x - half, y), (x + half, y)

    return fingers(start_distance), fingers(end_distance)


def point_in(node: ViewNode, relative: tuple[float, float]) -> tuple[int, int]:
    b = node.bounds
    if b is None:
        raise ToolFailure(f"{node.class_name or 'element'} has no position on screen")
    fx, fy = relative
    return b.left + int(b.width * fx), b.top + int(b.height * fy)


def clamp(value: int, size: int) -> int:
    if size <= 0:
        return max(0, value)
    return min(max(1, value), size - 2)


def opposite(direction: str) -> str:
    return {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}.get(direction.upper(), direction)


def parse_relative_point(text: str) -> tuple[float, float]:
    """``"50%,50%"`` (upstream's relativePoint) as fractions."""
    try:
        x, y = (part.strip().rstrip("%") for part in text.split(","))
        fx, fy = float(x) / 100, float(y) / 100
    except ValueError:
        raise ToolFailure(f"relativePoint {text!r} is not 'X%,Y%'") from None
    if not (0 <= fx <= 1 and 0 <= fy <= 1):
        raise ToolFailure(f"relativePoint {text!r} is outside the element (0%..100%)")
    return fx, fy
