"""Built-in plugin: the ``trailblaze mcp`` command, the MCP server any agent drives a device with
(:mod:`trailblaze.mcpserver`). It adds the command as any plugin adds one, in
``trailblaze_register_commands``; ``-p no:mcp_server`` leaves it out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    import click


@hookimpl
def trailblaze_register_commands(cli: click.Group) -> None:
    from trailblaze.cli.mcp import mcp_command

    cli.add_command(mcp_command)
