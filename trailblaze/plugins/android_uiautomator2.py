"""Built-in plugin: the ``android-uiautomator2`` driver and the Android-only tools
(``android_adbShell``, ``android_grantPermissions``); ``trailblaze doctor`` hears from it whether
its extra is installed and which devices adb reaches."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser


@hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.android.driver import AndroidDriver

    register(AndroidDriver)


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    from trailblaze.tools.bundled import TRAILMAPS

    parser.add_trailmap(TRAILMAPS / "android")  # its toolsets, and what upstream workspaces may depend on


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.mobile.tools import ANDROID_TOOLS
    from trailblaze.tools.bundled import TRAILMAPS, register_trailmap

    for fn in ANDROID_TOOLS:
        register(fn)
    register_trailmap(register, TRAILMAPS / "android")


@hookimpl
def trailblaze_doctor(run: Run) -> Awaitable[list[DoctorCheck]]:
    """The driver's package (its extra) and the devices it reaches now; failures when the
    project has trails for it."""
    from trailblaze.drivers.android.driver import AndroidDriver
    from trailblaze.drivers.mobile.doctor import driver_checks

    return driver_checks(AndroidDriver, run)
