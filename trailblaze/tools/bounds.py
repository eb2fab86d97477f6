"""The types of a built-in tool's numbers, each with an upper bound (:mod:`trailblaze.core.limits`).

A tool's arguments are checked against its schema when a trail loads, so a number past its
bound is a ``file:line:col`` message from ``validate`` and ``run`` alike (exit 3), and the bound
is in the schema agents and editors see (``maximum``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from trailblaze.core.limits import MAX_COUNT, MAX_GESTURE_MS, MAX_PAUSE_SECONDS, MAX_PIXELS, MAX_WAIT_SECONDS

#: a call's own timeout, in milliseconds
WaitMs = Annotated[int, Field(ge=0, le=MAX_WAIT_SECONDS * 1000)]
#: a fixed pause, in seconds
PauseSeconds = Annotated[float, Field(ge=0, le=MAX_PAUSE_SECONDS, allow_inf_nan=False)]
#: how long a gesture takes, in milliseconds
GestureMs = Annotated[int, Field(ge=0, le=MAX_GESTURE_MS)]
#: a point on the screen or a distance, in pixels
Pixels = Annotated[int, Field(ge=-MAX_PIXELS, le=MAX_PIXELS)]
#: an index among matches, a number of characters
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
