"""How the listing commands print: ``trailblaze tools``, ``plugins`` and ``devices``.

A table (rich) on a terminal, one plain line per item for pipes and CI logs, JSON with
``--json``. Descriptions and names come from plugins and servers, so they are printed as text,
never as markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from trailblaze.tools.model import ToolSpec


COLUMNS = ("tool", "source", "runs on", "flags", "description")


def print_tools(specs: Sequence[ToolSpec], *, as_json: bool = False) -> None:
    """The listing: a header, one row per tool, what the flags mean, the count per source."""
    if as_json:
        click.echo(json.dumps([s.to_registry() for s in specs], indent=2))
        return
    from trailblaze.tools.toolpage import FLAGS

    rows = [tool_row(spec) for spec in specs]
    from rich.console import Console

    console = Console(soft_wrap=False, markup=False, emoji=False)
    if console.is_terminal:
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, pad_edge=False)
        for column in COLUMNS:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
    else:
        widths = [max(len(r[i]) for r in [COLUMNS, *rows]) for i in range(4)]
        for row in [COLUMNS, *rows]:
            click.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4])
    used = {flag for row in rows for flag in row[3].split()}
    if used:
        click.echo("\nflags: " + "; ".join(f"{name} = {meaning}" for name, meaning in FLAGS if name in used))
    click.echo("`trailblaze tools NAME` shows a tool's arguments and an example call.")
    per_source: dict[str, int] = {}
    for spec in specs:
        per_source[spec.source] = per_source.get(spec.source, 0) + 1
    click.echo(f"{len(specs)} tools: " + ", ".join(f"{source} {n}" for source, n in per_source.items()))


def print_tool(spec: ToolSpec, *, as_json: bool = False) -> None:
    """One tool: ``trailblaze tools NAME``."""
    if as_json:
        click.echo(json.dumps(spec.to_registry(), indent=2))
        return
    from trailblaze.core.limits import printable
    from trailblaze.tools.toolpage import tool_page

    click.echo(printable(tool_page(spec)))


def tool_row(spec: ToolSpec) -> tuple[str, str, str, str, str]:
    """Name, source, where it applies, flags and the first line of its description."""
    from trailblaze.tools.toolpage import flags_of, where_of

    meta = spec.metadata
    summary = spec.description.splitlines()[0] if spec.description else ""
    return spec.name, spec.source, where_of(meta), " ".join(flags_of(meta)), summary


def print_plugins(rows: Sequence[dict[str, Any]], *, as_json: bool = False) -> None:
    if as_json:
        click.echo(json.dumps(list(rows), indent=2))
        return
    for row in rows:
        version = f" {row['version']}" if row["version"] else ""
        click.echo(f"{row['name']}{version} ({row['kind']}: {row['module']})")
        click.echo(f"    {', '.join(row['hooks']) or '(no hooks)'}")


def print_devices(rows: Sequence[dict[str, Any]], empty: Sequence[str], *, as_json: bool = False) -> None:
    """Devices one per line; ``empty`` says, per driver that found none, how to make one known
    (on stderr with ``--json``, so the JSON stays parseable)."""
    if as_json:
        click.echo(json.dumps(list(rows), indent=2))
        for line in empty:
            click.echo(f"note: {line}", err=True)
        return
    for line in empty:
        click.echo(line)
    for row in rows:
        if "error" in row:
            click.echo(f"{row['driver']}: {row['error']}")
        else:
            click.echo(
                f"{row['id']}  {row['platform']}  {row['driver']}  {row['width']}x{row['height']}  "
                f"{row['model']}  {row['state']}"
            )
