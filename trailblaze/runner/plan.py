"""Plan a run: collect trails, pick each one's driver, decide what is skipped, check the tools.

Everything here happens before any device work; a single problem stops the run with exit 3
(like pytest's collection errors), listing every problem found.
"""

from __future__ import annotations

from trailblaze.errors import ErrorList, Location, UsageError
from trailblaze.runner.project import Project
from trailblaze.runner.session import PlannedTrail, Run, RunOptions
from trailblaze.trail.model import Trail


def prepare(project: Project, options: RunOptions) -> Run:
    """Collect, plan and check; raise :class:`ErrorList` with every problem found."""
    check_options(options)
    if options.driver:
        project.drivers.resolve(options.driver)  # a wrong --driver is one error, not one per trail
    if options.target and project.target_config(options.target, project.workspace_for()) is None:
        known = ", ".join(sorted(project.config.project.targets)) or "none are configured"
        raise UsageError(f"unknown target {options.target!r} (targets in trailblaze.yaml: {known})")
    trails, problems = project.collect(options.paths, options.arg_values)
    run = Run(project, options)
    dynamic = project.has_dynamic_tools
    for trail in trails:
        try:
            planned = plan_trail(project, trail, options)
        except UsageError as exc:
            problems.append(UsageError(exc.message, exc.location or Location(str(trail.path))))
            continue
        if planned.skip_reason is None:
            problems.extend(project.check(trail, planned.driver_key, dynamic_tools=dynamic))
        run.planned.append(planned)
    if problems:
        raise ErrorList(problems)
    if not run.planned:
        where = ", ".join(str(p) for p in options.paths) or str(project.config.trails_dir)
        raise UsageError(f"no trail files found in {where} (looked for *.trail.yaml and trail.yaml)")
    return run


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


def plan_trail(project: Project, trail: Trail, options: RunOptions) -> PlannedTrail:
    driver = project.drivers.resolve(project.default_driver_name(options.driver, trail))
    workspace = project.workspace_for(trail.path)
    target = trail.config.target or options.target or project.config.project.target
    if target is None and workspace is not None:
        target = workspace.default_target
    return PlannedTrail(trail, driver.key, None, skip_reason(trail, driver.platform), target, workspace)


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
