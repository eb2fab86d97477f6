"""Plan a run: collect trails, pick each one's driver and target, decide what is skipped, check.

Everything here happens before any device work; a single problem stops the run with exit 3
(like pytest's collection errors), listing every problem found (:mod:`trailblaze.runner.checks`).
``trailblaze validate`` prepares exactly so (:mod:`trailblaze.runner.validate`), so it answers as
``run`` would.
"""

from __future__ import annotations

import sys

from trailblaze.api.session import PlannedTrail, Run, RunOptions
from trailblaze.core.errors import ErrorList, TrailblazeError, UsageError
from trailblaze.runner import checks, selection
from trailblaze.runner.project import Project
from trailblaze.trail.model import Trail


def prepare(
    project: Project,
    options: RunOptions,
    *,
    recordings: bool = True,
    require_args: bool = True,
    per_driver: bool = True,
    select: bool = False,
) -> Run:
    """Collect, plan and check; raise :class:`ErrorList` with every problem found.

    ``recordings``: a step without a recording for its trail's driver is a problem (``run``;
    not ``record`` nor ``run --self-heal``, whose agent works such steps out).
    ``require_args``: a trail argument without a default needs ``--arg`` (not for ``validate``).
    ``per_driver``: calls are checked against the tools of each trail's driver (``run``); when
    False, every recording in a file against every tool (``validate`` without ``--driver``).
    """
    check_options(options)
    if options.driver:
        project.drivers.require(options.driver)  # a wrong --driver is one error, not one per trail
    if options.target and project.target_config(options.target, project.workspace) is None:
        known = ", ".join(sorted(project.config.project.targets)) or "none are configured"
        raise UsageError(f"unknown target {options.target!r} (targets in trailblaze.yaml: {known})")
    found, problems = checks.collect(project, options.paths, options.arg_values, require_args=require_args)
    loaded_all = not problems
    trails = [item.trail for item in found]
    chosen = selection.select(trails, options, project.config.root)
    kept = {id(trail) for trail in chosen.trails}
    if chosen.note:
        print(f"note: {chosen.note}", file=sys.stderr, flush=True)
    run = Run(project, options, project.config)
    run.result.deselected = chosen.deselected
    for item in found:
        if id(item.trail) not in kept:
            continue
        try:
            run.planned.append(plan_trail(project, item, options))
        except UsageError as exc:
            problems.append(checks.located(exc, item.trail))
    if loaded_all:  # a trail that did not load may be the one declaring the argument
        problems.extend(checks.unknown_args(trails, options.given_args))
    problems.extend(checks.check_planned(run, project, recordings=recordings, per_driver=per_driver))
    if problems:
        raise ErrorList(_unique(problems))
    if not run.planned and chosen.deselected:
        raise UsageError(
            f"no trails selected: all {chosen.deselected} were deselected (-k, --include-tags, --exclude-tags)"
        )
    if not run.planned:
        where = ", ".join(str(p) for p in options.paths) or str(project.config.trails_dir)
        raise UsageError(f"no trail files found in {where} (looked for *.trail.yaml and trail.yaml)")
    if select:
        project.hook.trailblaze_modify_plan(run=run)
    return run


def _unique(problems: list[TrailblazeError]) -> list[TrailblazeError]:
    """Each problem once (a plugin may find the same one for several trails)."""
    return list({str(p): p for p in problems}.values())


def check_options(options: RunOptions) -> None:
    if options.shard_split is not None and options.shard_all is not None:
        raise UsageError("--shard-split and --shard-all exclude each other")
    if options.all_devices and options.devices:
        raise UsageError("--all-devices and --device exclude each other")
    for name, value in (("--shard-split", options.shard_split), ("--shard-all", options.shard_all)):
        if value is not None and value < 1:
            raise UsageError(f"{name} needs a number of devices ≥ 1")
    if options.workers < 1:
        raise UsageError("--workers needs a number ≥ 1")


def plan_trail(project: Project, item: checks.Collected, options: RunOptions, *, ready: bool = True) -> PlannedTrail:
    """The collected trail with its driver, target, workspace and tools, and why it is skipped on
    this driver's platform, if it is. ``ready``: the driver's client library must be installed
    (a run's; ``doctor`` plans what it cannot run too, and says so elsewhere)."""
    trail, workspace = item.trail, item.workspace
    name = project.default_driver_name(options.driver, trail)
    driver = project.drivers.require(name) if ready else project.drivers.resolve(name)
    target = trail.config.target or options.target or project.config.project.target
    if target is None and workspace is not None:
        target = workspace.default_target
    reason = skip_reason(trail, driver.platform)
    return PlannedTrail(trail, driver.key, None, reason, target, workspace, registry=project.registry_for(workspace))


def skip_reason(trail: Trail, platform: str) -> str | None:
    """Why ``trail`` does not run on this platform, if it does not: ``config.skip`` names it,
    or ``config.devices`` lists only other classifiers."""

    def matches(key: str) -> bool:
        return key == platform or key.startswith(platform + "-")

    for classifier, reason in (trail.config.skip or {}).items():
        if matches(classifier):
            return reason or f"skipped on {classifier}"
    declared = list(trail.config.devices)
    if declared and not any(matches(c) for c in declared):
        return f"trail is for {', '.join(declared)}; this run uses {platform}"
    return None
