"""``llm:`` in trailblaze.yaml: the LLM the ``openai`` agent talks to, a section of the
``openai_agent`` plugin (``parser.add_section("llm", LlmConfig)``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from trailblaze.core.limits import MAX_COUNT, MAX_WAIT_SECONDS

if TYPE_CHECKING:
    from trailblaze.project.config import Config

SECTION = "llm"
#: the variables that configure the agent without ``llm:``
ENVIRONMENT = ("OPENAI_API_KEY", "OPENAI_BASE_URL")


class LlmConfig(BaseModel):
    """Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LM Studio,
    OpenRouter…)."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, loc_by_alias=False
    )

    base_url: str | None = Field(default=None, description="default: $OPENAI_BASE_URL, else OpenAI's")
    model: str | None = Field(default=None, description="default: $OPENAI_MODEL")
    api_key_env: str | None = Field(default=None, description="variable holding the key; default OPENAI_API_KEY")
    max_turns: int = Field(default=15, ge=1, le=MAX_COUNT, description="LLM round trips per step before giving up")
    timeout_s: float = Field(
        default=120.0,
        gt=0,
        le=MAX_WAIT_SECONDS,
        allow_inf_nan=False,
        description="seconds to wait for one response",
    )
    temperature: float | None = Field(default=None, ge=0, le=2, description="0 to 2, as OpenAI's API takes it")
    groups: list[str] | None = Field(
        default=None, description="offer only tools in these groups (plus tools without a group)"
    )


def llm_config(config: Config) -> LlmConfig:
    """The project's ``llm:`` (its defaults without one, or when the openai plugin is blocked)."""
    try:
        section: LlmConfig = config.section(SECTION)
    except ValueError:
        return LlmConfig()
    return section


def llm_configured(config: Config) -> bool:
    """An LLM is set up: ``llm:`` in trailblaze.yaml, or the ``OPENAI_*`` variables."""
    return config.declares(SECTION) or any(os.environ.get(v) for v in ENVIRONMENT)
