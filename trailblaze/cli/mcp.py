"""``trailblaze mcp``: the MCP server's command, added by the built-in ``mcp_server`` plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trailblaze.cli.commands import FiniteFloat, examples, project_command
from trailblaze.cli.state import _project
from trailblaze.core.limits import MAX_WORKERS


@project_command(
    "mcp",
    epilog=examples(
        "trailblaze mcp", 'trailblaze mcp --http --port 8931 --token "$TOKEN"', "trailblaze mcp --profile ALL"
    ),
)
@click.option("--http", "use_http", is_flag=True, help="Serve Streamable HTTP at /mcp (default: stdio).")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to listen on.")
@click.option(
    "--port", default=8931, show_default=True, type=click.IntRange(0, 65535), help="HTTP: 0 picks a free one."
)
@click.option(
    "--token",
    envvar="TRAILBLAZE_MCP_TOKEN",
    metavar="TOKEN",
    help="HTTP: require `Authorization: Bearer TOKEN` (or set TRAILBLAZE_MCP_TOKEN).",
)
@click.option(
    "--allow-host", "allowed_hosts", multiple=True, metavar="NAME", help="HTTP: also accept this Host (repeatable)."
)
@click.option(
    "--idle-timeout",
    default=1800,
    show_default=True,
    type=FiniteFloat(min=1, max=7 * 24 * 3600),
    metavar="SECONDS",
    help="HTTP: end a session (and close its device) after this long without a request.",
)
@click.option(
    "--max-sessions",
    default=8,
    show_default=True,
    type=click.IntRange(min=1, max=MAX_WORKERS),
    metavar="N",
    help="HTTP: at most N sessions hold a device (a browser, a phone) at once; one more is refused with a message.",
)
@click.option(
    "--mode",
    type=click.Choice(["MCP_CLIENT_AS_AGENT", "TRAILBLAZE_AS_AGENT"], case_sensitive=False),
    default="MCP_CLIENT_AS_AGENT",
    show_default=True,
    help="Who is the agent: the client's LLM, or trailblaze's own (step(objective), runPrompt).",
)
@click.option(
    "--profile",
    type=click.Choice(["MINIMAL", "DEFAULT", "STANDARD", "TESTING", "ALL"], case_sensitive=False),
    default="DEFAULT",
    show_default=True,
    help="The device tools listed at first (toolbox changes them): DEFAULT is CORE_INTERACTION + OBSERVATION.",
)
def mcp_command(
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    allowed_hosts: tuple[str, ...],
    idle_timeout: float,
    max_sessions: int,
    mode: str,
    profile: str,
    plugin_args: tuple[str, ...],
    config: Path | None,
    **options: Any,
) -> int:
    """Serve MCP so any agent (Claude Code, Cursor, Goose…) can drive a device and save trails.

    The client connects a browser or phone with the `device` tool, acts through the same tools a
    trail records, and `trail(action=SAVE)` writes what it did as a trail file that `trailblaze
    run` replays without an LLM. stdio by default; `--http` serves Streamable HTTP on
    127.0.0.1 (`/mcp`, and `/ping` for health checks).
    """
    from trailblaze.mcpserver.serve import Transport, check_transport, run
    from trailblaze.mcpserver.state import defaults_from

    transport = Transport(use_http, host, port, token, list(allowed_hosts), idle_timeout)
    check_transport(transport)
    project = _project("mcp", options)
    return run(project, defaults_from(project, mode, profile, max_sessions), transport)


# stdout is the protocol's (stdio) and the server's log's (--http): reporters keep off it
mcp_command.stdout_protocol = "MCP"
