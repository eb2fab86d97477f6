"""``tools``, ``plugins``, ``devices`` and ``schema``: what the project offers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trailblaze.cli.commands import examples, project_command
from trailblaze.cli.state import _project


@project_command(
    epilog=examples("trailblaze tools", "trailblaze tools web_click", "trailblaze tools --driver android --json")
)
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list with the registry keys.")
def tools(name: str | None, as_json: bool, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """List the tools trails can use, with their source and flags; with NAME, show that tool:
    its description, each argument (type, default, description), an example call and the
    drivers whose sessions have it (a tool of any driver, whatever --driver says).

    With --driver, shows what a session on that driver gets: MCP servers that apply to it are
    spawned (or connected), listed and shut down again. Without it, MCP tools are not listed.
    """
    from trailblaze.cli import display

    project = _project("tools", options)
    driver, target = project.config.getoption("driver"), project.config.getoption("target")
    if name is not None:
        from trailblaze.runner.listing import find_tool

        found = find_tool(project, name, driver, target)
        for note in found.notes:
            click.echo(f"note: {note}", err=True)
        if found.not_in is not None:
            click.echo(f"note: {display.not_a_tool_of(found)}", err=True)
        display.print_tool(found.spec, as_json=as_json, drivers=found.drivers)
        return 0
    from trailblaze.runner.listing import list_tools

    listing = list_tools(project, driver, target)
    for note in listing.notes:
        click.echo(f"note: {note}", err=True)
    display.print_tools(listing.specs, as_json=as_json)
    return 0


@project_command(epilog=examples("trailblaze plugins", "trailblaze plugins --json"))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plugins(as_json: bool, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """List loaded plugins: name, version and the hooks they implement."""
    from trailblaze.cli import display

    display.print_plugins(_project("plugins", options).plugins.describe(), as_json=as_json)
    return 0


@project_command(epilog=examples("trailblaze devices", "trailblaze devices --driver android --json"))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def devices(as_json: bool, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """List devices each driver can reach now."""
    import asyncio

    from trailblaze.cli import display
    from trailblaze.runner.listing import list_devices

    project = _project("devices", options)
    listing = asyncio.run(list_devices(project, project.config.getoption("driver")))
    display.print_devices(listing.rows, listing.empty, as_json=as_json)
    return 0


@project_command(
    epilog=examples("trailblaze schema > trail.schema.json", "trailblaze schema config > trailblaze.schema.json")
)
@click.argument("kind", type=click.Choice(["trail", "config"]), default="trail")
def schema(kind: str, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Print a JSON Schema (draft 2020-12) for trail files (every tool's arguments included) or
    for trailblaze.yaml (plugins' settings and sections included), for editors:
    `# yaml-language-server: $schema=trail.schema.json` at the top of a file."""
    import json

    from trailblaze.project.schema import config_schema, trail_schema

    project = _project("schema", options)
    if kind == "config":
        document = config_schema(project.config.parser)
    else:
        document = trail_schema(project.registry_for(project.workspace))
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))
    return 0
