"""Built-in plugin: the ``openai`` agent (any OpenAI-compatible chat-completions endpoint) and its
section of ``trailblaze.yaml``, ``llm:``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    # by name: only a command that reads llm:, or a file that sets it, imports the model
    parser.add_section("llm", "trailblaze.agents.llm:LlmConfig", help="the LLM the openai agent talks to")


@hookimpl
def trailblaze_register_agents(register: Callable[[Any], Any]) -> None:
    from trailblaze.agents.openai_chat import OpenAIAgent

    register(OpenAIAgent)
