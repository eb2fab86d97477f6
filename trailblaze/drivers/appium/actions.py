"""Touches as W3C actions (``POST /session/:id/actions``), the one gesture API every Appium driver
and every cloud implements: a tap is a finger down and up at a point, a long press holds it, a
swipe moves it while down, a pinch moves two at once.

Coordinates are the page source's: pixels on Android, points on iOS. Every duration is a whole
number of milliseconds, as the protocol wants.
"""

from __future__ import annotations

from typing import Any

from trailblaze.drivers.mobile.gestures import Fingers

#: how long a tap holds the finger down (ms): well under any long-press threshold
TAP_MS = 80


def _finger(name: str, start: tuple[int, int], moves: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "pointer",
        "id": name,
        "parameters": {"pointerType": "touch"},
        "actions": [
            {"type": "pointerMove", "duration": 0, "x": int(start[0]), "y": int(start[1])},
            {"type": "pointerDown", "button": 0},
            *moves,
            {"type": "pointerUp", "button": 0},
        ],
    }


def tap(x: int, y: int, hold_ms: int | None = None) -> list[dict[str, Any]]:
    """A tap at ``(x, y)``; with ``hold_ms``, a long press that long."""
    return [_finger("finger1", (x, y), [{"type": "pause", "duration": int(hold_ms or TAP_MS)}])]


def swipe(start: tuple[int, int], end: tuple[int, int], duration_ms: int) -> list[dict[str, Any]]:
    """One finger from ``start`` to ``end`` in ``duration_ms``."""
    move = {"type": "pointerMove", "duration": max(1, int(duration_ms)), "x": int(end[0]), "y": int(end[1])}
    return [_finger("finger1", start, [move])]


def pinch(start: Fingers, end: Fingers, duration_ms: int) -> list[dict[str, Any]]:
    """Two fingers at once, each from its start point to its end point."""
    sources = []
    for number, (begin, finish) in enumerate(zip(start, end, strict=True), 1):
        move = {"type": "pointerMove", "duration": max(1, int(duration_ms)), "x": int(finish[0]), "y": int(finish[1])}
        sources.append(_finger(f"finger{number}", begin, [move]))
    return sources


def points(sources: list[dict[str, Any]]) -> list[list[tuple[int, int]]]:
    """Where each finger of ``sources`` goes, in order (what a test or a stand-in reads back)."""
    found = []
    for source in sources:
        path = [(a["x"], a["y"]) for a in source.get("actions", []) if a.get("type") == "pointerMove"]
        found.append(path)
    return found
