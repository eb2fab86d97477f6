"""Built-in plugin: the ``android-uiautomator2`` driver and the Android-only tools
(``android_adbShell``, ``android_grantPermissions``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trailblaze import hookimpl


@hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.android.driver import AndroidDriver

    register(AndroidDriver)


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.mobile.tools import ANDROID_TOOLS
    from trailblaze.tools.bundled import register_trailmap

    for fn in ANDROID_TOOLS:
        register(fn)
    register_trailmap(register, "android")
