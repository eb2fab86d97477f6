"""``mobile_maestro``: Maestro commands on the Android and iOS drivers (upstream's tool of that name).

The commands are read and checked when the trail loads (:mod:`trailblaze.drivers.maestro.commands`),
so an unknown or unsupported command, or a misspelt field, fails ``trailblaze validate`` with
the line of the command, before any device is touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field

from trailblaze.tools.authoring import tool, verifies_when
from trailblaze.tools.model import ToolContext

if TYPE_CHECKING:
    from trailblaze.drivers.maestro.commands import Command


def _command(value: Any) -> Command:
    """One Maestro command read and checked. The command models are imported here, when a
    trail holds one, not when the tool is registered: every command registers it."""
    from trailblaze.drivers.maestro.commands import parse_command

    return parse_command(value)


def _only_reads(args: Mapping[str, Any]) -> bool:
    from trailblaze.drivers.maestro.commands import only_reads

    return only_reads(args.get("commands"))


MaestroCommand = Annotated[Any, AfterValidator(_command)]


@tool(name="mobile_maestro", platforms=["android", "ios"], exposed_to_llm=False)
@verifies_when(_only_reads)  # only assertions: a verify: step's
async def mobile_maestro(
    ctx: ToolContext,
    commands: Annotated[
        list[MaestroCommand],
        Field(description="Maestro commands, as in a Maestro flow: '- tapOn: Submit', '- back', …"),
    ],
) -> list[str]:
    """Run Maestro commands (tapOn, inputText, assertVisible, scrollUntilVisible, launchApp…)
    directly. Prefer the specific tools."""
    from trailblaze.drivers.maestro.interpreter import MaestroRunner
    from trailblaze.drivers.mobile.tools import device

    parsed: list[Command] = list(commands)
    return await MaestroRunner(ctx, device(ctx)).run(parsed)
