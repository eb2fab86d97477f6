"""``run``, ``record`` and ``validate``: the commands on trail files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trailblaze.cli.commands import examples, project_command, with_paths
from trailblaze.cli.state import _project


@project_command(
    epilog=examples(
        "trailblaze run",
        "trailblaze run trails/login.trail.yaml --headed",
        "trailblaze run -k checkout --workers 4 --html",
        "trailblaze run --base-url http://localhost:3000 --json results.json --junit results.xml",
    )
)
@with_paths
def run(paths: tuple[Path, ...], plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Replay trails (files, or folders searched for *.trail.yaml and trail.yaml).

    Exit codes: 0 all passed, 1 a trail failed, 2 infrastructure error (browser, device,
    server), 3 misuse (bad arguments, config or trail file), 4 internal error.
    """
    from trailblaze.runner.options import run_options
    from trailblaze.runner.run import run_trails

    project = _project("run", options)
    if project.config.getoption("list_only", False):
        from trailblaze.runner.plan import prepare
        from trailblaze.runner.selection import print_listing

        # the plan as the run would have it, after --shard and plugins' trailblaze_modify_plan
        print_listing(prepare(project, run_options(project.config, paths, artifacts=False), select=True))
        return 0
    return int(run_trails(project, run_options(project.config, paths)).exit_code)


@project_command(
    epilog=examples(
        "trailblaze record trails/new-flow.trail.yaml --agent interactive",
        "trailblaze record trails/login.trail.yaml --step 3 --dry-run",
        "trailblaze record trails/login.trail.yaml --resume",
    )
)
@with_paths
def record(paths: tuple[Path, ...], plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Author trails: walk them on a device, let an agent work out the steps that have no
    recording, and write what it executed into the trail file.

    Steps that have a recording for the device are replayed to reach the next step. The
    file keeps its comments, order and other devices' recordings; it is written once, at the
    end, and Ctrl-C leaves it untouched (`--resume` continues). Exit codes as for `run`.
    """
    from trailblaze.runner.options import run_options
    from trailblaze.runner.record import record_options, record_trails

    project = _project("record", options)
    if project.config.getoption("from_maestro", False):  # declared by the maestro_flows plugin
        from trailblaze.cli.maestro import record_from_maestro

        return record_from_maestro(project, paths)
    run_opts = run_options(project.config, paths)
    return int(record_trails(project, run_opts, record_options(project, run_opts)).exit_code)


@project_command(epilog=examples("trailblaze validate", "trailblaze validate trails/login.trail.yaml --driver android"))
@with_paths
def validate(paths: tuple[Path, ...], plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Check trail files without running them: every check `run` makes before a device opens
    (YAML, structure, drivers, tools and their arguments, recordings, --arg names, URLs), and
    the tools of the project's MCP servers, which are started to list them.

    Reports every problem in every file, then exits 3 if there were any (2 if an MCP server
    would not start).
    """
    from trailblaze.runner.options import run_options
    from trailblaze.runner.validate import validate as validate_trails

    project = _project("validate", options)
    trails = validate_trails(project, run_options(project.config, paths, artifacts=False))
    click.echo(f"{len(trails)} {'trail' if len(trails) == 1 else 'trails'} valid")
    return 0
