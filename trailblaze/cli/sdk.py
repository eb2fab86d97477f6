"""``trailblaze sdk``: the @trailblaze/scripting SDK this install carries, for editors and npm."""

from __future__ import annotations

from pathlib import Path

import click

from trailblaze.cli.commands import examples


@click.group(epilog=examples("trailblaze sdk install", "trailblaze sdk path"))
def sdk() -> None:
    """The @trailblaze/scripting SDK that tools in TypeScript run on: trailblaze carries it
    (no npm install); these commands put it where an editor or npm can see it."""


@sdk.command(epilog=examples("trailblaze sdk path"))
def path() -> int:
    """Print the folder of the SDK trailblaze runs tools with (an npm package folder:
    `npm install "$(trailblaze sdk path)"` installs it into a JavaScript project)."""
    from trailblaze.project.scriptedtools import sdk_cli

    click.echo(str(sdk_cli().parent.parent))
    return 0


@sdk.command(epilog=examples("trailblaze sdk install", "trailblaze sdk install path/to/trails"))
@click.argument("workspace", required=False, type=click.Path(file_okay=False, path_type=Path))
def install(workspace: Path | None) -> int:
    """Copy the SDK's declarations into WORKSPACE/.trailblaze/sdk/ and write a tsconfig.json
    into each trailmap's tools/ folder, so an editor type-checks and completes tool files.

    WORKSPACE is a trails/ folder holding config/trailblaze.yaml; by default the one the working
    directory is in (or TRAILBLAZE_CONFIG_DIR's). A tsconfig.json you wrote is left as it is.
    Run it again after upgrading trailblaze."""
    from trailblaze.core.errors import UsageError
    from trailblaze.project.editorsdk import install as install_sdk
    from trailblaze.project.projectfile import find_workspace

    if workspace is None:
        found = find_workspace(Path.cwd())
        if found is None:
            raise UsageError(
                "no workspace here: no trails/config/trailblaze.yaml in this folder or above it; "
                "name a trails/ folder (`trailblaze sdk install path/to/trails`)"
            )
        workspace = found.parent.parent
    elif not (workspace / "config" / "trailblaze.yaml").is_file() and (workspace / "trails").is_dir():
        workspace = workspace / "trails"  # the folder holding trails/
    done = install_sdk(workspace)
    click.echo(f"wrote the SDK into {done.sdk}")
    for config in done.written:
        click.echo(f"wrote {config}")
    for config in done.kept:
        click.echo(f"kept {config}: it is not one trailblaze wrote")
    return 0
