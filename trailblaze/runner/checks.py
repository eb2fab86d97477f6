"""Every check a trail gets before a device opens — the one home for them.

``run``, ``record`` and ``validate`` (and ``trailblaze mcp``'s ``trail(action=RUN)``) check trails
here and nowhere else, so ``validate`` answers as ``run`` would:

1. :func:`collect` — every file under the given paths is offered to the collectors
   (``trailblaze_collect_file``) and gets its upstream workspace, looked up once; what does not
   load is a problem with its ``file:line``, and the driver names in each trail's ``config`` must
   mean a driver;
2. :func:`check_planned` — once each trail has its driver (:mod:`trailblaze.runner.plan`): its
   tool calls against the tools of that driver, the steps without a recording for it, ``--arg``
   names no trail declares, and whatever plugins check (``trailblaze_check_run``: the web
   driver's ``/path`` URLs without a ``base_url``, the MCP servers' unset ``${VAR}``);
3. :func:`session_problems` — tools that exist only once a session is open (MCP servers'): the
   calls to them are checked again when the session is.

Tool calls themselves are checked by :func:`trailblaze.trail.checks.check_trail_tools`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.core.errors import ErrorList, Location, TrailblazeError, UsageError
from trailblaze.core.limits import one_line
from trailblaze.device.drivernames import unavailable_driver
from trailblaze.tools.registry import UnknownToolError
from trailblaze.trail.checks import check_trail_tools
from trailblaze.trail.discovery import find_files, resolved_path
from trailblaze.trail.loader import TrailErrors
from trailblaze.trail.model import ANY_CLASSIFIER, Step, Trail

if TYPE_CHECKING:
    from trailblaze.api.session import PlannedTrail, Run, Session
    from trailblaze.project.workspace import Workspace
    from trailblaze.runner.project import Project


# -- collecting ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Collected:
    """A trail and the upstream workspace its file belongs to (its targets, tool files and
    toolsets), worked out once, here: planning, ``doctor`` and the sessions take it from here."""

    trail: Trail
    workspace: Workspace | None


def collect(
    project: Project, paths: Sequence[Path], arg_values: Mapping[str, str], *, require_args: bool = True
) -> tuple[list[Collected], list[TrailblazeError]]:
    """Load every trail under ``paths`` (default: ``trails_dir``), each with its workspace;
    return them and every problem found."""
    found: list[Collected] = []
    problems: list[TrailblazeError] = []
    given = list(paths) or default_paths(project)
    if not paths and not os.path.lexists(given[0]):
        return [], [_no_trails_folder(project, given[0])]
    reported: set[Path] = set()
    for path, named in find_files(given, problems):
        try:
            trail = project.hook.trailblaze_collect_file(
                path=path,
                root=_root_for(project, path, given),
                arg_values=dict(arg_values),
                require_args=require_args,
                given=named,
            )
        except TrailErrors as exc:
            workspace = _workspace_of(project, path, reported, problems)
            problems.extend(exc.errors)
            if exc.trail is not None:  # what could be read is still worth checking
                registry = project.registry_for(workspace)
                problems.extend(check_trail_tools(exc.trail, registry, None, allow_unknown=project.has_dynamic_tools))
            continue
        except TrailblazeError as exc:  # a file a collector claimed, and could not read
            _workspace_of(project, path, reported, problems)
            problems.extend(exc.errors if isinstance(exc, ErrorList) else [exc])
            continue
        if trail is None:
            if named:  # the user named it: a file nobody reads is not silently skipped
                problems.append(UsageError(f"no plugin can read {path}"))
            continue
        workspace = _workspace_of(project, path, reported, problems)
        problems.extend(driver_name_problems(project, trail))
        found.append(Collected(trail, workspace))
    return found, problems


def collect_trails(
    project: Project, paths: Sequence[Path], arg_values: Mapping[str, str], *, require_args: bool = True
) -> tuple[list[Trail], list[TrailblazeError]]:
    """The trails of :func:`collect`, for callers that do not plan them."""
    found, problems = collect(project, paths, arg_values, require_args=require_args)
    return [item.trail for item in found], problems


def _workspace_of(
    project: Project, path: Path, reported: set[Path], problems: list[TrailblazeError]
) -> Workspace | None:
    """The upstream workspace of the trail file at ``path``; its problems (reading it, then its
    tool files) join ``problems`` the first time one of its trails is met."""
    workspace = project.workspace_for(path)
    if workspace is not None and workspace.config_file not in reported:
        reported.add(workspace.config_file)
        problems.extend([*workspace.problems, *project.tools_for(workspace)[1]])
    return workspace


def _no_trails_folder(project: Project, folder: Path) -> UsageError:
    """``run`` with no paths where there is no trails folder: most often a folder with no
    project at all, so the way to start one is the answer (pytest's "no tests ran" is no help)."""
    config = project.config.path
    if config is None or not config.exists():
        return UsageError(
            "no such folder, and no trailblaze.yaml here or in a folder above: `trailblaze init` creates "
            "a project (trailblaze.yaml, and trails/ with an example), or name trail files: trailblaze run PATH…",
            Location(str(folder)),
        )
    return UsageError(
        f"no such folder (trails_dir of {config}): create it, name trail files (trailblaze run PATH…), "
        "or `trailblaze init` for an example trail",
        Location(str(folder)),
    )


def default_paths(project: Project) -> list[Path]:
    """``trails_dir``, relative to the working directory when it is inside it, so messages
    and reports name files as the user would type them (``trails/a.trail.yaml:3:5``)."""
    folder = project.config.trails_dir
    try:
        return [folder.relative_to(Path.cwd())]
    except ValueError:
        return [folder]


def _root_for(project: Project, path: Path, given: Iterable[Path]) -> Path:
    resolved = Path(resolved_path(path))
    for candidate in (project.config.trails_dir, *given):
        folder = candidate if candidate.is_dir() else candidate.parent
        if resolved.is_relative_to(folder.resolve()):
            return folder
    return path.parent


def driver_name_problems(project: Project, trail: Trail) -> list[TrailblazeError]:
    """Driver names in the trail's config that mean nothing (a typo never silently matches
    no device): ``config.devices`` values and legacy ``config.driver``."""
    named: list[tuple[tuple[str, ...], str]] = [(("devices", c), n) for c, n in trail.config.devices.items()]
    if trail.config.driver:
        named.append((("driver",), trail.config.driver))
    drivers = project.drivers
    problems: list[TrailblazeError] = []
    for keys, name in named:
        if drivers.get(name) is None and unavailable_driver(name) is None:
            problems.append(
                UsageError(
                    f"config.{'.'.join(keys)}: unknown driver {name!r} (drivers here: {', '.join(drivers.keys())}, or "
                    "upstream's names for them such as ANDROID_ONDEVICE_ACCESSIBILITY, IOS_HOST, PLAYWRIGHT_NATIVE)",
                    trail.config_location(*keys),
                )
            )
    return problems


# -- once trails are planned ----------------------------------------------------------------------------


def check_planned(run: Run, project: Project, *, recordings: bool, per_driver: bool) -> list[TrailblazeError]:
    """Problems with the planned trails of ``run`` (see the module's docstring).

    ``recordings``: a step without a recording for its trail's driver is a problem (``run``; not
    ``record`` nor ``run --self-heal``, whose agent works such steps out). ``per_driver``: calls
    are checked against the tools of each trail's driver (``run``); when False, every recording
    in a file against every tool (``validate`` without ``--driver``)."""
    problems: list[TrailblazeError] = []
    waived: list[TrailblazeError] = []
    for planned in run.planned:
        if planned.skip_reason is not None:
            continue
        trail = planned.trail
        found = tool_problems(project, planned, planned.driver_key if per_driver else None)
        kept, excused = sort_out(planned.workspace, trail, found)
        problems.extend(kept)
        waived.extend(excused)
        if recordings:
            platform = project.drivers.resolve(planned.driver_key).platform
            problems.extend(missing_recordings(trail, platform, planned.driver_key))
    for found in project.hook.trailblaze_check_run(run=run):
        problems.extend(found or ())
    warn(waived)
    return problems


def warn(warnings: Iterable[TrailblazeError]) -> None:
    """Each warning once, one line each, on stderr."""
    for text in dict.fromkeys(str(w) for w in warnings):
        print(f"warning: {one_line(text)}", file=sys.stderr, flush=True)


def tool_problems(project: Project, planned: PlannedTrail, driver_name: str | None) -> list[TrailblazeError]:
    """Problems with the tool calls of a planned trail, against the tools it was planned with:
    on ``driver_name`` only the recording that driver would replay, otherwise every recording
    against every tool."""
    trail, workspace = planned.trail, planned.workspace
    tools = planned.registry if planned.registry is not None else project.registry_for(workspace)
    dynamic = project.has_dynamic_tools
    if driver_name is None:
        problems = check_trail_tools(trail, tools, None, allow_unknown=dynamic)
    else:
        driver = project.drivers.resolve(driver_name)
        registry = tools.for_device(driver.key, driver.platform)
        problems = check_trail_tools(trail, registry, (driver.platform,), driver=driver.key, allow_unknown=dynamic)
    return problems


def sort_out(
    workspace: Workspace | None, trail: Trail, problems: list[TrailblazeError]
) -> tuple[list[TrailblazeError], list[TrailblazeError]]:
    """The problems with ``trail``'s tool calls that count, and those its target excuses
    (warnings): in a trail of an upstream workspace, each unknown tool says where it was looked
    for, and the trailmap of the trail's target may excuse them (:func:`exempted`)."""
    return exempted(workspace, trail, [_looked_in(p, workspace) for p in problems])


def _looked_in(problem: TrailblazeError, workspace: Workspace | None) -> TrailblazeError:
    """An unknown tool in a trail of an upstream workspace says which workspace's trailmaps were
    looked in: the trail's own (found by walking up from it), or the one ``TRAILBLAZE_CONFIG_DIR``
    names — as upstream finds them, so a trail calling another workspace's tools needs that
    variable here as it does there."""
    if workspace is None or not isinstance(problem, UnknownToolError) or problem.other_driver:
        return problem
    from trailblaze.project.workspace import CONFIG_DIR_ENV

    if os.environ.get(CONFIG_DIR_ENV):
        return problem.saying(f"no trailmap of {workspace.config_dir} (named by {CONFIG_DIR_ENV}) defines it")
    return problem.saying(
        f"no trailmap of this trail's workspace {workspace.config_dir} defines it "
        f"(another workspace's tools need {CONFIG_DIR_ENV} naming its trails/config)"
    )


def exempted(
    workspace: Workspace | None, trail: Trail, problems: list[TrailblazeError]
) -> tuple[list[TrailblazeError], list[TrailblazeError]]:
    """``problems`` split into those that count and those the trail's target excuses.

    A trailmap may say why its trails call tools that none of its files defines
    (``trail_validation: {exempt: why}``: tools an MCP server registers when a session starts).
    Upstream's ``check`` reports such findings and does not fail on them; here the unknown tools
    of those trails are warnings that quote the reason, and every other problem still counts.
    A run still fails at a call to a tool the session does not have."""
    why = workspace.exempt.get(trail.config.target or "") if workspace is not None else None
    if not why:
        return problems, []
    kept: list[TrailblazeError] = []
    excused: list[TrailblazeError] = []
    for problem in problems:
        if isinstance(problem, UnknownToolError) and not problem.other_driver:
            note = f"not an error: trailmap {trail.config.target} exempts its trails from this check: {why}"
            excused.append(UsageError(f"unknown tool {problem.name!r} ({note})", problem.location))
        else:
            kept.append(problem)
    return kept, excused


def missing_recordings(trail: Trail, platform: str, driver_key: str) -> list[TrailblazeError]:
    """Steps a device of ``platform`` has no recording to replay for (any classifier of the
    platform's family counts: which one a device has is known only once it is open)."""
    from trailblaze.runner.replay import no_recording_message, step_text

    problems: list[TrailblazeError] = []
    for step in trail.all_steps:
        if not _has_recording(step, platform):
            where = "trailhead" if step.kind == "trailhead" else f"step {step.index + 1}"
            message = no_recording_message(step, trail, platform, driver_key)
            label = one_line(step_text(step, trail, {}))
            problems.append(UsageError(f"{where} ({label}): {message}", step.location))
    return problems


def _has_recording(step: Step, platform: str) -> bool:
    return any(key in (ANY_CLASSIFIER, platform) or key.startswith(platform + "-") for key in (step.recordings or {}))


def unknown_args(trails: Iterable[Trail], given: Iterable[str]) -> list[TrailblazeError]:
    """``--arg`` names no trail declares: a typo that would otherwise be silently ignored."""
    declared = sorted({name for trail in trails for name in trail.config.args})
    known = ", ".join(declared) if declared else "the trails declare none"
    return [
        UsageError(f"--arg {name}: no trail declares an argument {name!r} in config.args ({known})")
        for name in given
        if name not in declared
    ]


# -- once a session is open -----------------------------------------------------------------------------


def session_problems(trail: Trail, session: Session) -> list[TrailblazeError]:
    """The calls of ``trail`` against what ``session`` offers, tools from its MCP servers
    included (they exist only now)."""
    return check_trail_tools(trail, session.registry, session.classifiers, driver=session.driver.key)


def located(problem: UsageError, trail: Trail) -> UsageError:
    """``problem`` with the trail's file as its location when it has none."""
    return UsageError(problem.message, problem.location or Location(str(trail.path)))
