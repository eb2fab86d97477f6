"""What tools a session on a driver would get, without a device (``trailblaze tools --driver``).

Tools from MCP servers exist only inside a session (seed 002: no server spawns outside a
resolved session context). Listing them therefore opens a session the way a run does — the
same ``trailblaze_session_setup`` hooks, so servers spawn, handshake and register — but with a
stand-in device that refuses commands, and closes it again right away.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from trailblaze import processes
from trailblaze.commands import DeviceInfo
from trailblaze.driver import Device, DriverOptions
from trailblaze.errors import InfrastructureError
from trailblaze.runner.project import Project
from trailblaze.runner.session import Run, RunOptions, Session
from trailblaze.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from trailblaze.workspace import Workspace

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
    driver = driver_class(DriverOptions())
    info = DeviceInfo(LISTING_DEVICE_ID, driver_class.platform, driver_class.key)
    registry = project.registry_for(workspace).for_device(driver_class.key, driver_class.platform)
    session = Session(
        Run(project, RunOptions()),
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
