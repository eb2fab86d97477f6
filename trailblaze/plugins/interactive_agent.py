"""Built-in plugin: the ``interactive`` agent (a person at the terminal records the steps)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trailblaze import hookimpl


@hookimpl
def trailblaze_register_agents(register: Callable[[Any], Any]) -> None:
    from trailblaze.agents.interactive import InteractiveAgent

    register(InteractiveAgent)
