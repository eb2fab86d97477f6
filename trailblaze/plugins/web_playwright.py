"""Built-in plugin: the ``playwright-native`` web driver and the ``web_*`` tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trailblaze import hookimpl


@hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    from trailblaze.web.driver import PlaywrightDriver

    register(PlaywrightDriver)


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.tools.bundled import register_trailmap
    from trailblaze.web.tools import WEB_TOOLS

    for fn in WEB_TOOLS:
        register(fn)
    register_trailmap(register, "web")
