"""The ``step`` and ``runPrompt`` session tools: a step toward an objective, run directly from the
client's tool calls or worked out by an agent, recorded as one trail step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import UsageError
from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver.calls import (
    ECHO_CHARS,
    Call,
    CallsMade,
    Reply,
    ToolError,
    attach_screen,
    connected_device,
    parse_args,
)
from trailblaze.mcpserver.catalog import tool_name
from trailblaze.mcpserver.categories import NAVIGATION_HINT, Category, offered
from trailblaze.mcpserver.device_calls import (
    call_outcome,
    check_step_text,
    client_log,
    cut,
    end_client_log,
    parse_tool_calls,
    record_step,
)
from trailblaze.mcpserver.settings import (
    LlmCallStrategy,
    Mode,
)
from trailblaze.mcpserver.state import ClientState
from trailblaze.runner.agent_step import OBJECTIVE_STATUS, AgentStep
from trailblaze.tools.model import ToolCall, ToolImplementation
from trailblaze.trail.model import Step, StepKind

if TYPE_CHECKING:
    from trailblaze.api.agent import Agent, CallResult, Usage
    from trailblaze.api.agentlog import AgentLog
    from trailblaze.mcpserver.device import DeviceSession
    from trailblaze.tools.model import ToolSpec


async def step(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.StepArgs = parse_args(A.StepArgs, arguments)
    check_step_text(args.objective, "objective")
    verify = args.hint is A.Hint.VERIFY
    state = call.state
    if args.tools is None and state.settings.mode is Mode.MCP_CLIENT_AS_AGENT:
        raise ToolError(
            "in MCP_CLIENT_AS_AGENT mode you are the agent: pass `tools` (tool calls as YAML, as in a trail's "
            'recording) or call the device tools directly; config(action=SET, key="mode", '
            'value="TRAILBLAZE_AS_AGENT") lets trailblaze\'s own agent work out objectives'
        )
    calls = parse_tool_calls(args.tools) if args.tools is not None else None
    if calls is not None:  # a tool may be named as tools/list offers it (bank_signIn for bank.signIn)
        calls = [ToolCall(tool_name(state, c.name), c.args) for c in calls]
    async with state.lock:
        device = await connected_device(state)
        if calls is not None:
            reply = await _direct_step(state, device, args.objective, calls, verify)
        else:
            navigation = args.hint is A.Hint.NAVIGATION
            reply = await _agent_step(
                call, device, args.objective, verify, args.context, navigation=navigation, categories=args.categories
            )
        await attach_screen(state, device, reply, screenshot=args.screenshot and not args.fast)
    return reply


async def _direct_step(
    state: ClientState, device: DeviceSession, objective: str, calls: list[ToolCall], verify: bool
) -> Reply:
    kind: StepKind = "verify" if verify else "step"
    task = device.task(kind, objective)
    log = client_log(state, device, task)
    ran: list[dict[str, Any]] = []
    made: list[tuple[str, Mapping[str, Any], CallResult]] = []
    failure: CallResult | None = None
    for planned in calls:
        result = await device.call(task, planned.name, planned.args)
        ran.append(call_outcome(planned.name, result))
        made.append((planned.name, planned.args, result))
        if not result.ok:
            failure = result
            break
    end_client_log(log, made)
    # a failed step keeps the calls before the failing one (a replay reaches the same screen); when
    # the first call failed there is nothing to keep, and no empty step is recorded
    kept = failure is None or (not verify and bool(task.recording))
    recorded = record_step(state, device, kind, objective, task.recording, task.needs_agent) if kept else None
    data: dict[str, Any] = {
        "executed": True,
        "objective": objective,
        "calls": cut(ran, None),
        "recorded": cut(recorded, ECHO_CHARS),
    }
    if verify:
        refused = failure is not None and _refused(failure)
        data["passed"] = failure is None
        if failure is not None:
            data["error"] = failure.error
        return Reply(data, error=refused)
    if failure is None:
        data["done"] = True
        return Reply(data)
    data["error"] = failure.error
    data["note"] = _partial_note(recorded)
    return Reply(data, error=True)


def _refused(result: CallResult) -> bool:
    """A call trailblaze would not run (not allowed in a verify step, unknown tool, bad arguments),
    as opposed to a check that ran and did not hold."""
    error = result.error or ""
    return "is not allowed here" in error or error.startswith("unknown tool") or "invalid arguments" in error


def _partial_note(recorded: dict[str, Any] | None) -> str:
    if recorded:
        return (
            f"the calls before the failing one ran and are recorded as step {recorded['step']}, so a replay "
            "reaches the same screen; nothing of the failing call is recorded"
        )
    return "nothing was recorded"


async def _agent_step(
    call: Call,
    device: DeviceSession,
    objective: str,
    verify: bool,
    context: str | None,
    report: CallsMade | None = None,
    *,
    navigation: bool = False,
    categories: Sequence[Category] | None = None,
) -> Reply:
    from trailblaze.mcpserver.metrics import count
    from trailblaze.runner.agentrun import new_log, solve_logged

    state = call.state
    kind: StepKind = "verify" if verify else "step"
    agent = await session_agent(call, device)
    if report is None:

        async def report(calls: int, message: str) -> None:
            await call.progress(calls, None, message)

    start, allowed = _step_categories(state, navigation, categories, verify=verify)
    task = _ReportingStep(
        device, device.new_step(kind, objective), report, context, start, allowed, state.builtin_sources()
    )
    log = new_log(state.artifacts_dir, device.live, task, agent, strategy=state.settings.llm_call_strategy.value)
    try:
        verdict, _ = await solve_logged(agent, task, device.live)
    finally:
        if log.record is not None:
            count(state.metrics, log.record)
    passed = verdict.status == "complete"
    recorded = (
        record_step(state, device, kind, objective, task.recording, task.needs_agent)
        if (passed or not verify)
        else None
    )
    data: dict[str, Any] = {
        "executed": True,
        "objective": objective,
        "agent": {
            "name": agent.name,
            "status": verdict.status,
            "explanation": verdict.explanation,
            **usage_dict(verdict.usage),
            "iterations": log.iterations,
            "log": _shown_log(state, log),
        },
        "recorded": recorded,
    }
    if verify:
        data["passed"] = passed
        return Reply(data)
    if passed:
        data["done"] = True
        return Reply(data)
    data["error"] = f"{agent.name} could not do it: {verdict.explanation or 'no reason given'}"
    data["note"] = _partial_note(recorded)
    return Reply(data, error=True)


async def run_prompt(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.RunPromptArgs = parse_args(A.RunPromptArgs, arguments)
    steps = [*(args.steps or []), *([args.prompt] if args.prompt else [])]
    steps = [s for s in (text.strip() for text in steps) if s]
    if not steps:
        raise ToolError("give `steps` (a list of steps in plain language) or `prompt`")
    for text in steps:
        check_step_text(text, "a step")
    state = call.state
    results: list[dict[str, Any]] = []
    async with state.lock:
        device = await connected_device(state)
        for number, text in enumerate(steps, 1):
            await call.progress(number - 1, len(steps), f"step {number}: {text}")
            reply = await _agent_step(call, device, text, False, None, _within_step(call, number - 1, len(steps)))
            results.append({"step": text, **{k: reply.data.get(k) for k in ("agent", "recorded", "error")}})
            if reply.error:
                break
        await call.progress(len(results), len(steps), "done")
        failure = next((r["error"] for r in results if r.get("error")), None)
        reply = Reply({"passed": failure is None, "steps": results}, error=failure is not None)
        if failure is not None:
            reply.data["error"] = f"step {len(results)} ({results[-1]['step']}): {failure}"
        await attach_screen(state, device, reply, screenshot=False)
    return reply


def _within_step(call: Call, done: int, total: int) -> CallsMade:
    """Progress inside step ``done`` (0-based) of ``total``: the k-th call reports ``done + k/(k+1)``,
    so values rise with every call and stay below the next step's ``done + 1`` (the MCP spec
    wants every progress value greater than the one before)."""

    async def report(calls: int, message: str) -> None:
        await call.progress(done + calls / (calls + 1), total, f"step {done + 1}: {message}")

    return report


class _ReportingStep(AgentStep):
    """The agent's step, reporting after every call it makes (``report(calls so far, message)``),
    offering the tools of its enabled categories — and, when the outer agent allowed more than
    it started with, ``toolbox`` to enable them (seed 001: the subagent swaps categories as it
    discovers what it needs)."""

    def __init__(
        self,
        device: DeviceSession,
        step: Step,
        report: CallsMade,
        context: str | None,
        enabled: frozenset[Category],
        allowed: frozenset[Category],
        builtin_sources: frozenset[str],
    ) -> None:
        assert device.runner is not None
        super().__init__(device.live, device.trail, step, step.text or "", device.runner)
        self._report = report
        self._calls = 0
        self._extra_context = context
        self.enabled = enabled
        self.allowed = allowed
        self._builtin_sources = builtin_sources
        #: started with some categories only: its toolbox answers
        self._limited = Category.ALL not in enabled
        self.tools = self._narrowed(self.tools)

    def tools_in_groups(self, groups: Sequence[str] | None) -> list[ToolSpec]:
        return self._narrowed(super().tools_in_groups(groups))

    def _narrowed(self, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        kept = [t for t in tools if t.name == OBJECTIVE_STATUS or offered(t, self.enabled, self._builtin_sources)]
        return [*kept, inner_toolbox()] if self._can_enable() else kept

    def _can_enable(self) -> bool:
        return Category.ALL not in self.enabled and bool(_expanded(self.allowed) - self.enabled)

    @property
    def context(self) -> str | None:
        parts = [p for p in (self.trail.config.context, self._extra_context) if p]
        return "\n".join(parts) or None

    async def _call(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        if name == INNER_TOOLBOX and self._limited:
            return self._toolbox(dict(args or {}))
        return await super()._call(name, args)

    def _toolbox(self, args: dict[str, Any]) -> CallResult:
        from trailblaze.api.agent import CallResult

        action = str(args.get("action") or "LIST").strip().upper()
        wanted = args.get("categories") or []
        names = [str(c).strip().upper() for c in (wanted if isinstance(wanted, list) else [wanted])]
        unknown = [n for n in names if n not in Category.__members__ or n == Category.ALL]
        if action not in ("LIST", "ENABLE", "DISABLE") or unknown:
            return CallResult(False, error=f"use action LIST, ENABLE or DISABLE with categories among {_listed(self)}")
        chosen = frozenset(Category(n) for n in names)
        if action == "ENABLE":
            refused = chosen - _expanded(self.allowed)
            if refused:
                return CallResult(
                    False,
                    error=f"{', '.join(sorted(refused))} is not allowed in this step: the categories allowed are "
                    f"{_listed(self)}",
                )
            self.enabled = self.enabled | chosen
        elif action == "DISABLE":
            self.enabled = self.enabled - chosen
        return CallResult(True, {"enabled": sorted(self.enabled), "allowed": _listed(self)})

    async def call(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        result = await super().call(name, args)
        self._calls += 1
        await self._report(self._calls, f"{name}: {'ok' if result.ok else result.error}")
        return result


#: the tool trailblaze's agent enables categories with, inside a ``step``
INNER_TOOLBOX = "toolbox"


def inner_toolbox() -> ToolSpec:
    """``toolbox`` as trailblaze's agent is offered it within a step (never recorded: it changes
    which tools the agent sees, not the device)."""
    from trailblaze.tools.model import ToolMetadata, ToolSpec

    return ToolSpec(
        name=INNER_TOOLBOX,
        description="Enable or disable tool categories for this step when you need tools you were not offered: "
        "ENABLE with categories (e.g. VERIFICATION, MEMORY, NAVIGATION); LIST shows what is enabled and allowed.",
        input_schema={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["LIST", "ENABLE", "DISABLE"]},
                "categories": {"type": "array", "items": {"type": "string", "enum": [c.value for c in _CHOOSABLE]}},
            },
            "required": ["action"],
        },
        metadata=ToolMetadata(recordable=False),
        implementation=_NeverRun(),
        source="trailblaze",
    )


_CHOOSABLE = [c for c in Category if c is not Category.ALL]


def _expanded(categories: frozenset[Category]) -> frozenset[Category]:
    return frozenset(_CHOOSABLE) if Category.ALL in categories else categories


def _listed(task: _ReportingStep) -> list[str]:
    return sorted(_expanded(task.allowed))


def _step_categories(
    state: ClientState, navigation: bool, categories: Sequence[Category] | None, *, verify: bool = False
) -> tuple[frozenset[Category], frozenset[Category]]:
    """The categories trailblaze's agent starts a step with, and those it may enable: the
    step's ``categories`` (what the outer agent picked; a ``VERIFY`` step's always hold
    VERIFICATION, the only tools it may use), within the session's own categories
    (``toolbox``/``toolProfile``) and those; ``hint="NAVIGATION"`` starts with interaction and
    navigation. Without either, every category, as before toolbox was offered."""
    if categories:
        start = frozenset(categories) | ({Category.VERIFICATION} if verify else set())
        return start, start | state.enabled
    if navigation:
        return NAVIGATION_HINT, NAVIGATION_HINT | state.enabled
    return frozenset({Category.ALL}), frozenset({Category.ALL})


class _NeverRun(ToolImplementation):
    def validate(self, args: Mapping[str, Any]) -> Any:
        return args

    async def invoke(self, ctx: Any, args: Mapping[str, Any]) -> Any:
        raise AssertionError("toolbox is answered by the step, never run as a device tool")


def _shown_log(state: ClientState, log: AgentLog) -> str | None:
    """Where the agent log is, from the project's folder (None when it was not written)."""
    if log.path is None or log.error is not None:
        return None
    try:
        return log.path.relative_to(state.project.config.root).as_posix()
    except ValueError:
        return str(log.path)


async def session_agent(call: Call, device: DeviceSession) -> Agent:
    """Trailblaze's agent for this call (TRAILBLAZE_AS_AGENT): the agent ``--agent`` names from
    the agent registry (the server's default otherwise) on the configured LLM (DIRECT), or
    the client's LLM through sampling (MCP_SAMPLING)."""
    from trailblaze.api.agent import AgentSettings

    state = call.state
    settings = AgentSettings(state.project.config.with_options(headless=True))
    if state.settings.llm_call_strategy is LlmCallStrategy.MCP_SAMPLING:
        if call.sampler is None:
            raise ToolError(
                "llmCallStrategy is MCP_SAMPLING, but this client does not support sampling: configure `llm:` in "
                'trailblaze.yaml and config(action=SET, key="llmCallStrategy", value="DIRECT"), or pass `tools`'
            )
        from trailblaze.agents.sampling import SamplingAgent

        return SamplingAgent(settings, call.sampler, tools_capability=call.sampling_tools)
    name = state.defaults.agent
    cached = state.agents.get(name)
    if cached is not None:
        return cached
    agent_class = state.project.agents.resolve(name)
    try:
        agent = agent_class(settings)
    except UsageError as exc:
        sampling = (
            ' or config(action=SET, key="llmCallStrategy", value="MCP_SAMPLING") to use your own LLM'
            if call.sampler is not None
            else ""
        )
        if agent_class.is_configured(state.project.config):
            raise ToolError(f"trailblaze's agent {name!r} cannot start ({exc}){sampling}") from None
        raise ToolError(
            f"trailblaze's agent has no LLM ({exc}): configure `llm:` in trailblaze.yaml (or OPENAI_BASE_URL, "
            f"OPENAI_API_KEY and OPENAI_MODEL){sampling}; or pass `tools` to run calls directly"
        ) from None
    await agent.start(device.live)
    state.agents[name] = agent
    return agent


def usage_dict(usage: Usage) -> dict[str, Any]:
    return {
        "model": usage.model,
        "turns": usage.turns,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
    }
