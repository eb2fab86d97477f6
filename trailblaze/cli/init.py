"""``trailblaze init``: a new project's files."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("directory", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
def init(directory: Path, force: bool) -> int:
    """Create trailblaze.yaml and a trails/ folder with an example trail in DIRECTORY."""
    from trailblaze.cli.scaffold import scaffold

    for path in scaffold(directory, force=force):
        click.echo(f"created {path}")
    click.echo(f"\nnext: cd {directory} && trailblaze run")
    return 0
