"""``trailblaze merge-reports``, added by the built-in ``shard`` plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trailblaze.cli.commands import Operands, examples, project_command
from trailblaze.cli.state import _project

#: what merge-reports takes: a path ending so is one of them, never ``--html``'s value
INPUTS = Operands("an input (a results JSON file or a folder of them)", (".json",))


@project_command(
    "merge-reports",
    operands=INPUTS,
    epilog=examples(
        "trailblaze merge-reports shard-*/results.json --json results.json --html",
        "trailblaze merge-reports downloaded/ --junit results.xml --html=ci-report/index.html",
    ),
)
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
def merge_reports(inputs: tuple[Path, ...], plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Merge the results of CI shards (`run --shard I/N --json F`) into one report, as if one
    run had run every trail. INPUTS are results JSON files or folders holding them (shards'
    downloaded artifacts). A trail several shards ran counts once (failed, then passed:
    flaky). The reporters write the merged run as they write a run, with the same options
    (--json FILE, --junit FILE, --html or --html=PATH, and plugins' reports that take
    merge-reports). Exits as that one run would have: 0, 1, 2
    or 130; 3 for a missing or bad input.
    """
    from trailblaze.api.session import Run, RunOptions
    from trailblaze.core.limits import one_line
    from trailblaze.reports.inputs import load_inputs
    from trailblaze.reports.merge import merge

    project = _project("merge-reports", options)  # the reporters claim their files before any input is read
    shards = load_inputs(inputs)
    project.config.report_paths.refuse_inputs(shard.path for shard in shards)
    merged = merge(shards)
    for warning in merged.warnings:  # they quote the shards' JSON: one line each, whatever it holds
        click.echo(f"warning: {one_line(warning)}", err=True)
    result = merged.result()
    run = Run(project, RunOptions(), project.config, result=result)
    project.hook.trailblaze_run_finish(run=run, result=result)
    summary = merged.document["summary"]
    counts = ", ".join(f"{summary[s]} {s}" for s in ("passed", "flaky", "failed", "error", "skipped") if summary[s])
    click.echo(
        f"merged {len(merged.shards)} report(s): {len(merged.document['trails'])} trails ({counts or 'none'})",
        err=project.config.report_paths.stdout is not None,  # `--json -`: stdout is the document alone
    )
    return int(result.exit_code)
