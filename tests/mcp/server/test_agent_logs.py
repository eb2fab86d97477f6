"""What trailblaze's agent did in an MCP session, written down and counted: the agent log's four
records under ``.trailblaze/mcp/<session>/``, ``getAgentMetrics``/``clearAgentMetrics``, and the
inner agent's ``toolbox`` within the categories the outer agent allowed — through the SDK's
client over stdio, the LLM a local OpenAI-compatible stand-in (and the client's, by sampling)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from tests.fake_openai import FakeOpenAI, Ref, Reply
from tests.mcp.server.support import failed, http_server, ok, stdio
from tests.mcp.server.test_agents import SamplingClient
from tests.support.cli import Project

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

AGENT = ("--mode", "TRAILBLAZE_AS_AGENT")
SECRET = "hunter2-very-secret"


def _records(project: Project, log: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (project.root / log).read_text(encoding="utf-8").splitlines()]


def test_a_session_logs_counts_and_lets_the_inner_agent_enable_categories(project: Project) -> None:
    script = [
        # step 1, started with CORE_INTERACTION only: it asks for VERIFICATION, and for MEMORY, which
        # the outer agent did not allow
        Reply(calls=[("web_navigate", {"url": "/forms.html"})], content="First the forms page."),
        Reply(calls=[("toolbox", {"action": "ENABLE", "categories": ["MEMORY"]})]),
        Reply(calls=[("toolbox", {"action": "ENABLE", "categories": ["VERIFICATION"]})]),
        Reply(calls=[("web_fillSecret", {"ref": Ref('textbox "Password"'), "value": "${SHOP_PASSWORD}"})]),
        Reply(calls=[("web_type", {"ref": Ref('textbox "Name"'), "text": SECRET})]),
        Reply(calls=[("web_verifyTextVisible", {"text": "Forms"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE", "explanation": "typed"})]),
        # step 2: the agent gives up
        Reply(calls=[("objectiveStatus", {"status": "FAILED", "explanation": "no such button"})]),
        # step 3, a check started with CORE_INTERACTION: it has the verification tools all the same
        Reply(calls=[("web_verifyTextVisible", {"text": "Forms"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
    ]
    with FakeOpenAI(script) as fake:
        project.write(
            "trailblaze.yaml",
            f"base_url: sample-app\ntimeout: 5\nllm:\n  base_url: {fake.url}\n  model: scripted-model\n",
        )

        async def scenario() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with stdio(project.root, *AGENT, env={"SHOP_PASSWORD": SECRET}) as client:
                out["tools"] = [t.name for t in (await client.list_tools()).tools]
                out["empty"] = ok(await client.call_tool("getAgentMetrics", {}))
                ok(await client.call_tool("toolbox", {"action": "ENABLE", "categories": ["VERIFICATION"]}))
                step = {"objective": "Fill in the form", "categories": ["CORE_INTERACTION"]}
                out["step"] = ok(await client.call_tool("step", step))
                out["failed"] = failed(await client.call_tool("step", {"objective": "Press the Launch button"}))
                out["metrics"] = ok(await client.call_tool("getAgentMetrics", {}))
                out["cleared"] = ok(await client.call_tool("clearAgentMetrics", {"scope": "SESSION"}))
                out["after"] = ok(await client.call_tool("getAgentMetrics", {}))
                check = {"objective": "The page says Forms", "hint": "VERIFY", "categories": ["CORE_INTERACTION"]}
                out["verify"] = ok(await client.call_tool("step", check))
            return out

        out = asyncio.run(scenario())
        requests = fake.requests
    assert {"getAgentMetrics", "clearAgentMetrics"} <= set(out["tools"])
    assert out["empty"]["session"]["totalExecutions"] == 0
    # the inner agent: CORE_INTERACTION at first, with toolbox; VERIFICATION once it enabled it
    offered = [{t["function"]["name"] for t in r["tools"]} for r in requests]
    assert "toolbox" in offered[0] and "web_click" in offered[0] and "web_verifyTextVisible" not in offered[0]
    assert "rememberText" not in offered[2]  # MEMORY was refused
    assert "web_verifyTextVisible" in offered[3] and "web_fillSecret" in offered[0]
    answers = [m["content"] for m in requests[2]["messages"] if m["role"] == "tool"]
    assert "MEMORY is not allowed in this step" in answers[-1]
    assert "toolbox" not in offered[-3]  # a step without categories starts with all of them
    assert "web_verifyTextVisible" in offered[-1] and "web_click" not in offered[-1]
    assert out["verify"]["passed"] is True
    assert out["step"]["recorded"]["tools"][0] == {"web_navigate": {"url": "/forms.html"}}
    recorded = [next(iter(c)) for c in out["step"]["recorded"]["tools"]]
    assert recorded == ["web_navigate", "web_fillSecret", "web_type", "web_verifyTextVisible"]

    # the metrics: one success, one failure by kind, with iterations and tokens
    session, total = out["metrics"]["session"], out["metrics"]["total"]
    assert (session["totalExecutions"], session["successCount"], session["failureCount"]) == (2, 1, 1)
    assert session["errorKinds"] == {"objective_failed": 1} and session["successRate"] == 0.5
    assert session["iterations"] == 8 and session["promptTokens"] > 0 and session["llmTimeMs"] > 0
    assert session["byStrategy"][0]["agentImplementation"] == "DIRECT"
    assert total["totalExecutions"] == 2
    assert out["cleared"]["sessionRunsCleared"] == 2
    assert out["after"]["session"]["totalExecutions"] == 0 == out["after"]["total"]["totalExecutions"]

    # the four records, in the session's folder, secrets masked
    log = out["step"]["agent"]["log"]
    assert log.startswith(".trailblaze/mcp/mcp-") and log.endswith("/agent-log.jsonl")
    assert "could not do it: no such button" in out["failed"]
    records = _records(project, log)
    text = json.dumps(records)
    assert SECRET not in text and "***" in text
    first = [r for r in records if r["run"] == records[0]["run"]]
    kinds = [r["record"] for r in first]
    assert kinds.count("sampling") == 7 and kinds.count("iteration") == 7 and kinds[-1] == "agent_run"
    run = first[-1]
    assert run["objective"] == "Fill in the form" and run["status"] == "complete"
    assert (run["transport"], run["strategy"], run["iterations"]) == ("DIRECT", "DIRECT", 7)
    assert run["actions"] == ["web_navigate", "toolbox", "web_fillSecret", "web_type", "web_verifyTextVisible"]
    typed = next(r for r in first if r["record"] == "tool" and r["tool"] == "web_type")
    assert typed["args"]["text"] == "***"  # the literal secret the LLM sent is masked in the log
    screenshot = Path(project.root / log).parent / run["screenshot"]
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    tools = [r for r in first if r["record"] == "tool"]
    assert [(t["tool"], t["ok"], t["transport"]) for t in tools][:2] == [
        ("web_navigate", True, "DIRECT"),
        ("toolbox", False, "DIRECT"),
    ]
    iteration = next(r for r in first if r["record"] == "iteration")
    assert iteration["completion"] == "First the forms page." and iteration["calls"][0]["tool"] == "web_navigate"
    sampling = next(r for r in first if r["record"] == "sampling")
    assert sampling["model"] == "scripted-model" and sampling["strategy"] == "DIRECT"
    assert sampling["messages"][0]["role"] == "system" and sampling["duration_ms"] > 0
    assert [r["status"] for r in records if r["record"] == "agent_run"] == ["complete", "failed", "complete"]


def test_sampling_runs_are_logged_and_counted_by_strategy(project: Project) -> None:
    llm = SamplingClient(
        [("web_navigate", {"url": "/forms.html"}), ("objectiveStatus", {"status": "COMPLETE"})], with_tools=True
    )
    capabilities = types.SamplingCapability(tools=types.SamplingToolsCapability())

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with stdio(project.root, *AGENT, sampling_callback=llm, sampling_capabilities=capabilities) as client:
            ok(await client.call_tool("config", {"action": "SET", "key": "llmCallStrategy", "value": "MCP_SAMPLING"}))
            step = ok(await client.call_tool("step", {"objective": "Open the forms page"}))
            return step, ok(await client.call_tool("getAgentMetrics", {}))

    step, metrics = asyncio.run(scenario())
    assert [s["agentImplementation"] for s in metrics["session"]["byStrategy"]] == ["MCP_SAMPLING"]
    records = _records(project, step["agent"]["log"])
    sampling = [r for r in records if r["record"] == "sampling"]
    assert [r["strategy"] for r in sampling] == ["MCP_SAMPLING", "MCP_SAMPLING"]
    assert (
        sampling[0]["model"] == "client-llm" and "carry out exactly one step" in sampling[0]["messages"][0]["content"]
    )
    assert records[-1]["record"] == "agent_run" and records[-1]["strategy"] == "MCP_SAMPLING"


def test_the_clients_own_calls_are_logged_as_its_runs_and_not_counted(project: Project) -> None:
    """MCP_CLIENT_AS_AGENT: the client is the agent; each of its calls (a device tool, a step with
    `tools`) is a run of the log, with no LLM of trailblaze's, and not an agent metric."""

    async def scenario() -> dict[str, Any]:
        async with stdio(project.root) as client:
            ok(await client.call_tool("web_navigate", {"url": "/forms.html", "reason": "Open the forms page"}))
            steps = "- web_click: {ref: e999}"
            await client.call_tool("step", {"objective": "Press a button that is not there", "tools": steps})
            return ok(await client.call_tool("getAgentMetrics", {}))

    metrics = asyncio.run(scenario())
    assert metrics["session"]["totalExecutions"] == 0
    (log,) = (project.root / ".trailblaze" / "mcp").glob("*/agent-log.jsonl")
    runs = [r for r in _records(project, str(log.relative_to(project.root))) if r["record"] == "agent_run"]
    assert [(r["objective"], r["status"], r["strategy"], r["transport"]) for r in runs] == [
        ("Open the forms page", "complete", "MCP_CLIENT", "MCP"),
        ("Press a button that is not there", "failed", "MCP_CLIENT", "MCP"),
    ]
    assert runs[1]["error_kind"] == "tool_failed" and "e999" in runs[1]["explanation"]


def test_an_llm_that_fails_is_an_error_of_its_kind_with_the_request_that_failed(project: Project) -> None:
    with FakeOpenAI([Reply(status=400, error="context length exceeded")]) as fake:
        project.write(
            "trailblaze.yaml",
            f"base_url: sample-app\ntimeout: 5\nllm:\n  base_url: {fake.url}\n  model: scripted-model\n",
        )

        async def scenario() -> tuple[str, dict[str, Any]]:
            async with stdio(project.root, *AGENT) as client:
                error = failed(await client.call_tool("step", {"objective": "Open the forms page"}))
                return error, ok(await client.call_tool("getAgentMetrics", {}))

        error, metrics = asyncio.run(scenario())
    assert "answered 400: context length exceeded" in error
    session = metrics["session"]
    assert (session["totalExecutions"], session["errorCount"], session["errorKinds"]) == (1, 1, {"infrastructure": 1})
    (log,) = (project.root / ".trailblaze" / "mcp").glob("*/agent-log.jsonl")
    records = _records(project, str(log.relative_to(project.root)))
    assert [r["record"] for r in records] == ["sampling", "agent_run"]
    assert "context length exceeded" in records[0]["error"] and records[0]["completion"] is None
    assert (records[1]["status"], records[1]["error_kind"]) == ("error", "infrastructure")


def test_over_http_each_session_counts_its_own_runs_and_the_total_counts_all(project: Project) -> None:
    done = Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})])
    gave_up = Reply(calls=[("objectiveStatus", {"status": "FAILED", "explanation": "no"})])
    with FakeOpenAI([done, gave_up, done]) as fake:
        project.write(
            "trailblaze.yaml",
            f"base_url: sample-app\ntimeout: 5\nllm:\n  base_url: {fake.url}\n  model: scripted-model\n",
        )
        with http_server(project.root, *AGENT) as server:

            async def scenario() -> dict[str, Any]:
                out: dict[str, Any] = {}
                async with (
                    Client(server.url, read_timeout_seconds=60) as first,
                    Client(server.url, read_timeout_seconds=60) as second,
                ):
                    ok(await first.call_tool("step", {"objective": "Look"}))
                    failed(await second.call_tool("step", {"objective": "Find the Launch button"}))
                    ok(await second.call_tool("step", {"objective": "Look again"}))
                    out["first"] = ok(await first.call_tool("getAgentMetrics", {}))
                    ok(await second.call_tool("clearAgentMetrics", {"scope": "SESSION"}))
                    out["cleared"] = ok(await first.call_tool("getAgentMetrics", {}))
                return out

            out = asyncio.run(scenario())
    first, total = out["first"]["session"], out["first"]["total"]
    assert (first["totalExecutions"], first["successCount"]) == (1, 1)
    assert (total["totalExecutions"], total["successCount"], total["failureCount"]) == (3, 2, 1)
    assert total["errorKinds"] == {"objective_failed": 1}
    after = out["cleared"]["total"]  # the second session's runs no longer count
    assert (after["totalExecutions"], after["failureCount"], after["errorKinds"]) == (1, 0, {})
    logs = sorted((project.root / ".trailblaze" / "mcp").glob("*/agent-log.jsonl"))
    assert len(logs) == 2  # a log per session
