"""Built-in plugin: the ``ios-wda`` driver (iPhones and iPads through WebDriverAgent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trailblaze import hookimpl


@hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    from trailblaze.ios.driver import IosDriver

    register(IosDriver)
