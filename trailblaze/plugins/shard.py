"""Built-in plugin: ``--shard i/n`` runs this CI job's share of the selected trails.

A CI matrix starts ``trailblaze run --shard 1/4`` … ``--shard 4/4`` on machines that know
nothing of each other; together they run every trail once (:mod:`trailblaze.runner.sharding` decides
who runs what, from the trail ids and, with ``--shard-durations FILE``, a previous run's
results JSON). ``trailblaze merge-reports``, which this plugin adds, joins the shards' reports
afterwards and hands the merged run to the reporters.

Not to be confused with ``--shard-split``/``--shard-all``, which spread one run over several
devices of one machine; both can be given together.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import hookimpl
from trailblaze.core.errors import UsageError

if TYPE_CHECKING:
    import click

    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.config import Config

PLUGIN_NAME = "shard.selection"


class ShardSelection:
    """Keeps shard ``index`` of ``total`` of the planned trails (by trail id, so every device
    a trail runs on is in the same shard, and its durations add up)."""

    def __init__(self, index: int, total: int, durations: Path | None) -> None:
        self.index, self.total, self.durations = index, total, durations

    @hookimpl
    def trailblaze_modify_plan(self, run: Run) -> None:
        from trailblaze.runner import sharding

        known = sharding.durations_from(self.durations) if self.durations is not None else None
        shard_of = sharding.assign([p.trail.id for p in run.planned], self.total, known)
        run.planned[:] = [p for p in run.planned if shard_of[p.trail.id] == self.index]
        run.result.shard = (self.index, self.total)


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    import click

    group = parser.getgroup("general")
    group.addoption(
        "--shard",
        metavar="I/N",
        help="Run shard I of N of the selected trails (CI matrix jobs; join their --json reports with "
        "`trailblaze merge-reports`). Not --shard-split/--shard-all, which spread one run over devices.",
        commands=("run",),
    )
    group.addoption(
        "--shard-durations",
        metavar="FILE",
        type=click.Path(dir_okay=False, path_type=Path),
        help="With --shard: balance shards by the trail durations in this results JSON (a previous run's).",
        commands=("run",),
    )


@hookimpl
def trailblaze_configure(config: Config) -> None:
    spec = config.getoption("shard", None)
    durations = config.getoption("shard_durations", None)
    if spec is None:
        if durations is not None:
            raise UsageError("--shard-durations goes with --shard I/N")
        return
    from trailblaze.runner.sharding import parse_spec

    index, total = parse_spec(spec)
    config.pluginmanager.register(ShardSelection(index, total, durations), PLUGIN_NAME)


@hookimpl
def trailblaze_unconfigure(config: Config) -> None:
    selection = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if selection is not None:
        config.pluginmanager.unregister(selection)


@hookimpl
def trailblaze_register_commands(cli: click.Group) -> None:
    from trailblaze.cli.merge import merge_reports

    cli.add_command(merge_reports)
