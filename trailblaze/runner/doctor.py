"""``trailblaze doctor``: what this install can do for the project here, and what is missing,
each with its fix.

Doctor checks two things itself, because plugins cannot be asked before they hold: the
project's trailblaze.yaml (valid, and where it was found; no file here is no failure: only the
install is checked) and its trails (collected as ``run`` collects them, to learn which driver
each needs; what is wrong in a trail file is ``trailblaze validate``'s to list, so doctor only
counts it). Everything else is the plugins' to say, through ``trailblaze_doctor``: each checks
the pieces it owns (the web driver: Playwright and a browser that starts; a phone driver: its
extra and its devices; MCP toolsets: Node.js and the scripting SDK), and whether the project's
trails need them decides between a failure and a warning.

When trailblaze.yaml is invalid, plugins are asked with the defaults (the install is still
worth checking), and the project's trails are not looked at.

Exit codes, as the runner's (docs/running.md): 0 when the project's trails can run here (no
check failed: whatever is missing is something they do not need), 2 when something they need is
missing or broken (infrastructure: the machine), 3 when trailblaze.yaml is invalid (misuse, as
``run`` would say).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.doctor import DoctorCheck
from trailblaze.api.session import PlannedTrail, Run, RunOptions
from trailblaze.core.errors import ErrorList, ExitCode, TrailblazeError
from trailblaze.pluginmanager import TRACE_ENV, Plugins, collect_options, get_plugin_manager
from trailblaze.runner.project import Project, load_project

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser

#: how long one plugin's awaitable may take (they run concurrently)
PLUGIN_TIMEOUT_S = 60.0
#: the checks doctor makes itself
CONFIG, TRAILS = "config", "trails"


@dataclass(frozen=True, slots=True)
class Finding:
    """A check, and the plugin that made it (None: doctor itself)."""

    check: DoctorCheck
    plugin: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**self.check.to_dict(), "plugin": self.plugin}


@dataclass(slots=True)
class DoctorReport:
    findings: list[Finding]
    #: the trailblaze.yaml checked; None when there is none here
    config_path: Path | None

    @property
    def failed(self) -> list[Finding]:
        return [f for f in self.findings if f.check.status == "fail"]

    @property
    def exit_code(self) -> ExitCode:
        failed = self.failed
        if any(f.plugin is None and f.check.name == CONFIG for f in failed):
            return ExitCode.USAGE
        return ExitCode.ERROR if failed else ExitCode.OK

    def count(self, status: str) -> int:
        return sum(f.check.status == status for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ready": not self.failed,
            "exit_code": int(self.exit_code),
            "config": str(self.config_path) if self.config_path is not None else None,
            "checks": [f.to_dict() for f in self.findings],
        }


def examine(
    config_path: Path | None,
    plugins: Plugins,
    parser: Parser,
    options: Mapping[str, Any] | None = None,
    plugin_args: Sequence[str] = (),
) -> DoctorReport:
    """Check the project at ``config_path`` (None: no trailblaze.yaml here) with ``plugins``
    and what they declared (``parser``), as the command line built them; ``options`` are the
    command's, ``plugin_args`` its ``-p`` values (for the defaults' plugins when the file is
    invalid)."""
    config_check, project = _load(config_path, plugins, parser, options, plugin_args)
    try:
        findings = [Finding(config_check)]
        planned: list[PlannedTrail] = []
        if config_check.status != "fail":
            try:
                trails_check, planned = _plan(project)
            except TrailblazeError as exc:  # a workspace that cannot be read: validate says more
                trails_check = DoctorCheck(TRAILS, "warn", str(exc), "`trailblaze validate` lists the problems")
            if trails_check is not None:
                findings.append(Finding(trails_check))
        run = Run(project, RunOptions(), project.config, planned=planned)
        findings += ask_plugins(project.plugins, run)
    finally:
        project.unconfigure()
    return DoctorReport(findings, config_path)


def _load(
    path: Path | None,
    plugins: Plugins,
    parser: Parser,
    options: Mapping[str, Any] | None,
    plugin_args: Sequence[str],
) -> tuple[DoctorCheck, Project]:
    """The config check, and the project (the defaults' when there is no valid file)."""
    if path is None:  # the defaults, as every command has them outside a project
        project = load_project(None, plugins=plugins, parser=parser, options=options, command="doctor")
        detail = f"no trailblaze.yaml in {Path.cwd()} or a folder above it: only the install is checked"
        return DoctorCheck(CONFIG, "skip", detail, "`trailblaze init` makes a project"), project
    try:
        project = load_project(path, plugins=plugins, parser=parser, options=options, command="doctor")
    except TrailblazeError as exc:
        return _invalid(path, exc), _defaults(_fresh_plugins(path, plugin_args), options)
    try:
        project.drivers  # noqa: B018 - what trailblaze.yaml says of drivers (toolsets' drivers:)
        project.tools  # noqa: B018 - its tools: entries
    except TrailblazeError as exc:
        project.unconfigure()
        return _invalid(path, exc), _defaults(_fresh_plugins(path, plugin_args), options)
    return DoctorCheck(CONFIG, "ok", f"{path}: valid"), project


def _invalid(path: Path, exc: TrailblazeError) -> DoctorCheck:
    problems = exc.errors if isinstance(exc, ErrorList) else [exc]
    detail = "\n".join(str(p) for p in problems)
    return DoctorCheck(CONFIG, "fail", detail, f"correct {path} where the lines above say")


def _fresh_plugins(path: Path, plugin_args: Sequence[str]) -> Plugins:
    """The plugins again, for the defaults: the first ones were configured (in part) with the
    invalid file, and a plugin is configured once."""
    from trailblaze.project.projectfile import plugins_listed_in

    return get_plugin_manager(plugin_args, plugins_listed_in(path) if path.exists() else [])


def _defaults(plugins: Plugins, options: Mapping[str, Any] | None) -> Project:
    from trailblaze.project.config import load_config

    config = load_config(None, collect_options(plugins), discover=False, options=options, command="doctor")
    config.pluginmanager = plugins.pm
    project = Project(config, plugins)
    project.configure()
    return project


def _plan(project: Project) -> tuple[DoctorCheck | None, list[PlannedTrail]]:
    """The project's trails, each with the driver, target and workspace ``run`` would give it
    (what plugins judge their pieces by), and the check that counts them. None: no project
    here and no trails folder either."""
    from trailblaze.api.session import RunOptions
    from trailblaze.core.errors import ErrorList, TrailblazeError
    from trailblaze.runner.checks import collect, default_paths
    from trailblaze.runner.plan import plan_trail

    config = project.config
    folder = default_paths(project)[0]
    if not folder.exists():
        if config.path is None:
            return None, []
        fix = "create it and put trails in it (`trailblaze init` writes an example)"
        return DoctorCheck(TRAILS, "warn", f"no trails: {folder} (trails_dir) does not exist", fix), []
    found, problems = collect(project, [], {}, require_args=False)
    planned: list[PlannedTrail] = []
    for collected in found:
        try:
            planned.append(plan_trail(project, collected, RunOptions(), ready=False))
        except ErrorList as exc:
            problems.extend(exc.errors)
        except TrailblazeError as exc:
            problems.append(exc)
    per_driver: dict[str, int] = {}
    for item in planned:
        if item.skip_reason is None:
            per_driver[item.driver_key] = per_driver.get(item.driver_key, 0) + 1
    drivers = ", ".join(f"{key} {n}" for key, n in sorted(per_driver.items()))
    skipped = sum(p.skip_reason is not None for p in planned)
    detail = f"{_plural(len(planned), 'trail')} in {folder}{os.sep}" + (f": {drivers}" if drivers else "")
    if skipped:
        detail += f" ({skipped} skipped on their driver's platform)"
    if problems:
        count = len({str(p) for p in problems})
        detail += f"; {_plural(count, 'problem')} in trail files"
        return DoctorCheck(TRAILS, "warn", detail, "`trailblaze validate` lists them, each at its file:line"), planned
    return DoctorCheck(TRAILS, "ok", detail), planned


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def ask_plugins(plugins: Plugins, run: Run) -> list[Finding]:
    """``trailblaze_doctor`` of each plugin, one at a time (built-ins first, as registered), so
    each check is known by its plugin and one plugin's failure hides no other's; then the
    awaitables they returned, concurrently, each within :data:`PLUGIN_TIMEOUT_S`."""
    answers: list[tuple[str, Any]] = []
    trace = bool(os.environ.get(TRACE_ENV))
    for impl in plugins.pm.hook.trailblaze_doctor.get_hookimpls():
        if impl.hookwrapper or impl.wrapper:
            continue  # a wrapper would get the plain call's result, which this hook does not make
        if trace:
            print(f"[trailblaze trace] trailblaze_doctor(run) -> [{impl.plugin_name}]", file=sys.stderr)
        try:
            answers.append((impl.plugin_name, impl.function(**{name: run for name in impl.argnames})))
        except Exception as exc:
            answers.append((impl.plugin_name, _raised(exc)))
    pending = [(i, answer) for i, (_, answer) in enumerate(answers) if inspect.isawaitable(answer)]
    if pending:
        done = asyncio.run(_gather([answer for _, answer in pending]))
        for (i, _), result in zip(pending, done, strict=True):
            answers[i] = (answers[i][0], result)
    findings: list[Finding] = []
    for plugin, answer in answers:
        findings += [Finding(check, plugin) for check in _checks_of(plugin, answer)]
    return findings


async def _gather(awaitables: list[Awaitable[Any]]) -> list[Any]:
    async def bounded(answer: Awaitable[Any]) -> Any:
        try:
            return await asyncio.wait_for(answer, PLUGIN_TIMEOUT_S)
        except TimeoutError:
            return _Failed(f"its checks did not finish within {PLUGIN_TIMEOUT_S:.0f} s")
        except Exception as exc:
            return _raised(exc)

    return list(await asyncio.gather(*(bounded(a) for a in awaitables)))


@dataclass(frozen=True, slots=True)
class _Failed:
    """What became of a plugin's checks when there are none to show."""

    why: str


def _raised(exc: Exception) -> _Failed:
    if isinstance(exc, TrailblazeError):
        return _Failed(str(exc))
    return _Failed(f"its trailblaze_doctor raised {type(exc).__name__}: {exc}")


def _checks_of(plugin: str, answer: Any) -> list[DoctorCheck]:
    if answer is None:
        return []
    if isinstance(answer, list) and all(isinstance(c, DoctorCheck) for c in answer):
        return answer
    if isinstance(answer, _Failed):
        detail = answer.why
    else:
        detail = f"its trailblaze_doctor returned {repr(answer)[:200]}, not a list of trailblaze.DoctorCheck"
    return [
        DoctorCheck(f"plugin {plugin}", "fail", detail, f"fix or update the plugin, or skip it with -p no:{plugin}")
    ]


def install_checks() -> list[DoctorCheck]:
    """Python and trailblaze: which, and where (the ``main`` plugin's checks)."""
    import platform

    from trailblaze import __version__

    package = Path(__file__).resolve().parents[1]
    return [
        DoctorCheck("python", "ok", f"Python {platform.python_version()} at {sys.executable}"),
        DoctorCheck("trailblaze", "ok", f"trailblaze {__version__} at {package}"),
    ]
