"""``trailblaze validate``: every check ``trailblaze run`` makes before a device opens, and the
tools of the project's MCP servers, without running anything.

The checks are :func:`~trailblaze.runner.plan.prepare`'s — the very function ``run`` calls, which
makes every check of :mod:`trailblaze.runner.checks` —
so ``validate`` answers as ``run`` would: the same problems, the same first message, the same
exit code, for the driver named with ``--driver``. What ``run`` learns only once a session is
open is found here too: the tools MCP servers offer. The servers of each (driver, target) the
trails plan for are started, listed and shut down (as ``trailblaze tools --driver`` does), and
the calls to their tools are checked like any other; a server that cannot start is an error
that says the calls to it were not checked (exit 2, as the run would end).

Without ``--driver``, a trail is checked for every device it may be replayed on: every
recording in the file against every tool, and steps without a recording are not problems (a
trail library holds steps meant for ``record``, and legacy files that say nothing of their
device).

Arguments without a default need no ``--arg`` here: a trail library is validated without
the values only a run needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from trailblaze.api.session import PlannedTrail, RunOptions
from trailblaze.core.errors import ErrorList, InfrastructureError, TrailblazeError, UsageError
from trailblaze.runner.checks import sort_out, warn
from trailblaze.runner.plan import prepare
from trailblaze.runner.project import Project
from trailblaze.trail.checks import check_trail_tools
from trailblaze.trail.model import Trail


def validate(project: Project, options: RunOptions) -> list[Trail]:
    """The trails under ``options.paths`` when they are valid; raises :class:`ErrorList` (or
    the error of an MCP server that would not start) otherwise."""
    named = options.driver is not None
    run = prepare(project, options, recordings=named, require_args=False, per_driver=named)
    problems: list[TrailblazeError] = []
    if project.has_dynamic_tools:
        problems.extend(_server_tool_problems(project, run.planned))
    unique = {str(p): p for p in problems}
    if unique:
        raise ErrorList(unique.values())
    return run.trails


def _server_tool_problems(project: Project, planned: Sequence[PlannedTrail]) -> list[TrailblazeError]:
    from trailblaze.runner.listing import session_tools

    groups: dict[tuple[str, str | None], list[PlannedTrail]] = {}
    for item in planned:
        if item.skip_reason is None:
            groups.setdefault((item.driver_key, item.target), []).append(item)
    problems: list[TrailblazeError] = []
    waived: list[TrailblazeError] = []
    for (driver_key, target), members in groups.items():
        try:
            registry = asyncio.run(session_tools(project, driver_key, target))
        except TrailblazeError as exc:
            # misuse (a server's declaration is wrong) stays misuse, exit 3 as `run` has it; a
            # server that would not start is trouble of the machine, exit 2
            if isinstance(exc, UsageError):
                raise UsageError(
                    f"{exc}\n(the calls to the MCP tools of {driver_key} sessions were not checked)"
                ) from None
            raise InfrastructureError(
                f"{exc}\n(the MCP servers of {driver_key} sessions could not be started, so the calls to their tools "
                "were not checked)"
            ) from None
        platform = project.drivers.resolve(driver_key).platform
        for item in members:
            found = check_trail_tools(item.trail, registry, (platform,), driver=driver_key)
            kept, excused = sort_out(item.workspace, item.trail, found)
            problems.extend(kept)
            waived.extend(excused)
    warn(waived)
    return problems
