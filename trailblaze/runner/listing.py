"""What a project offers, without running a trail: tools (``trailblaze tools``) and devices
(``trailblaze devices``, ``device(action=LIST)`` of ``trailblaze mcp``).

Tools from MCP servers exist only inside a session (seed 002: no server spawns outside a
resolved session context). Listing them therefore opens a session the way a run does — the
same ``trailblaze_session_setup`` hooks, so servers spawn, handshake and register — but with a
stand-in device that refuses commands, and closes it again right away.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trailblaze.api.driver import Device, DriverOptions
from trailblaze.api.session import Run, RunOptions, Session
from trailblaze.core import processes
from trailblaze.core.errors import ErrorList, InfrastructureError, TrailblazeError, UsageError
from trailblaze.device.commands import DeviceInfo
from trailblaze.runner.project import Project
from trailblaze.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from trailblaze.project.workspace import Workspace
    from trailblaze.tools.model import ToolSpec

LISTING_DEVICE_ID = "(listing)"


class ListingDevice(Device):
    """The device of a listing session: it knows its platform and driver, and nothing else."""

    def __init__(self, info: DeviceInfo) -> None:
        self.device = info

    async def find(self, **criteria: Any) -> list[Any]:
        raise InfrastructureError("no device is connected while listing tools")


async def session_tools(
    project: Project, driver_name: str, target: str | None = None, workspace: Workspace | None = None
) -> ToolRegistry:
    """The registry a session on ``driver_name`` for ``target`` (default: trailblaze.yaml's
    ``target:``) would have, spawning its MCP servers."""
    driver_class = project.drivers.resolve(driver_name)
    driver = driver_class(DriverOptions(config=project.config))
    info = DeviceInfo(LISTING_DEVICE_ID, driver_class.platform, driver_class.key)
    registry = project.registry_for(workspace).for_device(driver_class.key, driver_class.platform)
    session = Session(
        Run(project, RunOptions(), project.config),
        driver,
        ListingDevice(info),
        registry,
        target=target or project.config.project.target,
        workspace=workspace,
    )
    with processes.guard(active=project.has_dynamic_tools):
        async with session.exit_stack:
            pending = [r for r in project.hook.trailblaze_session_setup(session=session) if r is not None]
            if pending:
                await asyncio.gather(*pending)
            return ToolRegistry(list(session.registry))


@dataclass(slots=True)
class ToolListing:
    specs: list[ToolSpec]
    #: what the listing leaves out, and why
    notes: list[str] = field(default_factory=list)


def list_tools(project: Project, driver: str | None = None, target: str | None = None) -> ToolListing:
    """The tools trails may call, sorted by source and name. With ``driver``: what a session
    on it (for ``target``) gets, MCP servers' tools included (they are started and stopped)."""
    workspace, registry = _project_tools(project, target)
    notes: list[str] = []
    if driver:
        driver_class = project.drivers.resolve(driver)
        if project.has_dynamic_tools:
            registry = asyncio.run(session_tools(project, driver_class.key, target, workspace))
        else:
            registry = registry.for_device(driver_class.key, driver_class.platform)
    elif project.has_dynamic_tools:
        notes.append("MCP servers are configured; their tools are listed per session: add --driver KEY")
    return ToolListing(sorted(registry, key=lambda s: (s.source, s.name)), notes)


def _project_tools(project: Project, target: str | None) -> tuple[Workspace | None, ToolRegistry]:
    """The project's workspace and the tools it has outside sessions (every driver's); a
    problem with its tool files, or an unknown ``target``, is an error."""
    workspace = project.workspace
    registry, problems = project.tools_for(workspace)
    if workspace is not None and (workspace.problems or problems):
        raise ErrorList([*workspace.problems, *problems])
    if target and project.target_config(target, workspace) is None:
        raise UsageError(f"unknown target {target!r}")
    return workspace, registry


@dataclass(slots=True)
class FoundTool:
    spec: ToolSpec
    #: the keys of the drivers whose sessions have it
    drivers: list[str]
    #: the driver asked for (``--driver``), when its sessions do not have the tool; else None
    not_in: str | None = None
    #: the drivers whose listing sessions failed (their servers did not start), and why
    notes: list[str] = field(default_factory=list)


def find_tool(project: Project, name: str, driver: str | None = None, target: str | None = None) -> FoundTool:
    """The tool ``name`` of any driver, and the drivers whose sessions have it (``trailblaze
    tools NAME``): a tool of another driver than ``driver`` is found too, saying so. MCP
    servers' tools exist only in sessions: a name no other tool has is looked for in a listing
    session on each driver (their servers started and stopped); a session that fails is a note
    when another driver has the tool, and the error when none does. A name no driver has is an
    :class:`~trailblaze.tools.registry.UnknownToolError` with the nearest names."""
    workspace, registry = _project_tools(project, target)
    asked = project.drivers.resolve(driver).key if driver else None
    drivers = project.drivers.drivers()
    spec = registry.get(name)
    if spec is not None:
        keys = [d.key for d in drivers if spec.metadata.applies_to(d.key, d.platform)]
        return FoundTool(spec, keys, asked if asked is not None and asked not in keys else None)
    if not project.has_dynamic_tools:
        registry.require(name)  # raises, with the nearest names
    sessions: dict[str, ToolRegistry] = {}
    failed: dict[str, TrailblazeError] = {}
    for listed in drivers:
        try:
            sessions[listed.key] = asyncio.run(session_tools(project, listed.key, target, workspace))
        except TrailblazeError as exc:
            failed[listed.key] = exc
    having = {key: tool for key, tools in sessions.items() if (tool := tools.get(name)) is not None}
    if not having:
        if failed:
            raise failed.get(asked or "", next(iter(failed.values())))
        ToolRegistry({s.name: s for tools in sessions.values() for s in tools}.values()).require(name)
    keys = list(having)
    notes = [f"a listing session on {key} failed, so its tools are not looked at: {exc}" for key, exc in failed.items()]
    return FoundTool(having[keys[0]], keys, asked if asked is not None and asked not in keys else None, notes)


@dataclass(slots=True)
class DeviceListing:
    #: one row per device (its info, model, classifiers, state), or per driver that failed (``error``)
    rows: list[dict[str, Any]]
    #: drivers that found no device, with what their driver says about making one known
    empty: list[str]


async def list_devices(project: Project, driver: str | None = None) -> DeviceListing:
    """Every device each driver (or only ``driver``) reaches now, or why not."""
    classes = [project.drivers.resolve(driver)] if driver else project.drivers.drivers()
    rows: list[dict[str, Any]] = []
    for cls in classes:
        missing = cls.missing_requirement()
        if missing is not None:
            rows.append({"driver": cls.key, "platform": cls.platform, "error": missing})
            continue
        instance = cls(DriverOptions(timeout=project.config.project.timeout, config=project.config))
        try:
            found = await instance.devices()
        except TrailblazeError as exc:
            rows.append({"driver": cls.key, "platform": cls.platform, "error": str(exc)})
            continue
        rows.extend(
            {**d.to_dict(), "model": d.model, "classifiers": list(d.classifiers), "state": d.state} for d in found
        )
    found_drivers = {row["driver"] for row in rows}
    empty = [f"{cls.key}: {cls.no_devices}" for cls in classes if cls.key not in found_drivers]
    return DeviceListing(rows, empty)
