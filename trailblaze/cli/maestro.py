"""``trailblaze record --from-maestro FLOW…``: Maestro flows written as trail files, without a
device — one ``NAME.trail.yaml`` beside each ``NAME.yaml``, each command the recording of its
step (:mod:`trailblaze.drivers.maestro.convert`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from trailblaze.core.errors import ErrorList, UsageError

if TYPE_CHECKING:
    from trailblaze.runner.project import Project


def record_from_maestro(project: Project, paths: Sequence[Path]) -> int:
    """Write each flow under ``paths`` as a trail; nothing is written unless every one can be
    (a flow that does not read, or a trail file that is there already, stops them all)."""
    from trailblaze.core.fileio import write_atomic
    from trailblaze.drivers.maestro.convert import trail_text
    from trailblaze.runner.checks import collect_trails
    from trailblaze.trail.loader import load_trail

    if not paths:
        raise UsageError("record --from-maestro: name the flow files or folders to convert")
    trails, problems = collect_trails(project, paths, {}, require_args=False)
    if problems:
        raise ErrorList(problems)
    flows = [t for t in trails if "maestro" in t.config.metadata]
    if not flows:
        raise UsageError(f"record --from-maestro: no Maestro flow in {', '.join(str(p) for p in paths)}")
    planned: list[tuple[Path, str, int]] = []
    for trail in flows:
        target = trail.path.with_name(trail.path.name.rsplit(".", 1)[0] + ".trail.yaml")
        if target.exists():
            raise UsageError(f"{target} exists already: move it away to convert {trail.path} again")
        text = trail_text(trail)
        load_trail(target, text=text, require_args=False)  # what is about to be written reads back
        planned.append((target, text, len(trail.steps)))
    for (target, text, steps), trail in zip(planned, flows, strict=True):
        write_atomic(target, text)
        click.echo(f"wrote {target} ({steps} steps) from {trail.path}")
    return 0
