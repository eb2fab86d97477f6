"""The agent that thinks with the client's LLM: MCP sampling (seed 001's mode 3, ``MCP_SAMPLING``).

Trailblaze works a step out the way the ``openai`` agent does — a fresh conversation per step
holding the step's text and the current screen only, earlier screens dropped after each round —
but every completion is a ``sampling/createMessage`` request to the client, so no LLM has to be
configured on Trailblaze's side.

Two ways to ask for tool calls, chosen by what the client declared:

* with the ``sampling.tools`` capability (MCP 2025-11-25), the step's tools go in the request
  and the model answers with ``tool_use`` blocks; results go back as ``tool_result`` blocks;
* otherwise the model is asked to answer with one JSON object per turn,
  ``{"tool": NAME, "args": {…}}`` or ``{"status": "COMPLETE"|"FAILED", "explanation": …}``,
  which any client that can sample text supports.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar

import mcp_types as types

from trailblaze.agents.conversation import (
    ASK_PROMPT,
    MAX_RESULT_CHARS,
    OBJECTIVE_STATUS,
    OMITTED_SCREEN,
    SYSTEM_PROMPT,
    TRAILHEAD_RULE,
    VERIFY_RULE,
    Offer,
    objective_verdict,
)
from trailblaze.agents.llm import llm_config
from trailblaze.api.agent import Agent, AgentSettings, StepTask, Usage, Verdict
from trailblaze.api.agentlog import AgentLog
from trailblaze.core import jsonsource
from trailblaze.core.errors import InfrastructureError
from trailblaze.device.screen import render_screen

#: sends one sampling request: (messages, system prompt, tools or None) → the client's answer
Sampler = Callable[
    [list[types.SamplingMessage], str, list[types.Tool] | None],
    Awaitable[types.CreateMessageResult | types.CreateMessageResultWithTools],
]
MAX_TURNS = 15
JSON_RULES = """

Answer every turn with exactly one JSON object and nothing else:
- to call a tool: {"tool": "<name>", "args": {<arguments>}}
- when the step is done: {"status": "COMPLETE", "explanation": "<what you did>"}
- when it cannot be done: {"status": "FAILED", "explanation": "<why>"}

The tools:
"""


class SamplingAgent(Agent):
    name: ClassVar[str] = "mcp-sampling"
    description: ClassVar[str] = "the MCP client's LLM, through sampling/createMessage"

    def __init__(self, settings: AgentSettings, sample: Sampler, *, tools_capability: bool) -> None:
        super().__init__(settings)
        self.sample = sample
        self.tools_capability = tools_capability

    async def solve(self, task: StepTask) -> Verdict:
        if self.tools_capability:
            return await self._solve_with_tools(task)
        return await self._solve_with_json(task)

    async def answer(self, question: str, screen: str) -> tuple[str, Usage]:
        usage = Usage()
        message = _user(f"The question: {question}\n\nThe screen now:\n{screen}")
        result = await self._sample([message], ASK_PROMPT, None, usage)
        return _text_of(result).strip(), usage

    # -- with tool_use ----------------------------------------------------------------------------------

    async def _solve_with_tools(self, task: StepTask) -> Verdict:
        messages = [_user(f"The step: {task.text}\n\n{await _screen(task)}")]
        usage = Usage()
        log = task.log
        for _ in range(MAX_TURNS):
            # offered anew every turn: the agent may enable tool categories during its step (``toolbox``)
            offer = _offer(task)
            offered = offer.tools
            tools = [_mcp_tool(schema) for schema in offer.schemas]
            result = await self._sample(messages, _system(task), tools, usage, log)
            blocks = _blocks(result)
            uses = [b for b in blocks if isinstance(b, types.ToolUseContent)]
            messages.append(types.SamplingMessage(role="assistant", content=blocks))
            thought = _text_of(result)
            if not uses:
                log.iteration(completion=thought, calls=[], response_type="no_tool")
                messages.append(_user("Call a tool to act, or objectiveStatus when the step is done."))
                continue
            results: list[types.ToolResultContent] = []
            done: list[dict[str, Any]] = []
            for use in uses:
                if use.name == OBJECTIVE_STATUS:
                    verdict = objective_verdict(use.input)
                    if verdict is not None:
                        done.append({"tool": use.name, "args": dict(use.input), "ok": True, "result": verdict.status})
                        log.iteration(completion=thought, calls=done, response_type=verdict.status)
                        verdict.usage = usage
                        return verdict
                    text = "noted; go on with the step"
                elif use.name not in offered:
                    text = f"error: {use.name!r} is not one of the tools offered for this step"
                else:
                    text = (await task.call(offered[use.name].name, dict(use.input))).describe()
                done.append({"tool": use.name, "args": dict(use.input), "ok": _ok(text), "result": text})
                results.append(
                    types.ToolResultContent(
                        tool_use_id=use.id, content=[types.TextContent(text=text[:MAX_RESULT_CHARS])]
                    )
                )
            log.iteration(completion=thought, calls=done, response_type="tool_call")
            _forget_screens(messages)
            results[-1].content.append(types.TextContent(text=await _screen(task)))
            messages.append(types.SamplingMessage(role="user", content=list(results)))
        return _turn_limit(usage)

    # -- with JSON text ---------------------------------------------------------------------------------

    async def _solve_with_json(self, task: StepTask) -> Verdict:
        messages = [_user(f"The step: {task.text}\n\n{await _screen(task)}")]
        usage = Usage()
        log = task.log
        for _ in range(MAX_TURNS):
            offer = _offer(task)
            offered = offer.tools
            catalog = "\n".join(json.dumps(schema["function"], ensure_ascii=False) for schema in offer.schemas)
            system = _system(task) + JSON_RULES + catalog
            result = await self._sample(messages, system, None, usage, log)
            reply = _text_of(result)
            messages.append(types.SamplingMessage(role="assistant", content=types.TextContent(text=reply)))
            decision = _json_object(reply)
            calls: list[dict[str, Any]] = []
            if decision is None:
                feedback = "error: answer with exactly one JSON object, as the rules say"
            elif "status" in decision:
                verdict = objective_verdict(decision)
                if verdict is not None:
                    calls.append({"tool": OBJECTIVE_STATUS, "args": decision, "ok": True, "result": verdict.status})
                    log.iteration(completion=reply, calls=calls, response_type=verdict.status)
                    verdict.usage = usage
                    return verdict
                feedback = 'error: status must be "COMPLETE" or "FAILED"'
            else:
                name = str(decision.get("tool") or "")
                args = decision.get("args") or {}
                if name not in offered or not isinstance(args, dict):
                    feedback = f"error: {name!r} is not one of the tools offered for this step"
                else:
                    feedback = (await task.call(offered[name].name, args)).describe()
                calls.append({"tool": name, "args": args, "ok": _ok(feedback), "result": feedback})
            log.iteration(completion=reply, calls=calls, response_type="tool_call" if calls else "no_tool")
            _forget_screens(messages)
            messages.append(_user(f"{feedback[:MAX_RESULT_CHARS]}\n\n{await _screen(task)}"))
        return _turn_limit(usage)

    # -- the request ------------------------------------------------------------------------------------

    async def _sample(
        self,
        messages: list[types.SamplingMessage],
        system: str,
        tools: list[types.Tool] | None,
        usage: Usage,
        log: AgentLog | None = None,
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools:
        import time

        from mcp.shared.exceptions import MCPError

        started = time.monotonic()
        try:
            result = await self.sample(messages, system, tools)
        except MCPError as exc:
            if log is not None:  # the log says which request failed, and how
                log.sampling(
                    messages=[{"role": "system", "content": system}, *(m.model_dump(mode="json") for m in messages)],
                    completion=None,
                    model=None,
                    duration_ms=(time.monotonic() - started) * 1000,
                    strategy="MCP_SAMPLING",
                    tools=[t.name for t in tools or []],
                    error=exc.message,
                )
            raise InfrastructureError(f"the client's LLM did not answer the sampling request: {exc.message}") from None
        usage.turns += 1
        usage.model = result.model or usage.model
        if log is not None:
            sent = [{"role": "system", "content": system}, *(m.model_dump(mode="json") for m in messages)]
            log.sampling(
                messages=sent,
                completion=result.model_dump(mode="json", exclude_none=True),
                model=result.model,
                duration_ms=(time.monotonic() - started) * 1000,
                strategy="MCP_SAMPLING",
                tools=[t.name for t in tools or []],
            )
        return result


def _offer(task: StepTask) -> Offer:
    return Offer.of(task.tools_in_groups(llm_config(task.session.run.config).groups), _platform(task))


def _ok(text: str) -> bool:
    return not text.startswith(("error:", "failed:"))


def _turn_limit(usage: Usage) -> Verdict:
    why = f"the step was not finished after {MAX_TURNS} sampling turns"
    return Verdict("failed", why, usage, error_kind="turn_limit")


def _system(task: StepTask) -> str:
    extra = VERIFY_RULE if task.verify_only else TRAILHEAD_RULE if task.kind == "trailhead" else ""
    if task.context:
        extra += f"\n\nAbout the app under test: {task.context}"
    return SYSTEM_PROMPT.format(platform=task.session.info.platform, extra=extra)


def _platform(task: StepTask) -> str:
    return task.session.info.platform


async def _screen(task: StepTask) -> str:
    return f"The screen now:\n{render_screen(await task.screen())}"


def _user(text: str) -> types.SamplingMessage:
    return types.SamplingMessage(role="user", content=types.TextContent(text=text))


def _mcp_tool(function_schema: dict[str, Any]) -> types.Tool:
    function = function_schema["function"]
    return types.Tool(
        name=function["name"], description=function.get("description"), input_schema=function["parameters"]
    )


def _blocks(result: types.CreateMessageResult | types.CreateMessageResultWithTools) -> list[Any]:
    content = result.content
    return list(content) if isinstance(content, list) else [content]


def _text_of(result: types.CreateMessageResult | types.CreateMessageResultWithTools) -> str:
    return "\n".join(b.text for b in _blocks(result) if isinstance(b, types.TextContent))


def _json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply, also when the model wrapped it in a code fence or prose."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value = jsonsource.parse(text[start : end + 1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _forget_screens(messages: Sequence[types.SamplingMessage]) -> None:
    """Earlier screens are replaced: only the newest may be acted on (seed 001's subagent rule)."""
    for message in messages:
        if message.role != "user":
            continue
        blocks = message.content if isinstance(message.content, list) else [message.content]
        for block in blocks:
            inner = block.content if isinstance(block, types.ToolResultContent) else [block]
            for text in inner:
                if isinstance(text, types.TextContent) and "The screen now:\n" in text.text:
                    text.text = text.text.split("The screen now:\n", 1)[0] + OMITTED_SCREEN
