"""A Python plugin of this example (listed in trailblaze.yaml's `plugins:`): a check the
TypeScript tool runs through `ctx.tools`, as it runs the built-ins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trailblaze
from trailblaze import ToolContext, ToolFailure


@trailblaze.tool(name="shop_checkPlan", platforms=["web"], verification=True)
async def check_plan(ctx: ToolContext, plan: str) -> str:
    """Check that the submitted form's result names the plan."""
    shown = await ctx.commands.get_element_text(selector={"web": {"cssSelector": "#result-plan"}})
    if shown != f"Plan: {plan}":
        raise ToolFailure(f"the result says {shown!r}, expected 'Plan: {plan}'")
    return shown


@trailblaze.hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    register(check_plan)
