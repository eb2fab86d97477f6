"""Built-in plugin: the ``browser`` agent (record a web trail by demonstration)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trailblaze import hookimpl


@hookimpl
def trailblaze_register_agents(register: Callable[[Any], Any]) -> None:
    from trailblaze.web.demonstration import BrowserAgent

    register(BrowserAgent)
