"""Tool categories and profiles: which of the device's tools a session offers (``toolbox``).

Seed 001's two-tier tool management: a client narrows the device tools it sees to the
categories its task needs, which keeps its context small. The categories and profiles are
upstream's (``ToolSetCategory``, its toolset files ``core_interaction``, ``navigation``,
``observation``, ``verification``, ``memory``), plus ``APP`` for the tools of the app under
test — plugins' and MCP toolsets' tools — which upstream offers with the target.

A new session offers upstream's default categories, ``CORE_INTERACTION`` and ``OBSERVATION``
(the ``DEFAULT`` profile), with the app's own tools (``APP``): what an agent needs to act and
look, for a few thousand tokens of tools/list. ``toolbox(action=ENABLE, categories=[…])`` or
``toolbox(action=PROFILE, profile=…)`` (or ``config`` key ``toolProfile``, or ``trailblaze mcp
--profile``) offers more; tools outside the enabled categories can still be called by name
(``step(tools=…)`` runs any tool, as a trail does).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from trailblaze.tools.model import ToolSpec


class Category(enum.StrEnum):
    CORE_INTERACTION = "CORE_INTERACTION"
    NAVIGATION = "NAVIGATION"
    OBSERVATION = "OBSERVATION"
    VERIFICATION = "VERIFICATION"
    MEMORY = "MEMORY"
    APP = "APP"
    ALL = "ALL"


class Profile(enum.StrEnum):
    MINIMAL = "MINIMAL"
    DEFAULT = "DEFAULT"
    STANDARD = "STANDARD"
    TESTING = "TESTING"
    ALL = "ALL"


DESCRIPTIONS: dict[Category, str] = {
    Category.CORE_INTERACTION: "Tap, click, type, swipe, scroll, wait: the basic interactions",
    Category.NAVIGATION: "Back, URLs, launching and stopping apps, scrolling until something shows, other trails",
    Category.OBSERVATION: "Snapshots and what is on screen",
    Category.VERIFICATION: "Checks that change nothing: assert visible, verify text, values and lists",
    Category.MEMORY: "Remember values from the screen and compare them",
    Category.APP: "Tools of the app under test: from plugins and the target's MCP toolsets",
    Category.ALL: "Every category",
}

PROFILES: dict[Profile, frozenset[Category]] = {
    Profile.MINIMAL: frozenset({Category.CORE_INTERACTION}),
    Profile.DEFAULT: frozenset({Category.CORE_INTERACTION, Category.OBSERVATION}),
    Profile.STANDARD: frozenset({Category.CORE_INTERACTION, Category.NAVIGATION, Category.OBSERVATION}),
    Profile.TESTING: frozenset(
        {
            Category.CORE_INTERACTION,
            Category.NAVIGATION,
            Category.OBSERVATION,
            Category.VERIFICATION,
            Category.MEMORY,
        }
    ),
    Profile.ALL: frozenset({Category.ALL}),
}

_MEMBERS: dict[Category, frozenset[str]] = {
    Category.CORE_INTERACTION: frozenset(
        {
            "clearText",
            "dragTo",
            "eraseText",
            "hideKeyboard",
            "inputText",
            "inputTextRandom",
            "launchApp",
            "longPress",
            "longPressOnElementWithText",
            "longPressElementWithAccessibilityText",
            "mobile_pasteClipboard",
            "mobile_setClipboard",
            "networkConnection",
            "openUrl",
            "pressKey",
            "scrollUntilTextIsVisible",
            "swipe",
            "takeSnapshot",
            "tap",
            "tapOn",
            "tapOnElementBySelector",
            "tapOnElementWithAccessibilityText",
            "tapOnElementWithText",
            "tapOnPoint",
            "wait",
            "waitForChange",
            "web_click",
            "web_fillSecret",
            "web_hover",
            "web_navigate",
            "web_pressKey",
            "web_resize",
            "web_scroll",
            "web_selectOption",
            "web_type",
            "web_wait",
            "web_waitForUrl",
        }
    ),
    Category.NAVIGATION: frozenset(
        {
            "launchApp",
            "openUrl",
            "pressBack",
            "runTrail",
            "scrollUntilTextIsVisible",
            "stopApp",
            "web_currentUrl",
            "web_navigate",
            "web_waitForUrl",
        }
    ),
    Category.OBSERVATION: frozenset({"takeSnapshot", "web_snapshot", "web_currentUrl"}),
    Category.MEMORY: frozenset(
        {"assertEquals", "assertMath", "assertNotEquals", "dumpMemory", "rememberNumber", "rememberText"}
    ),
}


#: a tool every driver has, and the tool of a platform that does the same there: with a device of
#: that platform, ``tools/list`` offers only the platform's own (what a trail on it records) —
#: an agent is not left to choose between ``tap`` and ``web_click`` — while both still run, in a
#: trail and when called by name (upstream's trails hold either)
SAME_ACTION: dict[str, dict[str, str]] = {
    "tap": {"web": "web_click"},
    "wait": {"web": "web_wait"},
    "takeSnapshot": {"web": "web_snapshot"},
    "assertVisible": {"web": "web_verifyElementVisible"},
    "assertNotVisibleWithText": {"web": "web_verifyTextNotVisible"},
}


def same_action_as(name: str, platform: str | None, offered: Iterable[str]) -> str | None:
    """The tool of ``platform`` that does what ``name`` does, when it is among ``offered``."""
    own = SAME_ACTION.get(name, {}).get(platform or "")
    return own if own is not None and own in set(offered) else None


def categories_of(spec: ToolSpec, builtin_sources: Iterable[str]) -> frozenset[Category]:
    """The categories ``spec`` belongs to (at least one)."""
    if spec.source not in set(builtin_sources):
        return frozenset({Category.APP})
    found = {category for category, names in _MEMBERS.items() if spec.name in names}
    if spec.metadata.verification:
        found.add(Category.VERIFICATION)
    return frozenset(found or {Category.CORE_INTERACTION})


def offered(spec: ToolSpec, enabled: frozenset[Category], builtin_sources: Iterable[str]) -> bool:
    """Whether a session with ``enabled`` categories offers ``spec``."""
    if Category.ALL in enabled:
        return True
    return bool(categories_of(spec, builtin_sources) & enabled)


def profile_categories(profile: Profile) -> frozenset[Category]:
    """What choosing ``profile`` enables: its categories, and the app's own tools."""
    if profile is Profile.ALL:
        return PROFILES[profile]
    return PROFILES[profile] | {Category.APP}


def profile_of(enabled: frozenset[Category]) -> Profile | None:
    """The profile ``enabled`` is exactly (None when categories were picked one by one)."""
    return next((p for p in Profile if profile_categories(p) == enabled), None)


#: what ``step(hint="NAVIGATION")`` leaves trailblaze's agent (seed 004: the minimal tools plus
#: launching, URLs and scrolling)
NAVIGATION_HINT = frozenset({Category.CORE_INTERACTION, Category.NAVIGATION})


def for_navigation(specs: Iterable[ToolSpec], builtin_sources: Iterable[str]) -> list[ToolSpec]:
    """The tools of ``specs`` a ``hint="NAVIGATION"`` step offers trailblaze's agent."""
    builtin = frozenset(builtin_sources)
    return [spec for spec in specs if categories_of(spec, builtin) & NAVIGATION_HINT]
