"""Example plugin: tools for the sample web app, registered through the `trailblaze` entry point."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import trailblaze
from trailblaze import Delegate, ToolContext, ToolFailure

FORMS_HEADING = {"web": {"headingLevel": 1, "ariaNameRegex": "Forms"}}
LIST_LINKS = {"web": {"ariaRole": "link"}, "childOf": {"web": {"dataTestId": "item-list"}}}


@trailblaze.tool(name="sample_openForms", platforms=["web"], delegating=True, groups=["sample"])
async def open_forms(ctx: ToolContext) -> list[Delegate]:
    """Open the sample app's forms page, unless it is already showing."""
    if await ctx.commands.is_visible(selector=FORMS_HEADING):  # a query: allowed while delegating
        return []
    return [Delegate("web_navigate", {"url": "/forms.html"})]


@trailblaze.tool(name="sample_submitContactForm", platforms=["web"], delegating=True, groups=["sample"])
async def submit_contact_form(
    ctx: ToolContext, name: str, email: str, plan: Literal["Free", "Pro", "Team"] = "Free"
) -> list[Delegate]:
    """Fill in the contact form and submit it."""
    return [
        Delegate("web_type", {"text": name, "nodeSelector": {"web": {"dataTestId": "name-input"}}}),
        Delegate("web_type", {"text": email, "nodeSelector": {"web": {"dataTestId": "email-input"}}}),
        Delegate("web_selectOption", {"values": [plan], "nodeSelector": {"web": {"cssSelector": "#plan"}}}),
        {
            "tool": "web_click",
            "args": {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Submit"}}},
        },
    ]


@trailblaze.tool(name="sample_signUp", platforms=["web"], delegating=True, groups=["sample"])
async def sign_up(
    ctx: ToolContext, name: str, email: str, plan: Literal["Free", "Pro", "Team"] = "Pro"
) -> list[Delegate]:
    """Sign up: open the form, submit it and check the result (delegates to other delegating tools)."""
    return [
        Delegate("sample_openForms"),
        Delegate("sample_submitContactForm", {"name": name, "email": email, "plan": plan}),
        Delegate("web_verifyTextVisible", {"text": f"Name: {name}"}),
    ]


@trailblaze.tool(name="sample_filterItems", platforms=["web"], groups=["sample"])
async def filter_items(ctx: ToolContext, query: str, expected: int) -> dict[str, Any]:
    """Filter the list page and check how many items remain (acts through ctx.commands)."""
    await ctx.commands.navigate("/lists.html")
    await ctx.commands.tap(selector={"web": {"dataTestId": "filter-input"}})
    await ctx.commands.input_text(query)
    count = await ctx.commands.get_element_count(selector=LIST_LINKS)
    if count != expected:
        raise ToolFailure(f"filtering for {query!r} left {count} items, expected {expected}")
    return {"query": query, "count": count}


@trailblaze.tool(name="sample_assertItemCount", platforms=["web"], verification=True, groups=["sample"])
def assert_item_count(ctx: ToolContext, expected: int) -> str:
    """Check the number of visible list items (a plain function: ctx.commands calls block)."""
    count = ctx.commands.get_element_count(selector=LIST_LINKS)
    assert count == expected, f"{count} items visible, expected {expected}"
    return f"{count} items"


@trailblaze.hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    for fn in (open_forms, submit_contact_form, sign_up, filter_items, assert_item_count):
        register(fn)
