"""Built-in plugin: upstream's mobile tools (``launchApp``, ``tapOnElementBySelector``,
``inputText``, ``assertVisibleBySelector``…), offered on the Android and iOS drivers, and the
setting both mobile drivers read, ``settle_timeout:``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    from trailblaze.tools.bundled import TRAILMAPS

    parser.add_trailmap(TRAILMAPS / "mobile")  # its toolsets, and what upstream workspaces may depend on
    from trailblaze.drivers.mobile.settings import SETTLE_TIMEOUT, SettleTimeout

    parser.addini(
        SETTLE_TIMEOUT,
        "mobile: seconds an action waits for the screen to stop changing (0: off)",
        type=SettleTimeout,
        default=2.0,
    )


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.mobile.tools import MOBILE_TOOLS
    from trailblaze.tools.bundled import TRAILMAPS, register_trailmap

    for fn in MOBILE_TOOLS:
        register(fn)
    register_trailmap(register, TRAILMAPS / "mobile")
