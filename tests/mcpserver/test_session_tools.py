"""The session tools' arguments and lookups, through the SDK's client over stdio: what a client
gets when it names something ambiguous or passes a value the tool does not know."""

from __future__ import annotations

import asyncio
from typing import Any

from conftest import Project

from tests.mcpserver.support import failed, stdio


def _enum_values(schema: dict[str, Any]) -> set[str]:
    """Every ``enum`` value anywhere in a property's schema (however its optionality is written)."""
    found: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(node.get("enum", ()))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def test_hint_is_an_enum_and_an_unknown_one_lists_the_valid_ones(project: Project) -> None:
    async def scenario() -> tuple[dict[str, Any], str, str]:
        async with stdio(project.root) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            unknown = failed(
                await client.call_tool("step", {"objective": "Check it", "hint": "CHECK", "tools": "- wait: {}"})
            )
            wrong_type = failed(await client.call_tool("step", {"objective": "Check it", "hint": 3, "tools": "- x"}))
            return tools["step"].input_schema["properties"]["hint"], unknown, wrong_type

    hint, unknown, wrong_type = asyncio.run(scenario())
    assert _enum_values(hint) == {"VERIFY", "NAVIGATION"}
    assert "unknown hint 'CHECK': use one of VERIFY, NAVIGATION, or leave it out" in unknown
    assert "unknown hint 3" in wrong_type


def test_run_by_a_title_two_trails_share_names_both(project: Project) -> None:
    body = "config: {title: Checkout}\ntrail:\n  - step: Pay\n"
    project.write("trails/web/checkout.trail.yaml", body)
    project.write("trails/android/checkout.trail.yaml", body)
    project.write("trails/other.trail.yaml", "config: {title: Other}\ntrail:\n  - step: Look\n")

    async def scenario() -> str:
        async with stdio(project.root) as client:
            return failed(await client.call_tool("trail", {"action": "RUN", "name": "Checkout"}))

    message = asyncio.run(scenario())
    assert "2 trails are titled 'Checkout'" in message
    assert "trails/android/checkout.trail.yaml" in message and "trails/web/checkout.trail.yaml" in message
    assert 'trail(action=RUN, file="trails/' in message
    assert "other" not in message
