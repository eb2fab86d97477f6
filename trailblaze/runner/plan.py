"""Plan a run: collect trails, pick each one's driver, decide what is skipped, check everything.

Everything here happens before any device work; a single problem stops the run with exit 3
(like pytest's collection errors), listing every problem found. ``trailblaze validate`` runs
the same checks (:mod:`trailblaze.runner.validate`), so it answers as ``run`` would.
"""

from __future__ import annotations

from collections.abc import Iterable

from trailblaze.errors import ErrorList, Location, TrailblazeError, UsageError
from trailblaze.runner.project import Project
from trailblaze.runner.session import PlannedTrail, Run, RunOptions
from trailblaze.trail.model import ANY_CLASSIFIER, Step, Trail


def prepare(
    project: Project,
    options: RunOptions,
    *,
    recordings: bool = True,
    require_args: bool = True,
    per_driver: bool = True,
    headed_hint: str = "run without --headed, or where there is a display",
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
        project.drivers.resolve(options.driver)  # a wrong --driver is one error, not one per trail
    if options.target and project.target_config(options.target, project.workspace_for()) is None:
        known = ", ".join(sorted(project.config.project.targets)) or "none are configured"
        raise UsageError(f"unknown target {options.target!r} (targets in trailblaze.yaml: {known})")
    trails, problems = project.collect(options.paths, options.arg_values, require_args=require_args)
    loaded_all = not problems
    run = Run(project, options)
    dynamic = project.has_dynamic_tools
    for trail in trails:
        try:
            planned = plan_trail(project, trail, options)
        except UsageError as exc:
            problems.append(UsageError(exc.message, exc.location or Location(str(trail.path))))
            continue
        if planned.skip_reason is None:
            platform = project.drivers.resolve(planned.driver_key).platform
            problems.extend(project.check(trail, planned.driver_key if per_driver else None, dynamic_tools=dynamic))
            if recordings:
                problems.extend(missing_recordings(trail, platform, planned.driver_key))
            if platform == "web" and not base_url_for(project, options, planned):
                problems.extend(relative_urls(trail, platform))
        run.planned.append(planned)
    if loaded_all:  # a trail that did not load may be the one declaring the argument
        problems.extend(unknown_args(trails, options.given_args))
    if dynamic:
        problems.extend(server_problems(project, run.planned))
    if problems:
        raise ErrorList(problems)
    if not run.planned:
        where = ", ".join(str(p) for p in options.paths) or str(project.config.trails_dir)
        raise UsageError(f"no trail files found in {where} (looked for *.trail.yaml and trail.yaml)")
    if options.headed and any(_is_web(project, p) for p in run.planned if p.skip_reason is None):
        from trailblaze.web.driver import display_problem

        problem = display_problem()
        if problem is not None:
            raise UsageError(f"a visible browser needs a display (--headed): {problem}; {headed_hint}")
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
    if options.base_url and options.base_url != "sample-app" and "://" in options.base_url:
        from trailblaze.config import url_problem

        problem = url_problem(options.base_url)
        if problem is not None:
            raise UsageError(f"--base-url: {problem}")


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


def missing_recordings(trail: Trail, platform: str, driver_key: str) -> list[TrailblazeError]:
    """Steps a device of ``platform`` has no recording to replay for (any classifier of the
    platform's family counts: which one a device has is known only once it is open)."""
    from trailblaze.runner.replay import no_recording_message, step_text

    problems: list[TrailblazeError] = []
    for step in trail.all_steps:
        if not _has_recording(step, platform):
            where = "trailhead" if step.kind == "trailhead" else f"step {step.index + 1}"
            message = no_recording_message(step, trail, platform, driver_key)
            problems.append(UsageError(f"{where} ({step_text(step, trail, {})}): {message}", step.location))
    return problems


def _has_recording(step: Step, platform: str) -> bool:
    return any(key in (ANY_CLASSIFIER, platform) or key.startswith(platform + "-") for key in (step.recordings or {}))


def base_url_for(project: Project, options: RunOptions, planned: PlannedTrail) -> str | None:
    """The ``base_url`` a trail's ``/path`` URLs join: ``--base-url``, its target's, the
    default target's, trailblaze.yaml's."""
    project_config = project.config.project
    targets = project_config.targets
    for name in (planned.target, options.target or project_config.target):
        target = targets.get(name) if name else None
        if options.base_url is None and target is not None and target.base_url:
            return target.base_url
    return options.base_url or project_config.base_url


def relative_urls(trail: Trail, platform: str) -> list[TrailblazeError]:
    """``web_navigate`` calls to ``/path`` in a session without a ``base_url``: they could only
    fail, so they are misuse found now rather than a failed step later."""
    problems: list[TrailblazeError] = []
    for step in trail.all_steps:
        for call in step.recording_for((platform,)) or []:
            url = call.args.get("url")
            if call.name == "web_navigate" and isinstance(url, str) and url.startswith("/"):
                problems.append(
                    UsageError(
                        f"web_navigate: {url!r} is relative to base_url, but no base_url is configured "
                        "(base_url: in trailblaze.yaml, or --base-url)",
                        call.arg_location(["url"]),
                    )
                )
    return problems


def unknown_args(trails: Iterable[Trail], given: Iterable[str]) -> list[TrailblazeError]:
    """``--arg`` names no trail declares: a typo that would otherwise be silently ignored."""
    declared = sorted({name for trail in trails for name in trail.config.args})
    known = ", ".join(declared) if declared else "the trails declare none"
    return [
        UsageError(f"--arg {name}: no trail declares an argument {name!r} in config.args ({known})")
        for name in given
        if name not in declared
    ]


def server_problems(project: Project, planned: Iterable[PlannedTrail]) -> list[TrailblazeError]:
    """What is wrong with the MCP servers the planned sessions would start (an unset
    ``${VAR}``, a missing script): found now instead of when a device is already open."""
    from trailblaze.mcp.declarations import DriverContext, session_declarations

    problems: list[TrailblazeError] = []
    seen: set[str] = set()
    for key, target in sorted({(p.driver_key, p.target or "") for p in planned if p.skip_reason is None}):
        driver = project.drivers.resolve(key)
        try:
            session_declarations(
                project.config, DriverContext(driver.key, driver.platform, tuple(driver.aliases)), target=target or None
            )
        except TrailblazeError as exc:
            if str(exc) not in seen:
                seen.add(str(exc))
                problems.append(exc)
    return problems


def _is_web(project: Project, planned: PlannedTrail) -> bool:
    return project.drivers.resolve(planned.driver_key).platform == "web"
