"""A session's settings (upstream's ``TrailblazeMcpSessionContext``) and the enums they take.

The enums keep upstream's names and values, so ``config(action=SET, key="mode",
value="TRAILBLAZE_AS_AGENT")`` written for upstream works here, and they appear as ``enum`` in
the tools' JSON Schemas so a client's LLM sees every valid value.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trailblaze.mcpserver.categories import Profile


class Mode(enum.StrEnum):
    """Who is the agent (seed 001)."""

    #: the client's LLM decides; trailblaze executes and never calls an LLM
    MCP_CLIENT_AS_AGENT = "MCP_CLIENT_AS_AGENT"
    #: trailblaze's own agent works out ``step(objective)`` and ``runPrompt``
    TRAILBLAZE_AS_AGENT = "TRAILBLAZE_AS_AGENT"


class LlmCallStrategy(enum.StrEnum):
    """Where trailblaze's agent gets its completions in ``TRAILBLAZE_AS_AGENT`` mode."""

    #: the configured ``llm:`` endpoint (the ``openai`` agent of ``trailblaze record``)
    DIRECT = "DIRECT"
    #: the client's LLM, through MCP sampling (``sampling/createMessage``)
    MCP_SAMPLING = "MCP_SAMPLING"


class ScreenshotFormat(enum.StrEnum):
    IMAGE_CONTENT = "IMAGE_CONTENT"
    BASE64_TEXT = "BASE64_TEXT"
    NONE = "NONE"


class ViewHierarchyVerbosity(enum.StrEnum):
    #: the elements one can read or act on, one per line, with refs
    MINIMAL = "MINIMAL"
    #: every element with text, id or a ref, indented as nested
    STANDARD = "STANDARD"
    #: the whole tree with every attribute, as JSON
    FULL = "FULL"


def _enum_value(kind: type[enum.StrEnum]) -> Callable[[str], Any]:
    def parse(value: str) -> Any:
        for member in kind:
            if member.value.lower() == value.strip().lower():
                return member
        raise ValueError(f"{value!r} is not one of {', '.join(m.value for m in kind)}")

    return parse


def _boolean(value: str) -> bool:
    text = value.strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"{value!r} is not true or false")


@dataclass(frozen=True, slots=True)
class ConfigKey:
    """A key ``config`` reads and writes: its attribute on :class:`Settings` and how to parse it."""

    name: str
    attribute: str
    description: str
    parse: Callable[[str], Any]
    options: tuple[str, ...] | None = None
    aliases: tuple[str, ...] = ()


CONFIG_KEYS: tuple[ConfigKey, ...] = (
    ConfigKey(
        "mode",
        "mode",
        "Who is the agent: the client (MCP_CLIENT_AS_AGENT: device tools are offered) or trailblaze "
        "(TRAILBLAZE_AS_AGENT: step(objective) and runPrompt are worked out by trailblaze's agent)",
        _enum_value(Mode),
        tuple(m.value for m in Mode),
    ),
    ConfigKey(
        "target",
        "target",
        "The app target (trailblaze.yaml targets:) the device session is opened for; 'none' clears it",
        str,
        aliases=("targetApp",),
    ),
    ConfigKey(
        "llmCallStrategy",
        "llm_call_strategy",
        "Where trailblaze's agent gets completions: DIRECT (llm: in trailblaze.yaml) or MCP_SAMPLING "
        "(the client's LLM)",
        _enum_value(LlmCallStrategy),
        tuple(s.value for s in LlmCallStrategy),
    ),
    ConfigKey(
        "screenshotFormat",
        "screenshot_format",
        "How screenshots come back: IMAGE_CONTENT (MCP image), BASE64_TEXT, or NONE",
        _enum_value(ScreenshotFormat),
        tuple(f.value for f in ScreenshotFormat),
    ),
    ConfigKey(
        "viewHierarchyVerbosity",
        "view_hierarchy_verbosity",
        "Default detail of view hierarchies (ask): MINIMAL, STANDARD or FULL",
        _enum_value(ViewHierarchyVerbosity),
        tuple(v.value for v in ViewHierarchyVerbosity),
    ),
    ConfigKey(
        "toolProfile",
        "tool_profile",
        "Which device tools are listed: MINIMAL, DEFAULT (CORE_INTERACTION + OBSERVATION), STANDARD, TESTING "
        "or ALL; toolbox picks categories one by one",
        _enum_value(Profile),
        tuple(p.value for p in Profile),
    ),
    ConfigKey(
        "autoIncludeScreenshot",
        "auto_include_screenshot",
        "Attach a screenshot to the result of every device tool call (true/false)",
        _boolean,
        ("true", "false"),
    ),
)


def config_key(name: str) -> ConfigKey | None:
    wanted = name.strip().lower()
    for key in CONFIG_KEYS:
        if wanted in (key.name.lower(), *(a.lower() for a in key.aliases)):
            return key
    return None


@dataclass(slots=True)
class Settings:
    """What ``config`` shows and changes, for one client session."""

    mode: Mode = Mode.MCP_CLIENT_AS_AGENT
    target: str | None = None
    llm_call_strategy: LlmCallStrategy = LlmCallStrategy.DIRECT
    screenshot_format: ScreenshotFormat = ScreenshotFormat.IMAGE_CONTENT
    view_hierarchy_verbosity: ViewHierarchyVerbosity = ViewHierarchyVerbosity.MINIMAL
    auto_include_screenshot: bool = False
    #: the profile the listed device tools follow (None once toolbox picked categories one by one)
    tool_profile: Profile | None = Profile.DEFAULT
    #: keys changed with ``config(action=SET)`` (so ``GET`` can say what is a default)
    changed: set[str] = field(default_factory=set)

    def get(self, key: ConfigKey) -> str:
        value = getattr(self, key.attribute)
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def values(self) -> dict[str, str]:
        return {key.name: self.get(key) for key in CONFIG_KEYS}
