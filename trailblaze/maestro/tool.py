"""``mobile_maestro``: Maestro commands on the Android and iOS drivers (upstream's tool of that name).

The commands are read and checked when the trail loads (:mod:`trailblaze.maestro.commands`),
so an unknown or unsupported command, or a misspelt field, fails ``trailblaze validate`` with
the line of the command, before any device is touched.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from trailblaze.maestro.commands import Command, only_reads, parse_command
from trailblaze.tools.authoring import tool, verifies_when
from trailblaze.tools.model import ToolContext

MaestroCommand = Annotated[Any, AfterValidator(parse_command)]


@tool(name="mobile_maestro", platforms=["android", "ios"], exposed_to_llm=False)
@verifies_when(lambda args: only_reads(args.get("commands")))  # only assertions: a verify: step's
async def mobile_maestro(
    ctx: ToolContext,
    commands: Annotated[
        list[MaestroCommand],
        Field(description="Maestro commands, as in a Maestro flow: '- tapOn: Submit', '- back', …"),
    ],
) -> list[str]:
    """Run Maestro commands (tapOn, inputText, assertVisible, scrollUntilVisible, launchApp…)
    directly. Prefer the specific tools."""
    from trailblaze.maestro.runner import MaestroRunner
    from trailblaze.mobile.tools import device

    parsed: list[Command] = list(commands)
    return await MaestroRunner(ctx, device(ctx)).run(parsed)
