"""``trailblaze init``: a new project's files."""

from __future__ import annotations

from pathlib import Path

import click

from trailblaze.cli.commands import examples


@click.command(epilog=examples("trailblaze init", "trailblaze init my-tests && cd my-tests && trailblaze run"))
@click.argument("directory", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
def init(directory: Path, force: bool) -> int:
    """Create trailblaze.yaml and a trails/ folder with an example trail in DIRECTORY, and
    have its .gitignore leave out what runs write (.trailblaze/, trailblaze-report/)."""
    from trailblaze.cli.scaffold import ignore_what_runs_leave, scaffold

    for path in scaffold(directory, force=force):
        click.echo(f"created {path}")
    existed = (directory / ".gitignore").exists()
    ignored = ignore_what_runs_leave(directory)
    if ignored is not None:
        path, lines = ignored
        click.echo(f"added {', '.join(lines)} to {path}" if existed else f"created {path}")
    click.echo(f"\nnext: cd {directory} && trailblaze run")
    return 0
