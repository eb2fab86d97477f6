"""The plugin contract: every hook a trailblaze plugin can implement.

Implement a hook with ``@trailblaze.hookimpl`` on a function of the same name in a module (or
object) registered as a plugin — a built-in under ``trailblaze/plugins/``, a package exposing
an entry point in the ``trailblaze`` group, or a module named with ``-p``/``plugins:``.

Hooks are called synchronously from the engine's event loop; keep them quick. Anything that
waits on the device or the network belongs in a tool, not a hook. Parameters are passed by
name, so an implementation may accept only the ones it needs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from trailblaze.api.agent import Agent
    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.driver import Driver
    from trailblaze.api.results import Artifact, RunResult, StepResult, ToolReport, TrailResult
    from trailblaze.api.session import ProjectView, Run, Session
    from trailblaze.core.argparsing import Parser
    from trailblaze.core.errors import TrailblazeError
    from trailblaze.project.config import Config
    from trailblaze.project.workspace import Workspace
    from trailblaze.tools.model import ToolCall, ToolContext, ToolOutcome, ToolSpec
    from trailblaze.tools.registry import ToolRegistry
    from trailblaze.trail.model import Step, Trail

hookspec = pluggy.HookspecMarker("trailblaze")


# -- start-up and registration ----------------------------------------------------------------


@hookspec(historic=True)
def trailblaze_addhooks(pluginmanager: pluggy.PluginManager) -> None:
    """Called when a plugin is registered, so it can add hook specifications of its own
    (``pluginmanager.add_hookspecs(module)``). The return value is ignored."""


@hookspec(historic=True)
def trailblaze_addoption(parser: Parser) -> None:
    """Called once, when the command line is built (before it is parsed and before
    ``trailblaze.yaml`` is read), to declare what the plugin reads from them — with pytest's
    names: ``parser.addoption("--name", help=…, default=…, metavar=…, type=…, action=…)`` (or
    ``is_flag=True``/``multiple=True``) and ``parser.getgroup(name).addoption(…)`` for
    command-line options (they apply to ``run`` and ``record``; ``commands=[…]`` names others),
    ``parser.addini(name, help, type, default)`` for a top-level setting of trailblaze.yaml
    (``within="targets"`` or ``"toolsets"``: a key of each such block),
    ``parser.add_section(name, Model)`` for a section validated by a pydantic model, and
    ``parser.add_named_url(name, help)`` for a name a ``base_url`` may be. Read them
    in ``trailblaze_configure`` with ``config.getoption(dest)``, ``config.getini(name)`` and
    ``config.section(name)``. A name another plugin declared is an error naming both.
    Historic: plugins registered later are called too. The return value is ignored."""


@hookspec(historic=True)
def trailblaze_configure(config: Config) -> None:
    """Called once, after every plugin is loaded, the command line is parsed and
    ``trailblaze.yaml`` is read, before any command runs. ``config`` is the project
    configuration with the options (``config.getoption``), settings (``config.getini``) and
    sections (``config.section``) plugins declared; plugins keep their own state on
    themselves, or register an object as a plugin (``config.pluginmanager.register``), as
    pytest's reporters do. Historic: plugins registered later are called too. The return
    value is ignored."""


@hookspec
def trailblaze_unconfigure(config: Config) -> None:
    """Called once when the command is done, in reverse order of registration, to release
    what ``trailblaze_configure`` acquired. The return value is ignored."""


@hookspec
def trailblaze_register_tools(register: Callable[[ToolSpec | Callable[..., Any]], Any]) -> None:
    """Called once per process to collect tools. Call ``register(tool)`` for each tool, where
    ``tool`` is a function decorated with ``@trailblaze.tool`` (or a ``ToolSpec``). The host
    records which plugin registered it; a name registered by two plugins is an error naming
    both. The return value is ignored."""


@hookspec
def trailblaze_register_drivers(register: Callable[[type[Driver]], Any]) -> None:
    """Called once per process to collect drivers. Call ``register(driver_class)`` with a
    subclass of ``trailblaze.Driver`` (its ``key``, ``aliases`` and ``platform`` class
    attributes name it). A driver's ``platform`` may be a new one: a target's ``platforms:``
    block of trailblaze.yaml may then name it. A key or alias claimed twice is an error. The
    return value is ignored."""


@hookspec
def trailblaze_register_agents(register: Callable[[type[Agent]], Any]) -> None:
    """Called once per process to collect agents — who works out a step that has no
    recording (``trailblaze record``) or whose recording failed (``trailblaze run
    --self-heal``). Call ``register(agent_class)`` with a subclass of ``trailblaze.Agent``; its
    ``name`` class attribute is what ``--agent NAME`` selects. A name registered by two plugins
    is an error naming both. The return value is ignored."""


@hookspec
def trailblaze_register_commands(cli: click.Group) -> None:
    """Called while the command line is built, to add commands: ``cli.add_command(cmd)`` or
    ``@cli.command()``. A command on the project — taking ``-p``, ``-c`` and the options plugins
    declare for it with ``commands=("NAME",)`` — is made with ``trailblaze.cli.project_command``
    and reaches the project with ``trailblaze.cli.current_project(options)``; set its
    ``stdout_protocol`` when it speaks a protocol on stdout (``trailblaze mcp`` does), so
    reporters keep off it. The built-in ``mcp``, ``sample-app``, ``merge-reports`` and
    ``show-report`` are added this way. The return value is ignored."""


@hookspec
def trailblaze_start_early(driver: str | None) -> None:
    """Called as ``trailblaze run`` starts, once the plugins are loaded and before
    trailblaze.yaml is read and the trails are collected: start what the run will likely need
    and is slow to start (a driver's client process), so that it boots while the run is planned.
    ``driver`` is the ``--driver`` given, or None; a plugin whose driver it does not name starts
    nothing. Not called for ``--list`` or ``--help``, nor inside a running event loop.

    Start the work on :func:`trailblaze.core.aio.early_runner`'s loop and register how to stop
    it with :func:`trailblaze.core.aio.started_early`: when the run does not take it (its plan
    has no trail for the driver, or fails, or is interrupted) it is stopped as the command ends,
    so no process outlives it. Do nothing slow here; an exception is ignored, and the run
    reports whatever is wrong as it would have without this. The return value is ignored."""


# -- collection ---------------------------------------------------------------------------------


@hookspec(firstresult=True)
def trailblaze_collect_file(
    path: Path, root: Path | None, arg_values: dict[str, str], require_args: bool, given: bool
) -> Trail | None:
    """Called for every file under the paths a command was given (folders are searched
    recursively, skipping VCS, dependency and build folders), as pytest offers every file to
    its collectors, to turn the file at ``path`` into a ``trailblaze.Trail``.
    ``given`` is True when the user named this file itself (read it whatever its name);
    ``root`` is the folder ids are relative to; ``arg_values`` are the ``--arg`` values;
    ``require_args`` is False when only validating (a required argument may then be missing).
    Return the trail, or None when the file is not one of yours (the built-in YAML collector,
    ``trylast``, reads ``*.trail.yaml`` and ``trail.yaml``). First result wins. Raise
    ``trailblaze.UsageError`` (or ``ErrorList``) for a file that is yours but bad. A
    file the user named that no plugin reads is an error."""


@hookspec
def trailblaze_check_run(run: Run) -> list[TrailblazeError] | None:
    """Called by ``run``, ``record`` and ``validate`` once the trails are collected and
    planned (``run.planned``: each trail with its driver, target and skip reason), before any
    device opens, so a plugin can report what could only fail later (the web driver: a
    ``/path`` URL without a ``base_url``). Return the problems found — a
    ``trailblaze.UsageError`` with the location of each — or None. Every problem of
    every plugin is reported together, and the command exits 3 (or the highest exit code of
    the problems) without opening a device."""


@hookspec
def trailblaze_modify_plan(run: Run) -> None:
    """Called by ``run`` once the trails are planned and checked, before any device opens, to
    choose which of them this run runs: a plugin removes entries from ``run.planned`` in place
    (as pytest's ``pytest_collection_modifyitems`` deselects items; ``--shard i/n`` keeps its
    share). Removing every trail makes an empty run that passes. The return value is ignored;
    return None."""


@hookspec
def trailblaze_workspace_tools(
    workspace: Workspace, registry: ToolRegistry, project: ProjectView
) -> list[TrailblazeError] | None:
    """Called once for each upstream workspace (``trails/config/trailblaze.yaml``) whose trails a
    command meets — again on ``trailblaze mcp``'s ``toolbox(action=RELOAD)`` — when the tools
    those trails may call are built. ``registry`` holds every plugin's tools and the workspace's
    tool files' already: add the tools of the workspace's files this plugin runs with
    ``registry.add(spec)``; ``project.drivers`` expands driver names a tool's metadata gives.
    The built-in ``mcp_toolsets`` adds the scripted tools (``workspace.scripted``) this way.
    Return the problems found, each at its file:line (a name another tool has, metadata that
    does not parse), or None; they stop ``run`` and ``validate`` as a trail file's do."""


@hookspec
def trailblaze_adds_session_tools(config: Config) -> bool | None:
    """Called when a command needs to know whether sessions of this project get tools that
    exist only once a session is open (added in ``trailblaze_session_setup``, like the tools
    of MCP servers). ``config`` is the project configuration. Return True if this plugin adds
    such tools for it; then a trail's unknown tool names are checked when its session opens
    rather than before. None or False: it adds none."""


# -- running --------------------------------------------------------------------------------------


@hookspec
def trailblaze_run_start(run: Run) -> None:
    """Called once before the first trail runs; ``run.trails`` lists what will run. The return
    value is ignored."""


@hookspec
def trailblaze_run_finish(run: Run, result: RunResult) -> None:
    """Called once after the last trail, with the whole run's result (reporters write their
    files here). The return value is ignored."""


@hookspec
def trailblaze_session_setup(session: Session) -> Awaitable[None] | None:
    """Called when a device session opens, before any trail runs on it, to attach what the
    session needs — spawn servers, add tools with ``session.registry.add(spec)``, register
    cleanup with ``session.exit_stack``. Return an awaitable for asynchronous work, or None.
    The awaitables of all plugins run concurrently; an exception fails every trail of the
    session with exit code 2 (or the exception's own code for a ``TrailblazeError``).

    ``trailblaze tools --driver KEY`` calls it too, to list what a session would offer: then
    ``session.device`` is a stand-in that refuses commands
    (``trailblaze.runner.listing.ListingDevice``), and the session closes right after.
    ``trailblaze mcp``'s ``toolbox(action=RELOAD)`` calls it again on an open session, with a
    fresh ``session.registry``: add your tools again, and replace what you attached before
    rather than attaching it twice."""


@hookspec
def trailblaze_session_start(session: Session) -> None:
    """Called when a device session opens: ``session.device`` is connected and
    ``session.registry`` holds the tools it offers. The return value is ignored."""


@hookspec
def trailblaze_session_finish(session: Session) -> None:
    """Called when a device session closes, after its last trail, also after a failure.
    The return value is ignored."""


@hookspec
def trailblaze_trail_start(trail: Trail, session: Session) -> None:
    """Called before the first step of ``trail`` runs on ``session``. The return value is
    ignored."""


@hookspec
def trailblaze_trail_finish(trail: Trail, result: TrailResult, session: Session | None) -> None:
    """Called when ``trail`` is done, with its result (passed, failed, error or skipped).
    ``session`` is None when the trail never reached a device (skipped, or the device failed
    to open). The return value is ignored."""


@hookspec
def trailblaze_step_start(step: Step, trail: Trail, session: Session) -> None:
    """Called before ``step`` (or the trailhead) of ``trail`` runs on ``session``. The return
    value is ignored."""


@hookspec
def trailblaze_step_finish(step: Step, result: StepResult, session: Session) -> None:
    """Called after ``step`` ran on ``session``, with its ``result`` (status, duration, the
    tools it executed). The return value is ignored."""


@hookspec
def trailblaze_step_evidence(
    step: Step, result: StepResult, session: Session, folder: Path
) -> Awaitable[list[Artifact]] | None:
    """Called after ``step`` ran on ``session`` and before ``trailblaze_step_finish``, while
    the screen still shows what the step left, to save evidence of it (the built-in
    ``evidence`` plugin: a failed step's screenshot, hierarchy and console messages).
    ``result`` is the step's result so far; ``folder`` is where the trail's evidence goes
    (create it when writing). Return an awaitable resolving to the ``trailblaze.Artifact``
    entries written (their ``path`` may be absolute or relative to the run's artifacts folder),
    or None when there is nothing to save. The awaitables of all plugins run one after
    another; a plugin may also add to ``result.error`` (what is on screen nearest to what the
    step looked for), and to ``result.evidence_errors`` what it could not save and why. An
    awaitable that raises (or takes over 15 s) is named there with its error: the step's
    outcome never changes. Not called when the run has no artifacts folder."""


@hookspec
def trailblaze_trail_evidence(
    trail: Trail, result: TrailResult, session: Session, folder: Path
) -> Awaitable[list[Artifact]] | None:
    """Called when the steps of ``trail`` are done on ``session`` (``result.status`` says how
    they went), before the device forgets the trail (the web driver closes its browser
    context), to save evidence of the whole trail (the web driver: a Playwright trace).
    ``folder`` is where the trail's evidence goes. Return an awaitable resolving to the
    ``trailblaze.Artifact`` entries written, or None; what cannot be saved goes
    into ``result.evidence_errors``, as for steps. Not called when the run has no artifacts
    folder."""


@hookspec(firstresult=True)
def trailblaze_tool_call(call: ToolCall, ctx: ToolContext) -> Awaitable[ToolOutcome] | None:
    """Invoke one tool; called for every tool call, delegating or not, after its arguments
    were validated. Return an awaitable that performs the call and resolves to its
    ``ToolOutcome``; None means "not handled here" and passes to the next implementation (the
    built-in one, which runs the tool, is ``trylast``).

    Wrap it to act around every call. Because the engine is async, the value a wrapper
    receives from ``yield`` is the awaitable, not yet run; return a new awaitable around it::

        @trailblaze.hookimpl(wrapper=True)
        def trailblaze_tool_call(call, ctx):
            invocation = yield

            async def timed():
                start = time.perf_counter()
                try:
                    return await invocation
                finally:
                    print(call.name, time.perf_counter() - start)

            return timed()
    """


@hookspec
def trailblaze_pause_live() -> None:
    """Called before something is printed for a person to read or answer at the terminal (an
    agent's prompt, a recording's diff, a note): a reporter that draws live output (a spinner)
    stops it until its next event. The return value is ignored."""


@hookspec
def trailblaze_tool_report(report: ToolReport, session: Session) -> None:
    """Called after each executable (non-delegating) tool call on ``session`` finished — the
    calls a recording consists of. ``report`` has its name, arguments as reports show them,
    status, duration and ``delegated_from`` chain. The return value is ignored."""


# -- checking the install -------------------------------------------------------------------------


@hookspec
def trailblaze_doctor(run: Run) -> list[DoctorCheck] | Awaitable[list[DoctorCheck]] | None:
    """Called by ``trailblaze doctor`` to ask whether what the plugin needs is there on the
    machine: its client library, a browser, a runtime, a device. ``run`` is the project as
    ``trailblaze run`` would plan it, with nothing opened and nothing checked:
    ``run.config`` (the defaults when there is no trailblaze.yaml here, or when it is invalid:
    ``doctor`` reports that itself) and ``run.planned``, each of the project's trails with the
    driver and workspace it would have (empty outside a project), so a plugin can tell what
    the trails need from what they do not. Return a ``trailblaze.DoctorCheck`` for each piece
    the plugin owns — ``ok``, ``warn`` (missing or broken, but the trails do not need it),
    ``fail`` (they need it: ``doctor`` exits 2) or ``skip`` (not looked at), with the ``fix``
    for what is not ok; ``DoctorCheck.missing(..., needed=...)`` picks ``fail`` or ``warn`` —
    or an awaitable resolving to them for what takes time (listing devices, starting a
    browser: the awaitables of all plugins run concurrently, each within 60 s), or None when
    there is nothing to check. Plugins are asked one at a time, built-ins first; one that
    raises, times out or returns something else is a failed check named after it."""
