"""Built-in plugin: the ``ios-wda`` driver (iPhones and iPads through WebDriverAgent) and its
``ios:`` section of trailblaze.yaml (``devices:``, a list of WebDriverAgent URLs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    from trailblaze.drivers.ios.settings import SECTION, IosConfig

    parser.add_section(SECTION, IosConfig, "WebDriverAgents: devices, a list of URLs (each one a device)")


@hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.ios.driver import IosDriver

    register(IosDriver)
