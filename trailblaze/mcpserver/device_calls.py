"""The device's own tools, called by the client one at a time, each recorded as a step of its own;
and what recording a step takes (its text, its calls, the reply's account of it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from trailblaze.core import limits
from trailblaze.core.errors import UsageError
from trailblaze.core.yamlsource import load_text
from trailblaze.mcpserver import recording as rec
from trailblaze.mcpserver.calls import ECHO_CHARS, MAX_TOOL_CALLS, Call, Reply, ToolError, attach_screen, jsonable
from trailblaze.mcpserver.categories import Category, categories_of
from trailblaze.mcpserver.state import ClientState
from trailblaze.runner.agent_step import needs_agent_message
from trailblaze.tools import steptext
from trailblaze.tools.model import REASON_KEYS, ToolCall
from trailblaze.trail.model import StepKind

if TYPE_CHECKING:
    from trailblaze.api.agent import CallResult
    from trailblaze.api.agentlog import AgentLog
    from trailblaze.mcpserver.device import DeviceSession
    from trailblaze.runner.agent_step import AgentStep


async def device_tool(call: Call, name: str, arguments: dict[str, Any]) -> Reply:
    """A device tool called directly by the client: executed at once through the resolver and,
    when it succeeds, recorded as a step of its own (a verification tool as a ``verify:`` step).
    The step's text is the call's ``reason`` when it has one, else a description of the call. A
    call that fails is an error reply with its message and the screen, as a ``step``'s is."""
    state = call.state
    device = state.device
    if device is None:
        raise ToolError(f"{name}: no device is connected; connect one with device(action=WEB|ANDROID|IOS)")
    spec = device.live.registry.get(name)
    if spec is None:
        raise ToolError(f"{name} is not a tool of the connected {device.driver_key} device")
    reason = next((str(arguments[k]) for k in REASON_KEYS if arguments.get(k)), None)
    if reason is not None:
        check_step_text(reason, "reason")
    meta = spec.metadata
    kind: StepKind = "verify" if meta.verification else "step"
    async with state.lock:
        task = device.task(kind, reason or name)
        log = client_log(state, device, task)
        result = await device.call(task, name, arguments)
        end_client_log(log, [(name, arguments, result)])
        if not result.ok:  # the message names what reads like what it looked for; the screen follows it
            failure = Reply({"error": result.error or f"{name} failed"}, error=True)
            await attach_screen(state, device, failure, screenshot=state.settings.auto_include_screenshot)
            return failure
        calls = task.recording
        if reason:
            calls = [c.with_args({k: v for k, v in c.args.items() if k not in REASON_KEYS}) for c in calls]
        data: dict[str, Any] = {"ok": True, "tool": name, "output": cut(jsonable(result.output), None)}
        if meta.query and not calls:
            data["recorded"] = None
            data["note"] = f"{name} is a query: its answer is for you, and it is not recorded"
        else:
            text = reason or _describe(calls, name)
            data["recorded"] = cut(record_step(state, device, kind, text, calls, task.needs_agent), ECHO_CHARS)
        reply = Reply(data)
        if not meta.query and not meta.verification:  # it may have changed the screen: show it
            observed = Category.OBSERVATION in categories_of(spec, state.builtin_sources())  # a snapshot: all of it
            await attach_screen(state, device, reply, screenshot=state.settings.auto_include_screenshot, whole=observed)
        elif state.settings.auto_include_screenshot:
            await attach_screen(state, device, reply, screenshot=True, summary=False)
    return reply


def client_log(state: ClientState, device: DeviceSession, task: AgentStep) -> AgentLog:
    """The session's agent log for calls the client makes itself (MCP_CLIENT_AS_AGENT): its
    actions are written as trailblaze's agent's are, the client being the agent (no LLM of
    trailblaze's; the calls come over MCP). They are not counted in the agent metrics."""
    from trailblaze.api.agentlog import FILE_NAME, AgentLog

    log = AgentLog(
        state.artifacts_dir / FILE_NAME,
        secrets=device.live.secrets,
        objective=task.text,
        step=task.label,
        agent="mcp-client",
        strategy="MCP_CLIENT",
        transport="MCP",
    )
    task.log = log
    return log


def end_client_log(log: AgentLog, calls: Sequence[tuple[str, Mapping[str, Any], CallResult]]) -> None:
    """The client's calls as one iteration, and the run's record."""
    done = [
        {"tool": name, "args": dict(args), "ok": result.ok, "result": result.output if result.ok else result.error}
        for name, args, result in calls
    ]
    log.iteration(completion=None, calls=done, response_type="tool_call")
    failed = next((c for c in done if not c["ok"]), None)
    if failed is None:
        log.finish(status="complete")
    else:
        log.finish(status="failed", explanation=str(failed["result"] or ""), error_kind="tool_failed")


def check_step_text(text: str, what: str) -> None:
    """A step's text is a sentence or two: refuse one longer than the limit."""
    bound = limits.STEP_TEXT_CHARS.get_int()
    if len(text) > bound:
        raise ToolError(
            f"{what} has {len(text)} characters, more than a step's text may have ({bound}, "
            f"{limits.STEP_TEXT_CHARS.env}): say it in a sentence"
        )


def cut(value: Any, chars: int | None) -> Any:
    """``value`` with every text in it cut to ``chars`` characters (default: the message limit),
    noting how much was left out: a reply never repeats megabytes back to the client."""
    if isinstance(value, str):
        return limits.shorten(value, chars)
    if isinstance(value, Mapping):
        return {key: cut(item, chars) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [cut(item, chars) for item in value]
    return value


def _describe(calls: list[ToolCall], fallback: str) -> str:
    """The text of a step recorded without a ``reason``: what its calls do, in words."""
    return steptext.step_text(calls, fallback)


def record_step(
    state: ClientState,
    device: DeviceSession,
    kind: str,
    text: str,
    calls: list[ToolCall],
    needs_agent: Sequence[str] = (),
) -> dict[str, Any] | None:
    """Add a step to the recording (when it is on); what the reply says was recorded. A step
    that ran tools no recording can hold (``needs_agent``) is kept as ``recordable: false``,
    without its calls: a replay of them alone would pass without the check."""
    if not state.recording.active:
        return None
    recordable = not needs_agent
    step = rec.RecordedStep(
        "verify" if kind == "verify" else "step", text, device.classifier, list(calls) if recordable else [], recordable
    )
    number = state.recording.add(step)
    recorded = {"step": number, "kind": step.kind, "text": text, "tools": step.to_dict()["tools"]}
    if not recordable:
        recorded["recordable"] = False
        recorded["note"] = needs_agent_message(needs_agent)
    return recorded


def call_outcome(name: str, result: CallResult) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": name, "ok": result.ok}
    if result.ok and result.output not in (None, ""):
        out["output"] = jsonable(result.output)
    if not result.ok:
        out["error"] = result.error
    return out


def parse_tool_calls(raw: str | list[Any]) -> list[ToolCall]:
    """``step``'s ``tools``: YAML (or JSON) as in a trail's recording — a list of ``- name: {args}``
    items, optionally under ``tools:`` as upstream's wrapped form has it."""
    data: Any = raw
    if isinstance(raw, str):
        if len(raw) > 1_000_000:
            raise ToolError("tools: more than 1 MB of YAML")
        try:  # as a trail's recording is read: aliases and nesting bounded, YAML 1.2 scalars
            data = load_text(raw).data
        except UsageError as exc:
            at = exc.location
            where = f" (line {at.line}, column {at.column})" if at is not None and at.line is not None else ""
            raise ToolError(f"tools is not valid YAML{where}: {exc.message.removeprefix('invalid YAML: ')}") from None
    if isinstance(data, Mapping) and set(data) == {"tools"}:
        data = data["tools"]
    if isinstance(data, Mapping):
        data = [data]
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], Mapping) and set(data[0]) == {"tools"}:
        data = data[0]["tools"]
    if not isinstance(data, list) or not data:
        raise ToolError("tools must be a non-empty list of tool calls, e.g. '- web_click: {ref: e12}'")
    if len(data) > MAX_TOOL_CALLS:
        raise ToolError(f"tools: at most {MAX_TOOL_CALLS} calls in one step")
    calls: list[ToolCall] = []
    for number, item in enumerate(data, 1):
        if isinstance(item, str):
            calls.append(ToolCall(item, {}))
            continue
        if not isinstance(item, Mapping) or len(item) != 1:
            raise ToolError(f"tools item {number}: expected one `name: {{arguments}}` mapping, got {item!r}"[:300])
        name, args = next(iter(item.items()))
        if args is None:
            args = {}
        if not isinstance(name, str) or not isinstance(args, Mapping):
            raise ToolError(f"tools item {number}: the arguments of {name!r} must be a mapping")
        calls.append(ToolCall(name, dict(args)))
    return calls
