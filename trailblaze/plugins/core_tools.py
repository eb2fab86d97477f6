"""Built-in plugin: the tools every driver offers (with the not-visible checks of the built-in
drivers, :mod:`trailblaze.drivers.checks`), and the default tool invoker."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser
    from trailblaze.tools.model import ToolCall, ToolContext, ToolOutcome


@hookimpl(trylast=True)
def trailblaze_tool_call(call: ToolCall, ctx: ToolContext) -> Awaitable[ToolOutcome]:
    """The innermost implementation: run the tool itself."""
    return ctx.tool.implementation.invoke(ctx, call.args)


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    from trailblaze.tools.bundled import TRAILMAPS

    parser.add_trailmap(TRAILMAPS / "trailblaze")  # its toolsets, and what upstream workspaces may depend on


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.checks import CHECKS
    from trailblaze.tools.bundled import TRAILMAPS, register_trailmap
    from trailblaze.tools.coretools import CORE_TOOLS

    for fn in (*CORE_TOOLS, *CHECKS):
        register(fn)
    register_trailmap(register, TRAILMAPS / "trailblaze")
