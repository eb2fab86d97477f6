"""The ``getAgentMetrics`` and ``clearAgentMetrics`` session tools (:mod:`.metrics` counts)."""

from __future__ import annotations

from typing import Any

from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver.calls import Call, Reply, parse_args
from trailblaze.mcpserver.metrics import SERVER, forget


async def get_agent_metrics(call: Call, arguments: dict[str, Any]) -> Reply:
    parse_args(A.GetAgentMetricsArgs, arguments)
    return Reply({"session": call.state.metrics.to_dict(), "total": SERVER.to_dict()})


async def clear_agent_metrics(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.ClearAgentMetricsArgs = parse_args(A.ClearAgentMetricsArgs, arguments)
    session = call.state.metrics
    if args.scope is A.MetricsScope.ALL:
        SERVER.clear()
    else:  # the server's totals no longer count this session's runs
        forget(session)
    cleared = session.to_dict()["totalExecutions"]
    session.clear()
    return Reply({"cleared": args.scope.value, "sessionRunsCleared": cleared})
