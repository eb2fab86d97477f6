"""How the listing commands print: ``trailblaze tools``, ``plugins``, ``devices`` and ``doctor``.

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
    from trailblaze.runner.doctor import DoctorReport
    from trailblaze.runner.listing import FoundTool
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


def print_tool(spec: ToolSpec, *, as_json: bool = False, drivers: Sequence[str] | None = None) -> None:
    """One tool: ``trailblaze tools NAME``; ``drivers``, the keys of the drivers whose sessions
    have it."""
    if as_json:
        click.echo(json.dumps(spec.to_registry(), indent=2))
        return
    from trailblaze.core.limits import printable
    from trailblaze.tools.toolpage import tool_page

    click.echo(printable(tool_page(spec, drivers)))


def not_a_tool_of(found: FoundTool) -> str:
    """What ``trailblaze tools NAME --driver KEY`` says of a tool of other drivers."""
    from trailblaze.tools.toolpage import drivers_text

    return f"{found.spec.name} is not a tool of {found.not_in} sessions; its drivers: {drivers_text(found.drivers)}"


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


#: how each status of ``trailblaze doctor`` looks on a terminal
STATUS_STYLES = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def print_doctor(report: DoctorReport, *, as_json: bool = False) -> None:
    """One line per check (its status, name and what was found) and, under it, its fix; then
    whether the project's trails can run here. On a terminal the statuses have colours and
    long lines wrap under their column; for pipes and CI logs, one plain line each."""
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    from trailblaze.core.limits import printable

    rows: list[tuple[str, str, str]] = []
    for finding in report.findings:
        check = finding.check
        lines = printable(check.detail).splitlines() or [""]
        rows.append((check.status, check.name, lines[0]))
        rows += [("", "", line) for line in lines[1:]]
        if check.fix and check.status != "ok":
            rows.append(("", "", f"fix: {printable(check.fix)}"))
    from rich.console import Console

    console = Console(soft_wrap=False, markup=False, emoji=False, highlight=False)
    if console.is_terminal:
        from rich.table import Table
        from rich.text import Text

        table = Table.grid(padding=(0, 2))
        for _ in range(3):
            table.add_column()
        for status, name, text in rows:
            style = "bold" if text.startswith("fix: ") else ""
            table.add_row(Text(status, style=STATUS_STYLES.get(status, "")), Text(name), Text(text, style=style))
        console.print(table)
    else:
        widths = [max(len(row[i]) for row in rows) for i in range(2)]
        for status, name, text in rows:
            click.echo(f"{status.ljust(widths[0])}  {name.ljust(widths[1])}  {text}".rstrip())
    click.echo(summary(report))


def summary(report: DoctorReport) -> str:
    """The last line: whether the project's trails can run here, and what stands in the way."""
    failed = report.failed
    warnings = report.count("warn")
    plural = "s" if warnings != 1 else ""
    if failed:
        names = list(dict.fromkeys(f.check.name for f in failed))
        mend = "it" if len(names) == 1 else "them"
        return f"not ready: {', '.join(names)} failed; the fix: lines say how to mend {mend}"
    if report.config_path is None:
        return "no project here; the install is checked" + (f" ({warnings} warning{plural})" if warnings else "")
    noted = f" ({warnings} warning{plural}: what the trails do not need)" if warnings else ""
    return f"ready: the project's trails can run here{noted}"
