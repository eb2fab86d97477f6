"""The session tools (upstream's names), by name: each family lives in its own module.

Every handler takes a :class:`~trailblaze.mcpserver.calls.Call` — the client's state and what
the server lets a tool do (report progress, tell the client its tools changed, sample the
client's LLM) — and returns a :class:`~trailblaze.mcpserver.calls.Reply`. A tool that cannot
do what was asked raises :class:`~trailblaze.mcpserver.calls.ToolError`: the client gets a tool
result with ``isError: true`` and the message, never a protocol error.
"""

from __future__ import annotations

from trailblaze.mcpserver.ask_tool import ask
from trailblaze.mcpserver.calls import Handler
from trailblaze.mcpserver.config_tools import config, toolbox
from trailblaze.mcpserver.device_tool import device
from trailblaze.mcpserver.metrics_tools import clear_agent_metrics, get_agent_metrics
from trailblaze.mcpserver.step_tools import run_prompt, step
from trailblaze.mcpserver.trail_tools import session, trail

HANDLERS: dict[str, Handler] = {
    "device": device,
    "step": step,
    "ask": ask,
    "trail": trail,
    "session": session,
    "config": config,
    "toolbox": toolbox,
    "runPrompt": run_prompt,
    "getAgentMetrics": get_agent_metrics,
    "clearAgentMetrics": clear_agent_metrics,
}
