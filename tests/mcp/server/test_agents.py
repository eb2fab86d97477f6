"""TRAILBLAZE_AS_AGENT: trailblaze's own agent works out ``step(objective)`` and ``runPrompt`` —
on the configured LLM (a local OpenAI-compatible stand-in speaking the real wire format), or on
the client's LLM through MCP sampling (answered by the test's client, with and without tool use)."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from typing import Any

import mcp_types as types
import pytest

from tests.fake_openai import FakeOpenAI, Ref, Reply
from tests.mcp.server.support import data, failed, ok, stdio
from tests.support.cli import CliRunner, Project

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

AGENT = ("--mode", "TRAILBLAZE_AS_AGENT")


def _llm(project: Project, fake: FakeOpenAI) -> None:
    project.write(
        "trailblaze.yaml", f"base_url: sample-app\ntimeout: 5\nllm:\n  base_url: {fake.url}\n  model: scripted-model\n"
    )


def test_direct_llm_works_out_steps_that_replay(project: Project, cli: CliRunner) -> None:
    script = [
        Reply(calls=[("web_navigate", {"url": "/forms.html", "reason": "the forms page"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE", "explanation": "opened"})]),
        Reply(calls=[("web_type", {"ref": Ref('textbox "Name"'), "text": "Ada Lovelace"})]),
        Reply(calls=[("web_click", {"ref": Ref('button "Submit"')})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
        Reply(calls=[("web_verifyTextVisible", {"text": "Name: Ada Lovelace"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
        Reply(content="The heading says Forms."),
    ]
    progress: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    with FakeOpenAI(script) as fake:
        _llm(project, fake)

        async def scenario() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with stdio(project.root, *AGENT) as client:
                out["step"] = ok(await client.call_tool("step", {"objective": "Open the forms page"}))
                out["prompt"] = ok(
                    await client.call_tool(
                        "runPrompt",
                        {"steps": ["Type Ada Lovelace as the name and submit"]},
                        progress_callback=on_progress,
                    )
                )
                out["verify"] = ok(
                    await client.call_tool("step", {"objective": "The result shows the name", "hint": "VERIFY"})
                )
                out["ask"] = ok(await client.call_tool("ask", {"question": "What does the heading say?"}))
                out["save"] = ok(await client.call_tool("trail", {"action": "SAVE", "name": "agent-made"}))
            return out

        out = asyncio.run(scenario())
        requests = fake.requests
    assert out["step"]["agent"]["status"] == "complete" and out["step"]["agent"]["model"] == "scripted-model"
    assert out["step"]["recorded"]["tools"] == [{"web_navigate": {"url": "/forms.html", "reason": "the forms page"}}]
    assert out["prompt"]["passed"] is True
    recorded = out["prompt"]["steps"][0]["recorded"]["tools"]
    assert recorded[0]["web_type"]["nodeSelector"] == {"web": {"dataTestId": "name-input"}}
    assert out["verify"]["passed"] is True and out["verify"]["recorded"]["kind"] == "verify"
    assert out["ask"]["answer"] == "The heading says Forms."
    assert "step 1: Type Ada Lovelace as the name and submit" in progress
    assert "step 1: web_click: ok" in progress
    # every step was a fresh conversation with the current screen only (seed 001's subagent pattern)
    first = requests[0]["messages"]
    assert [m["role"] for m in first] == ["system", "user"] and "The step: Open the forms page" in first[1]["content"]
    assert "tools" not in requests[-1]  # ask is one completion without tools
    saved = project.root / "trails" / "agent-made.trail.yaml"
    assert '- verify: "The result shows the name"' in saved.read_text(encoding="utf-8")
    assert cli("run", "trails/agent-made.trail.yaml", cwd=project.root).returncode == 0  # no LLM needed now


def test_run_prompt_progress_only_increases(project: Project) -> None:
    """The MCP spec: every progress notification's value is greater than the one before, also when
    the agent's calls inside a step report progress of their own."""
    script = [
        Reply(calls=[("web_navigate", {"url": "/forms.html"})]),
        Reply(calls=[("web_type", {"ref": Ref('textbox "Name"'), "text": "Ada"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
        Reply(calls=[("web_click", {"ref": Ref('button "Submit"')})]),
        Reply(calls=[("web_verifyTextVisible", {"text": "Name: Ada"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
    ]
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    with FakeOpenAI(script) as fake:
        _llm(project, fake)

        async def scenario() -> dict[str, Any]:
            async with stdio(project.root, *AGENT) as client:
                steps = ["Type Ada as the name on the forms page", "Submit and see the name"]
                return ok(await client.call_tool("runPrompt", {"steps": steps}, progress_callback=on_progress))

        assert asyncio.run(scenario())["passed"] is True
    values = [done for done, _, _ in seen]
    assert len(values) == 7  # each step's start and its two calls; then "done"
    assert all(a < b for a, b in itertools.pairwise(values)), seen
    assert {total for _, total, _ in seen} == {2} and values[-1] == 2
    assert [m for _, _, m in seen][:2] == ["step 1: Type Ada as the name on the forms page", "step 1: web_navigate: ok"]


def test_navigation_hint_narrows_trailblaze_agents_tools(project: Project) -> None:
    script = [
        Reply(calls=[("web_navigate", {"url": "/forms.html"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
    ]
    with FakeOpenAI(script) as fake:
        _llm(project, fake)

        async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
            async with stdio(project.root, *AGENT) as client:
                navigation = {"objective": "Open the forms page", "hint": "navigation"}
                narrowed = ok(await client.call_tool("step", navigation))
                full = ok(await client.call_tool("step", {"objective": "Look around"}))
                return narrowed, full

        narrowed, full = asyncio.run(scenario())
        offered = [{t["function"]["name"] for t in request["tools"]} for request in fake.requests]
    assert narrowed["recorded"]["kind"] == "step" and full["done"] is True
    assert {"web_navigate", "web_click", "objectiveStatus"} <= offered[0]
    assert "web_verifyTextVisible" not in offered[0] and "rememberText" not in offered[0]
    assert offered[1] == offered[0]  # the same step, its second turn
    assert {"web_verifyTextVisible", "rememberText"} <= offered[2]


def test_without_an_llm_the_error_says_how_to_get_one(project: Project) -> None:
    async def scenario() -> tuple[str, str, str]:
        async with stdio(project.root, *AGENT, env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}) as client:
            step = failed(await client.call_tool("step", {"objective": "Open the forms page"}))
            # ask has no `tools` to fall back on: without an LLM it gives the screen, as in client mode
            ask = ok(await client.call_tool("ask", {"question": "What is on screen?"}))
            assert ask["answer"] is None and "configure `llm:`" in ask["note"] and ask["screen"]
            ok(await client.call_tool("config", {"action": "SET", "key": "llmCallStrategy", "value": "MCP_SAMPLING"}))
            sampling = failed(await client.call_tool("runPrompt", {"prompt": "Open the forms page"}))
            ok(await client.call_tool("config", {"action": "SET", "key": "mode", "value": "MCP_CLIENT_AS_AGENT"}))
            client_mode = failed(await client.call_tool("step", {"objective": "Open the forms page"}))
            return step, sampling, client_mode

    step, sampling, client_mode = asyncio.run(scenario())
    assert "configure `llm:` in trailblaze.yaml" in step and "pass `tools`" in step
    assert "does not support sampling" in sampling
    assert "you are the agent: pass `tools`" in client_mode


class SamplingClient:
    """The test plays the client's LLM: it answers trailblaze's sampling requests from a script,
    filling in refs from the screen trailblaze sent (so the screen must really be there)."""

    def __init__(self, script: list[Any], *, with_tools: bool) -> None:
        self.script = script
        self.with_tools = with_tools
        self.requests: list[types.CreateMessageRequestParams] = []

    async def __call__(self, context: Any, params: types.CreateMessageRequestParams) -> Any:
        self.requests.append(params)
        answer = self.script[len(self.requests) - 1]
        screen = _latest_screen(params.messages)
        if isinstance(answer, str):
            return types.CreateMessageResult(
                role="assistant", content=types.TextContent(text=_fill(answer, screen)), model="client-llm"
            )
        name, args = answer
        args = json.loads(_fill(json.dumps(args), screen))
        if not self.with_tools:
            reply = json.dumps(
                {"status": args["status"]} if name == "objectiveStatus" else {"tool": name, "args": args}
            )
            return types.CreateMessageResult(
                role="assistant", content=types.TextContent(text=reply), model="client-llm"
            )
        use = types.ToolUseContent(id=f"use-{len(self.requests)}", name=name, input=args)
        return types.CreateMessageResultWithTools(
            role="assistant", content=[use], model="client-llm", stop_reason="toolUse"
        )


@pytest.mark.parametrize("with_tools", [True, False], ids=["tool-use", "json-text"])
def test_sampling_borrows_the_clients_llm(project: Project, cli: CliRunner, with_tools: bool) -> None:
    llm = SamplingClient(
        [
            ("web_navigate", {"url": "/forms.html"}),
            ("web_type", {"ref": '<ref of textbox "Name">', "text": "Grace"}),
            ("objectiveStatus", {"status": "COMPLETE"}),
            "The Name field holds Grace.",
        ],
        with_tools=with_tools,
    )
    capabilities = types.SamplingCapability(tools=types.SamplingToolsCapability()) if with_tools else None

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with stdio(project.root, *AGENT, sampling_callback=llm, sampling_capabilities=capabilities) as client:
            ok(await client.call_tool("config", {"action": "SET", "key": "llmCallStrategy", "value": "MCP_SAMPLING"}))
            step = ok(await client.call_tool("step", {"objective": "Type Grace as the name on the forms page"}))
            ask = ok(await client.call_tool("ask", {"question": "What is in the Name field?"}))
            ok(await client.call_tool("trail", {"action": "SAVE", "name": "sampled"}))
            return step, ask

    step, ask = asyncio.run(scenario())
    assert step["agent"]["name"] == "mcp-sampling" and step["agent"]["turns"] == 3
    assert [next(iter(c)) for c in step["recorded"]["tools"]] == ["web_navigate", "web_type"]
    assert ask["answer"] == "The Name field holds Grace."
    first = llm.requests[0]
    assert "carry out exactly one step" in (first.system_prompt or "")
    assert (first.tools is not None) is with_tools
    if with_tools:
        assert "web_click" in {t.name for t in first.tools or []}
        assert llm.requests[1].messages[-1].content_as_list[0].type == "tool_result"
    else:
        assert '{"tool": "<name>"' in (first.system_prompt or "")
    # earlier screens are dropped from later requests: only the newest is current
    later = json.dumps([m.model_dump(mode="json") for m in llm.requests[2].messages])
    assert later.count("The screen now:") == 1
    assert cli("run", "trails/sampled.trail.yaml", cwd=project.root).returncode == 0


def _latest_screen(messages: list[types.SamplingMessage]) -> str:
    texts: list[str] = []
    for message in messages:
        for block in message.content_as_list:
            inner = block.content if isinstance(block, types.ToolResultContent) else [block]
            texts.extend(b.text for b in inner if isinstance(b, types.TextContent))
    screens = [t for t in texts if "The screen now:" in t]
    return screens[-1].split("The screen now:", 1)[1] if screens else ""


def _fill(text: str, screen: str) -> str:
    def ref(match: re.Match[str]) -> str:
        wanted = match.group(1).replace('\\"', '"')
        for line in screen.splitlines():
            if wanted in line and "[e" in line:
                return line.rsplit("[", 1)[1].rstrip("]")
        raise AssertionError(f"{wanted!r} is not on the screen trailblaze sent:\n{screen}")

    return re.sub(r"<ref of (.+?)>", ref, text)


def test_data_of_error_results_is_structured(project: Project) -> None:
    async def scenario() -> dict[str, Any]:
        async with stdio(project.root) as client:
            return data(await client.call_tool("device", {"action": "FLY"}))

    assert "action: input should be" in asyncio.run(scenario())["error"]


SCRIPTED_AGENT = '''
import json
import os

import trailblaze
from trailblaze.api.agent import Verdict


class ScriptedAgent(trailblaze.Agent):
    """Opens the forms page whatever the step says: an agent from a plugin, not an LLM."""

    name = "scripted"

    async def solve(self, task):
        result = await task.call("web_navigate", {"url": "/forms.html"})
        return Verdict("complete" if result.ok else "failed", "opened the forms page")


@trailblaze.hookimpl
def trailblaze_register_agents(register):
    register(ScriptedAgent)


@trailblaze.hookimpl
def trailblaze_configure(config):
    with open(os.environ["CONFIGURED_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps([config.command, config.stdout_protocol]) + "\\n")
'''


def test_the_agent_comes_from_the_registry_and_reporters_are_told_stdout_is_the_protocols(
    project: Project, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``trailblaze mcp --agent NAME`` takes a plugin's agent as ``record --agent`` does; a
    plugin's ``trailblaze_configure`` sees that stdout belongs to MCP (the terminal reporter
    keeps off it: the session works at all only because nothing else is written there)."""
    plugins = tmp_path_factory.mktemp("plugins")
    (plugins / "scripted_agent.py").write_text(SCRIPTED_AGENT, encoding="utf-8")
    log = plugins / "configured.jsonl"
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\n")  # no LLM configured
    env = {"PYTHONPATH": str(plugins), "CONFIGURED_LOG": str(log)}

    async def scenario() -> dict[str, Any]:
        args = ("-p", "scripted_agent", *AGENT, "--agent", "scripted")
        async with stdio(project.root, *args, env=env) as client:
            return ok(await client.call_tool("step", {"objective": "Open the forms page"}))

    step = asyncio.run(scenario())
    assert step["agent"]["name"] == "scripted" and step["agent"]["status"] == "complete"
    assert step["recorded"]["tools"] == [{"web_navigate": {"url": "/forms.html"}}]
    assert [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] == [["mcp", "MCP"]]


def test_an_unknown_agent_is_misuse_before_the_server_starts(project: Project, cli: CliRunner) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\n")
    result = cli("mcp", "--agent", "nobody", cwd=project.root)
    assert result.returncode == 3, result.output
    assert "nobody" in result.stderr and result.stdout == ""


def test_an_agent_that_reads_stdin_is_refused_where_stdin_is_the_protocols(project: Project, cli: CliRunner) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\n")
    result = cli("mcp", "--agent", "interactive", cwd=project.root)
    assert result.returncode == 3, result.output
    assert result.stderr.startswith("error: --agent interactive: that agent reads a person's answers from stdin")
    assert result.stdout == ""
