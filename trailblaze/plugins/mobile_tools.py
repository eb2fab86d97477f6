"""Built-in plugin: upstream's mobile tools (``launchApp``, ``tapOnElementBySelector``,
``inputText``, ``assertVisibleBySelector``…), offered on the Android and iOS drivers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trailblaze import hookimpl


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.mobile.tools import MOBILE_TOOLS
    from trailblaze.tools.bundled import register_trailmap

    for fn in MOBILE_TOOLS:
        register(fn)
    register_trailmap(register, "mobile")
