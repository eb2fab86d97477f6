"""Built-in plugin: the ``ios-wda`` driver (iPhones and iPads through WebDriverAgent) and its
``ios:`` section of trailblaze.yaml (``devices:``, a list of WebDriverAgent URLs); ``trailblaze
doctor`` hears from it whether its extra is installed and which WebDriverAgents answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    from trailblaze.drivers.ios.settings import SECTION, IosConfig

    parser.add_section(SECTION, IosConfig, "WebDriverAgents: devices, a list of URLs (each one a device)")


@hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.ios.driver import IosDriver

    register(IosDriver)


@hookimpl
def trailblaze_doctor(run: Run) -> Awaitable[list[DoctorCheck]]:
    """The driver's package (its extra) and the devices it reaches now; failures when the
    project has trails for it."""
    from trailblaze.drivers.ios.driver import IosDriver
    from trailblaze.drivers.mobile.doctor import driver_checks

    return driver_checks(IosDriver, run)
