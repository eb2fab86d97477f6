"""``toolbox(action=RELOAD)`` (seed 000's ``reloadTools``): the project's tool files read again
and the session's MCP toolset servers restarted, without losing the device or the recording.

An agent that writes a tool (a ``*.tool.yaml``, a tool of its MCP server) reloads and calls it,
as a developer reruns pytest after editing a fixture. What is read again: the files
trailblaze.yaml's ``tools:`` names (a folder there picks up new files) and the workspace's tool
folders; the MCP servers of the session's target and toolsets start afresh, so their code is
read again too. trailblaze.yaml itself is not read again: a new server entry or option needs
``trailblaze mcp`` restarted. Python plugins are not re-imported.

A tool file with a problem is an error and the tools stay as they were; a server that fails to
start is an error too, after which the session has the other tools (RELOAD again once it is
fixed). The reply says which tools were added and removed, and how many there are.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import InfrastructureError, TrailblazeError, UsageError

if TYPE_CHECKING:
    from trailblaze.mcpserver.state import ClientState


async def reload_tools(state: ClientState) -> dict[str, Any]:
    async with state.lock:
        before = {spec.name for spec in state.all_device_tools()}
        try:
            state.project.reload_tools()
        except TrailblazeError as exc:
            raise UsageError(f"the tools were not reloaded (they are as they were): {exc}") from None
        device = state.device
        restarted = device is not None and device.session is not None
        if device is not None and restarted:
            await _forget_agents(state)  # an agent lists its tools when it starts
            try:
                await device.reload()
            except TrailblazeError as exc:
                raise InfrastructureError(
                    f"the tool files were read again, but the session's MCP servers did not all start: {exc}; "
                    "the session has the other tools (fix it and RELOAD again)"
                ) from None
        after = {spec.name for spec in state.all_device_tools()}
    return {
        "added": sorted(after - before),
        "removed": sorted(before - after),
        "total": len(after),
        "serversRestarted": restarted,
        "message": f"{len(after)} tools; tools/list has changed"
        + ("" if restarted else " (no device is connected: its MCP toolset servers start when one is)"),
    }


async def _forget_agents(state: ClientState) -> None:
    agents, state.agents = list(state.agents.values()), {}
    for agent in agents:
        with contextlib.suppress(Exception):
            await agent.close()
