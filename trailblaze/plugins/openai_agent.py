"""Built-in plugin: the ``openai`` agent (any OpenAI-compatible chat-completions endpoint)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trailblaze import hookimpl


@hookimpl
def trailblaze_register_agents(register: Callable[[Any], Any]) -> None:
    from trailblaze.agents.openai_chat import OpenAIAgent

    register(OpenAIAgent)
