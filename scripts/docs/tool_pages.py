"""The tool reference: a page per tool family, made from ``trailblaze tools --json``.

Every built-in tool with its description, source, platforms, drivers, flags and each argument
(type, default, description), and the types the arguments use (``NodeSelector``…) at the end of
the page. A family is the set of platforms a tool works on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schema_text import Schema, cell, property_table, referenced_defs, types_section


@dataclass(frozen=True)
class Family:
    slug: str
    title: str
    intro: str

    def holds(self, platforms: frozenset[str]) -> bool:
        return FAMILY_OF.get(platforms, "core") == self.slug


FAMILIES = (
    Family("core", "Core tools", "Tools every driver has: on the web, on Android and on iOS."),
    Family("web", "Web tools", "Tools of the web driver (`playwright-native`), on a page in Chromium."),
    Family(
        "mobile", "Mobile tools", "Tools of the phone drivers: Android (`android-uiautomator2`) and iOS (`ios-wda`)."
    ),
)
#: the family of a tool, by the platforms it works on (no platforms: every one, a core tool)
FAMILY_OF = {
    frozenset(): "core",
    frozenset({"web"}): "web",
    frozenset({"android", "ios"}): "mobile",
    frozenset({"android"}): "mobile",
    frozenset({"ios"}): "mobile",
}

#: a registry flag, and what it means for a user, when it is set (or, for some, when it is not)
FLAGS: tuple[tuple[str, bool, str], ...] = (
    ("exposedToLlm", True, "offered to agents"),
    ("exposedToLlm", False, "not offered to agents (trails still run it)"),
    ("isRecordable", True, "recorded when it runs"),
    ("isRecordable", False, "not recorded"),
    ("isDelegating", True, "delegating: runs other tools, and those are what is recorded"),
    ("isVerification", True, "a check: allowed in `verify:` steps"),
    ("isQuery", True, "a query: its answer goes to the agent that called it, never into a recording"),
    ("requiresHost", True, "runs on the host"),
    ("requiresContext", True, "gets the session's memory and target"),
    ("defaultEnabled", False, "in a group agents are not offered by default"),
)


def flags_text(tool: dict[str, Any]) -> str:
    return "; ".join(text for key, value, text in FLAGS if tool.get(key) is value)


def platforms_text(tool: dict[str, Any]) -> str:
    return ", ".join(tool.get("platforms") or []) or "all (web, Android, iOS)"


def tool_section(tool: dict[str, Any]) -> str:
    lines = [f"## {tool['name']}", "", cell(tool.get("description") or "No description."), ""]
    facts = [
        ("Platforms", platforms_text(tool)),
        ("Drivers", ", ".join(f"`{d}`" for d in tool.get("drivers") or []) or "any"),
        ("Flags", flags_text(tool)),
        ("Groups", ", ".join(f"`{g}`" for g in tool.get("groups") or [])),
        ("Toolset", f"`{tool['toolset']}`" if tool.get("toolset") else ""),
        ("From", f"`{tool['source']}`"),
    ]
    lines += [f"- **{name}**: {value}" for name, value in facts if value]
    lines.append("")
    table = property_table(tool.get("inputSchema") or {})
    lines.append(table if table else "No arguments.\n")
    return "\n".join(lines)


def family_page(family: Family, tools: list[dict[str, Any]]) -> str:
    mine = sorted(
        (t for t in tools if family.holds(frozenset(t.get("platforms") or []))), key=lambda t: t["name"].lower()
    )
    defs: dict[str, Schema] = {}
    for tool in mine:
        schema = tool.get("inputSchema") or {}
        defs.update({k: v for k, v in referenced_defs(schema, schema.get("$defs", {})).items() if k not in defs})
    parts = [
        f"# {family.title}",
        "",
        family.intro,
        "This page is made from `trailblaze tools --json` when the site is built: see",
        "[Tools](index.md) for how to read it.",
        "",
        "| tool | what it does |",
        "| --- | --- |",
        *(
            f"| [`{t['name']}`](#{t['name'].lower()}) | {cell(first_sentence(t.get('description') or ''))} |"
            for t in mine
        ),
        "",
        *(tool_section(t) for t in mine),
    ]
    if defs:
        parts += ["# Types", "", "The types the arguments above use.", "", types_section(defs)]
    return "\n".join(parts)


def first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return head + (dot.strip() if dot else "")


def pages(tools: list[dict[str, Any]]) -> dict[str, str]:
    """The family pages, by their path in the site."""
    return {f"tools/{family.slug}.md": family_page(family, tools) for family in FAMILIES}
