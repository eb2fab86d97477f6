"""The session tools (upstream's names) and the device's tools, as the server calls them.

Every handler takes a :class:`Call` — the client's state and what the server lets a tool do
(report progress, tell the client its tools changed, sample the client's LLM) — and returns a
:class:`Reply`. A tool that cannot do what was asked raises :class:`ToolError`: the client gets a
tool result with ``isError: true`` and the message, never a protocol error.
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.agents.screen import render_screen
from trailblaze.core import limits
from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.core.yamlsource import load_text
from trailblaze.mcp.server import arguments as A
from trailblaze.mcp.server import recording as rec
from trailblaze.mcp.server.catalog import SESSION_TOOL_NAMES, tool_name
from trailblaze.mcp.server.categories import (
    DESCRIPTIONS,
    PROFILES,
    Category,
    Profile,
    categories_of,
    for_navigation,
    profile_categories,
    profile_of,
)
from trailblaze.mcp.server.reload import reload_tools
from trailblaze.mcp.server.settings import (
    CONFIG_KEYS,
    LlmCallStrategy,
    Mode,
    ScreenshotFormat,
    ViewHierarchyVerbosity,
    config_key,
)
from trailblaze.mcp.server.state import ClientState, pick_driver
from trailblaze.mcp.server.trails import find_trail, list_trails
from trailblaze.mcp.server.trails import shown as _shown
from trailblaze.pluginmanager import DEFAULT_PLUGINS
from trailblaze.runner.agent_step import OBJECTIVE_STATUS, AgentStep, needs_agent_message
from trailblaze.runner.checks import collect_trails
from trailblaze.runner.listing import list_devices
from trailblaze.tools import steptext
from trailblaze.tools.model import REASON_KEYS, ToolCall
from trailblaze.trail.model import Step, StepKind

if TYPE_CHECKING:
    from trailblaze.api.agent import Agent, CallResult, Usage
    from trailblaze.device.commands import ViewNode
    from trailblaze.mcp.server.device import DeviceSession
    from trailblaze.mcp.server.sampling import Sampler
    from trailblaze.tools.model import ToolSpec

#: what a step's reply shows of the screen, and what ask shows at each verbosity
SUMMARY_LINES = 150
STANDARD_LINES = 1000
MAX_FULL_HIERARCHY = 200_000
MAX_TOOL_CALLS = 100
#: a reply repeats what the client sent (a question, a recorded call's arguments) up to this long
ECHO_CHARS = 300
#: what the cut-off note of a screen summary adds
MORE_OF_THE_SCREEN = ": ask(viewHierarchy=STANDARD) shows 1000 lines, FULL every element"


class ToolError(Exception):
    """The tool could not do what was asked; the message goes to the client as ``isError``."""


@dataclass(slots=True)
class Reply:
    data: dict[str, Any]
    #: a second text block (the screen, as lines), kept out of the JSON for readability
    text: str | None = None
    images: list[tuple[bytes, str]] = field(default_factory=list)
    error: bool = False


@dataclass(slots=True)
class Call:
    """One tool call: whose it is and what the server lets it do."""

    state: ClientState
    progress: Callable[[float, float | None, str], Awaitable[None]]
    tools_changed: Callable[[], Awaitable[None]]
    #: tells the client the list of resources changed (a trail file was written)
    resources_changed: Callable[[], Awaitable[None]]
    #: asks the client's LLM (MCP sampling); None when the client cannot sample
    sampler: Sampler | None = None
    sampling_tools: bool = False


Handler = Callable[[Call, dict[str, Any]], Awaitable[Reply]]
#: told how many calls an agent's step has made so far, and what the last one did
CallsMade = Callable[[int, str], Awaitable[None]]


# -- device ---------------------------------------------------------------------------------------------


async def device(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.DeviceArgs = _parse(A.DeviceArgs, arguments)
    state = call.state
    project = state.project
    if args.action is A.DeviceAction.LIST:
        return Reply({"devices": (await list_devices(project)).rows})
    if args.action is A.DeviceAction.INFO:
        if state.device is None:
            return Reply({"connected": False, "message": "no device connected: device(action=WEB|ANDROID|IOS)"})
        return Reply({"connected": True, **await _device_info(state.device, args.detail)})
    if args.action is A.DeviceAction.CONNECT:
        driver_key, device_id = await _driver_for_device(call, args.deviceId)
    else:
        platform = args.action.value.lower()
        driver_key = pick_driver(project, platform, state.defaults.driver)
        device_id = None if args.action is A.DeviceAction.WEB else args.deviceId
        if device_id is None and state.defaults.device and _driver_has(project, state.defaults.driver, driver_key):
            device_id = state.defaults.device
    before = state.device
    async with state.lock:
        connected = await _connect(state, driver_key, device_id, args.headless)
        if args.testName:
            state.new_recording(args.testName)
    if connected is not before:
        await call.tools_changed()
    tools = len(state.device_tools(SESSION_TOOL_NAMES))
    return Reply(
        {
            "connected": True,
            **connected.describe(),
            "recording": state.recording.summary(),
            "tools": tools,
            "message": f"connected; {tools} device tools are offered (tools/list). The session is recorded: "
            f'save it with trail(action=SAVE, name="...")',
        }
    )


async def _connect(state: ClientState, driver_key: str, device_id: str | None, headless: bool | None) -> DeviceSession:
    try:
        return await state.connect(driver_key, device_id, headless)
    except TrailblazeError as exc:
        raise ToolError(f"cannot connect {driver_key}{f' {device_id}' if device_id else ''}: {exc}") from None


def _driver_has(project: Any, requested: str | None, driver_key: str) -> bool:
    if not requested:
        return False
    with contextlib.suppress(TrailblazeError):
        return bool(project.drivers.resolve(requested).key == driver_key)
    return False


async def _driver_for_device(call: Call, device_id: str | None) -> tuple[str, str | None]:
    """The driver that reaches ``device_id`` (without one: the default driver and device)."""
    state = call.state
    if device_id is None:
        return state.default_driver(), state.defaults.device
    if "://" in device_id:
        return pick_driver(state.project, "ios", state.defaults.driver), device_id
    rows = (await list_devices(state.project)).rows
    for row in rows:
        if row.get("id") == device_id:
            return str(row["driver"]), device_id
    known = ", ".join(f"{r['id']} ({r['driver']})" for r in rows if "id" in r) or "none"
    raise ToolError(f"no device {device_id!r} is reachable; devices: {known}")


async def _device_info(device: DeviceSession, detail: A.DeviceDetail) -> dict[str, Any]:
    info = device.describe()
    if detail is A.DeviceDetail.SUMMARY:
        return info
    commands = device.live.device
    if hasattr(commands, "adb_shell"):
        output = str((await commands.adb_shell("pm list packages")).get("output") or "")
        info["apps"] = sorted(line.removeprefix("package:").strip() for line in output.splitlines() if line.strip())
    else:
        info["apps"] = None
        info["apps_note"] = f"a {device.platform} device has no installed apps to list"
    if detail is A.DeviceDetail.FULL:
        info["tools"] = [spec.name for spec in device.tools()]
    return info


# -- step, runPrompt --------------------------------------------------------------------------------------


async def step(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.StepArgs = _parse(A.StepArgs, arguments)
    _check_step_text(args.objective, "objective")
    verify = args.hint is A.Hint.VERIFY
    state = call.state
    if args.tools is None and state.settings.mode is Mode.MCP_CLIENT_AS_AGENT:
        raise ToolError(
            "in MCP_CLIENT_AS_AGENT mode you are the agent: pass `tools` (tool calls as YAML, as in a trail's "
            'recording) or call the device tools directly; config(action=SET, key="mode", '
            'value="TRAILBLAZE_AS_AGENT") lets trailblaze\'s own agent work out objectives'
        )
    calls = _tool_calls(args.tools) if args.tools is not None else None
    if calls is not None:  # a tool may be named as tools/list offers it (bank_signIn for bank.signIn)
        calls = [ToolCall(tool_name(state, c.name), c.args) for c in calls]
    async with state.lock:
        device = await _device(state)
        if calls is not None:
            reply = await _direct_step(state, device, args.objective, calls, verify)
        else:
            navigation = args.hint is A.Hint.NAVIGATION
            reply = await _agent_step(call, device, args.objective, verify, args.context, navigation=navigation)
        await _attach_screen(state, device, reply, screenshot=args.screenshot and not args.fast)
    return reply


async def _direct_step(
    state: ClientState, device: DeviceSession, objective: str, calls: list[ToolCall], verify: bool
) -> Reply:
    kind: StepKind = "verify" if verify else "step"
    task = device.task(kind, objective)
    ran: list[dict[str, Any]] = []
    failure: CallResult | None = None
    for planned in calls:
        result = await device.call(task, planned.name, planned.args)
        ran.append(_ran(planned.name, result))
        if not result.ok:
            failure = result
            break
    # a failed step keeps the calls before the failing one (a replay reaches the same screen); when
    # the first call failed there is nothing to keep, and no empty step is recorded
    kept = failure is None or (not verify and bool(task.recording))
    recorded = _record(state, device, kind, objective, task.recording, task.needs_agent) if kept else None
    data: dict[str, Any] = {
        "executed": True,
        "objective": objective,
        "calls": _cut(ran, None),
        "recorded": _cut(recorded, ECHO_CHARS),
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
) -> Reply:
    state = call.state
    kind: StepKind = "verify" if verify else "step"
    agent = await _agent(call, device)
    if report is None:

        async def report(calls: int, message: str) -> None:
            await call.progress(calls, None, message)

    task = _ReportingStep(device, device.new_step(kind, objective), report, context, navigation)
    verdict = await agent.solve(task)
    passed = verdict.status == "complete"
    recorded = (
        _record(state, device, kind, objective, task.recording, task.needs_agent) if (passed or not verify) else None
    )
    data: dict[str, Any] = {
        "executed": True,
        "objective": objective,
        "agent": {
            "name": agent.name,
            "status": verdict.status,
            "explanation": verdict.explanation,
            **_usage(verdict.usage),
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
    args: A.RunPromptArgs = _parse(A.RunPromptArgs, arguments)
    steps = [*(args.steps or []), *([args.prompt] if args.prompt else [])]
    steps = [s for s in (text.strip() for text in steps) if s]
    if not steps:
        raise ToolError("give `steps` (a list of steps in plain language) or `prompt`")
    for text in steps:
        _check_step_text(text, "a step")
    state = call.state
    results: list[dict[str, Any]] = []
    async with state.lock:
        device = await _device(state)
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
        await _attach_screen(state, device, reply, screenshot=False)
    return reply


def _within_step(call: Call, done: int, total: int) -> CallsMade:
    """Progress inside step ``done`` (0-based) of ``total``: the k-th call reports ``done + k/(k+1)``,
    so values rise with every call and stay below the next step's ``done + 1`` (the MCP spec
    wants every progress value greater than the one before)."""

    async def report(calls: int, message: str) -> None:
        await call.progress(done + calls / (calls + 1), total, f"step {done + 1}: {message}")

    return report


class _ReportingStep(AgentStep):
    """The agent's step, reporting after every call it makes (``report(calls so far, message)``)."""

    def __init__(
        self, device: DeviceSession, step: Step, report: CallsMade, context: str | None, navigation: bool
    ) -> None:
        assert device.runner is not None
        super().__init__(device.live, device.trail, step, step.text or "", device.runner)
        self._report = report
        self._calls = 0
        self._extra_context = context
        self._navigation = navigation
        self.tools = self._narrowed(self.tools)

    def tools_in_groups(self, groups: Sequence[str] | None) -> list[ToolSpec]:
        return self._narrowed(super().tools_in_groups(groups))

    def _narrowed(self, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        if not self._navigation:
            return list(tools)
        kept = for_navigation(tools, DEFAULT_PLUGINS)
        return [t for t in tools if t.name == OBJECTIVE_STATUS or t in kept]

    @property
    def context(self) -> str | None:
        parts = [p for p in (self.trail.config.context, self._extra_context) if p]
        return "\n".join(parts) or None

    async def call(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        result = await super().call(name, args)
        self._calls += 1
        await self._report(self._calls, f"{name}: {'ok' if result.ok else result.error}")
        return result


async def _agent(call: Call, device: DeviceSession) -> Agent:
    """Trailblaze's agent for this call (TRAILBLAZE_AS_AGENT): the agent ``--agent`` names from
    the agent registry (``openai`` unless it says otherwise) on the configured LLM (DIRECT), or
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
        from trailblaze.mcp.server.sampling import SamplingAgent

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
        if name != "openai":
            raise ToolError(f"trailblaze's agent {name!r} cannot start ({exc}){sampling}") from None
        raise ToolError(
            f"trailblaze's agent has no LLM ({exc}): configure `llm:` in trailblaze.yaml (or OPENAI_BASE_URL, "
            f"OPENAI_API_KEY and OPENAI_MODEL){sampling}; or pass `tools` to run calls directly"
        ) from None
    await agent.start(device.live)
    state.agents[name] = agent
    return agent


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "model": usage.model,
        "turns": usage.turns,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
    }


# -- the device's own tools --------------------------------------------------------------------------------


async def device_tool(call: Call, name: str, arguments: dict[str, Any]) -> Reply:
    """A device tool called directly by the client: executed at once through the resolver and,
    when it succeeds, recorded as a step of its own (a verification tool as a ``verify:`` step).
    The step's text is the call's ``reason`` when it has one, else a description of the call."""
    state = call.state
    device = state.device
    if device is None:
        raise ToolError(f"{name}: no device is connected; connect one with device(action=WEB|ANDROID|IOS)")
    spec = device.live.registry.get(name)
    if spec is None:
        raise ToolError(f"{name} is not a tool of the connected {device.driver_key} device")
    reason = next((str(arguments[k]) for k in REASON_KEYS if arguments.get(k)), None)
    if reason is not None:
        _check_step_text(reason, "reason")
    meta = spec.metadata
    kind: StepKind = "verify" if meta.verification else "step"
    async with state.lock:
        task = device.task(kind, reason or name)
        result = await device.call(task, name, arguments)
        if not result.ok:
            raise ToolError(result.error or f"{name} failed")
        calls = task.recording
        if reason:
            calls = [c.with_args({k: v for k, v in c.args.items() if k not in REASON_KEYS}) for c in calls]
        data: dict[str, Any] = {"ok": True, "tool": name, "output": _cut(_jsonable(result.output), None)}
        if meta.query and not calls:
            data["recorded"] = None
            data["note"] = f"{name} is a query: its answer is for you, and it is not recorded"
        else:
            text = reason or _describe(calls, name)
            data["recorded"] = _cut(_record(state, device, kind, text, calls, task.needs_agent), ECHO_CHARS)
        reply = Reply(data)
        if not meta.query and not meta.verification:  # it may have changed the screen: show it
            await _attach_screen(state, device, reply, screenshot=state.settings.auto_include_screenshot)
        elif state.settings.auto_include_screenshot:
            await _attach_screen(state, device, reply, screenshot=True, summary=False)
    return reply


def _check_step_text(text: str, what: str) -> None:
    """A step's text is a sentence or two: refuse one longer than the limit."""
    bound = limits.STEP_TEXT_CHARS.get_int()
    if len(text) > bound:
        raise ToolError(
            f"{what} has {len(text)} characters, more than a step's text may have ({bound}, "
            f"{limits.STEP_TEXT_CHARS.env}): say it in a sentence"
        )


def _cut(value: Any, chars: int | None) -> Any:
    """``value`` with every text in it cut to ``chars`` characters (default: the message limit),
    noting how much was left out: a reply never repeats megabytes back to the client."""
    if isinstance(value, str):
        return limits.shorten(value, chars)
    if isinstance(value, Mapping):
        return {key: _cut(item, chars) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_cut(item, chars) for item in value]
    return value


def _describe(calls: list[ToolCall], fallback: str) -> str:
    """The text of a step recorded without a ``reason``: what its calls do, in words."""
    return steptext.step_text(calls, fallback)


def _record(
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


def _ran(name: str, result: CallResult) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": name, "ok": result.ok}
    if result.ok and result.output not in (None, ""):
        out["output"] = _jsonable(result.output)
    if not result.ok:
        out["error"] = result.error
    return out


def _tool_calls(raw: str | list[Any]) -> list[ToolCall]:
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


# -- ask -------------------------------------------------------------------------------------------------------


async def ask(call: Call, arguments: dict[str, Any]) -> Reply:
    """With trailblaze's agent (TRAILBLAZE_AS_AGENT), an answer about the screen; otherwise, or
    when that agent has no LLM, the screen itself, for the client's LLM to read. Never recorded."""
    args: A.AskArgs = _parse(A.AskArgs, arguments)
    state = call.state
    verbosity = args.viewHierarchy
    async with state.lock:
        device = await _device(state)
        screen = await device.screen()
        summary = _summary(screen)
        state.last_screen = summary
        data: dict[str, Any] = {"question": _cut(args.question, ECHO_CHARS)}
        agent: Agent | None = None
        note = "MCP_CLIENT_AS_AGENT: trailblaze calls no LLM; read the screen below to answer"
        if state.settings.mode is Mode.TRAILBLAZE_AS_AGENT:
            try:
                agent = await _agent(call, device)
            except ToolError as exc:  # no LLM: the screen still answers the client's own
                note = f"no answer from trailblaze's agent: {exc}. Read the screen below to answer"
        if agent is not None:
            answer, usage = await agent.answer(args.question, summary)  # type: ignore[attr-defined]
            data["answer"] = answer
            data["agent"] = {"name": agent.name, **_usage(usage)}
        else:
            data["answer"] = None
            data["note"] = note
            if verbosity is None and state.settings.view_hierarchy_verbosity is not ViewHierarchyVerbosity.MINIMAL:
                verbosity = state.settings.view_hierarchy_verbosity  # MINIMAL is the screen below already
        if verbosity is not None:
            data["viewHierarchy"] = _hierarchy(screen, verbosity)
        reply = Reply(data, text=f"The screen now:\n{summary}")
        if args.screenshot or args.includeScreenshot:
            await _attach_screen(state, device, reply, screenshot=True, summary=False)
    return reply


def _hierarchy(screen: ViewNode, verbosity: ViewHierarchyVerbosity) -> str:
    if verbosity is ViewHierarchyVerbosity.MINIMAL:
        return _summary(screen)
    if verbosity is ViewHierarchyVerbosity.STANDARD:
        return render_screen(screen, STANDARD_LINES)
    text = json.dumps(screen.to_dict(), ensure_ascii=False)
    if len(text) > MAX_FULL_HIERARCHY:
        return text[:MAX_FULL_HIERARCHY] + f"… ({len(text) - MAX_FULL_HIERARCHY} more characters left out)"
    return text


# -- trail ---------------------------------------------------------------------------------------------------


async def trail(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.TrailArgs = _parse(A.TrailArgs, arguments)
    state = call.state
    action = args.action
    if action is A.TrailAction.LIST:
        return Reply(list_trails(state, args.filter, args.page or 1))
    if action is A.TrailAction.SAVE:
        return Reply(await _save(call, args.name))
    if action is A.TrailAction.END:
        recording = state.recording
        recording.active = False
        return Reply(
            {
                "ended": True,
                **recording.summary(),
                "message": f"recording stopped with {len(recording.steps)} steps"
                + ("" if recording.saved_to else " (not saved; trail(action=SAVE) still can)"),
            }
        )
    if args.platform is not None or args.device is not None:
        await device(call, _connect_arguments(args.platform, args.device))
    if action is A.TrailAction.START:
        discarded = len(state.recording.steps) if state.recording.saved_to is None else 0
        recording = state.new_recording(args.name)
        note = f"; the {discarded} unsaved steps recorded before are in session(action=LIST)" if discarded else ""
        return Reply({"started": True, **recording.summary(), "message": f"recording started{note}"})
    return await _run(call, args.name, args.file)


def _connect_arguments(platform: A.Platform | None, device_id: str | None) -> dict[str, Any]:
    if platform is None:
        return {"action": "CONNECT", "deviceId": device_id}
    return {"action": platform.value, "deviceId": device_id}


async def _save(call: Call, name: str | None) -> dict[str, Any]:
    """Write the recording as a trail; a new file is a new resource (``resources/list_changed``)."""
    state = call.state
    recording = state.recording
    title = name or recording.title
    if not title:
        raise ToolError('give the trail a name: trail(action=SAVE, name="checkout-flow")')
    try:
        path = rec.trail_path(state.project.config.trails_dir, title)
    except UsageError as exc:
        raise ToolError(str(exc)) from None
    if path.exists() and path.resolve() not in {p.resolve() for p in state.artifacts}:
        raise ToolError(
            f"{_shown(state, path)} already exists and was not written by this session: choose another name"
        )
    target = state.device.live.target if state.device is not None and state.device.session is not None else None
    try:
        ran_in = state.device.trail.path.parent if state.device is not None else state.project.config.trails_dir
        text = rec.render(title, recording.steps, path, target=target, ran_in=ran_in)
        rec.save(path, text)
    except TrailblazeError as exc:
        raise ToolError(str(exc)) from None
    recording.title = title
    recording.saved_to = path
    if path not in state.artifacts:  # saved again: the same file
        state.artifacts.append(path)
        await call.resources_changed()
    shown = _shown(state, path)
    steps = len(recording.steps)
    return {
        "saved": True,
        "name": title,
        "file": shown,
        "steps": steps,
        "message": f"saved {steps} step{'' if steps == 1 else 's'}; replay it with `trailblaze run {shown}` (no LLM) "
        f'or trail(action=RUN, file="{shown}")',
    }


async def _run(call: Call, name: str | None, file: str | None) -> Reply:
    """Replay a trail deterministically (no LLM), with progress per step; not recorded (use the
    ``runTrail`` tool to make a trail part of the session's recording)."""
    state = call.state
    path = find_trail(state, name, file)
    async with state.lock:
        if state.device is None:
            trails, problems = collect_trails(state.project, [path], {}, require_args=False)
            if problems or not trails:
                raise ToolError("; ".join(str(p) for p in problems) or f"{path} is not a trail")
            driver = state.project.default_driver_name(state.defaults.driver, trails[0])
            await _connect(state, driver, state.defaults.device, None)
            await call.tools_changed()
        device = state.device
        assert device is not None
        try:
            loaded = device.load(path)
        except TrailblazeError as exc:
            raise ToolError(str(exc)) from None
        started = time.perf_counter()
        result = await device.replay(loaded, call.progress)
    steps = [
        {"index": s.index, "kind": s.kind, "text": s.text, "status": s.status, "error": s.error} for s in result.steps
    ]
    passed = result.status in ("passed", "healed")
    data = {
        "passed": passed,
        "status": result.status,
        "trail": result.id,
        "file": _shown(state, path),
        "steps": steps,
        "error": result.error,
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        "note": "replays are not recorded; the runTrail tool makes a trail part of the recording",
    }
    return Reply(data, error=not passed)


# -- session ------------------------------------------------------------------------------------------------


async def session(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.SessionArgs = _parse(A.SessionArgs, arguments)
    state = call.state
    action = args.action
    if action is A.SessionAction.START:
        recording = state.new_recording(args.title)
        return Reply({"started": True, **recording.summary()})
    if action is A.SessionAction.SAVE:
        return Reply(await _save(call, args.title))
    if action is A.SessionAction.STOP:
        saved = await _save(call, args.title) if args.save else None
        state.recording.active = False
        return Reply({"stopped": True, **state.recording.summary(), "saved": saved})
    if action is A.SessionAction.LIST:
        recordings = state.recordings()[-(args.limit or 20) :]
        return Reply({"session": state.id, "recordings": [r.summary() for r in recordings]})
    recording = _recording(state, args.id)
    if action is A.SessionAction.INFO:
        device_info = state.device.describe() if state.device is not None and state.device.session else None
        return Reply(
            {
                "session": state.id,
                **recording.summary(),
                "device": device_info,
                "mode": state.settings.mode.value,
                "steps": _cut([s.to_dict() for s in recording.steps], ECHO_CHARS),
            }
        )
    files = [p for p in state.artifacts if p.exists()]
    return Reply({"session": state.id, "recording": recording.id, "artifacts": [_shown(state, p) for p in files]})


def _recording(state: ClientState, wanted: str | None) -> rec.Recording:
    if wanted is None:
        return state.recording
    for recording in state.recordings():
        if recording.id == wanted:
            return recording
    raise ToolError(f"no recording {wanted!r} in this session (session(action=LIST) lists them)")


# -- config -----------------------------------------------------------------------------------------------------


async def config(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.ConfigArgs = _parse(A.ConfigArgs, arguments)
    state = call.state
    settings = state.settings
    if args.action is A.ConfigAction.LIST:
        return Reply(
            {
                "keys": [
                    {"key": k.name, "description": k.description, "value": settings.get(k), "options": k.options}
                    for k in CONFIG_KEYS
                ]
            }
        )
    if args.action is A.ConfigAction.GET:
        if args.key is None:
            return Reply({"values": settings.values()})
        key = _config_key(args.key)
        return Reply(
            {"key": key.name, "value": settings.get(key), "options": key.options, "description": key.description}
        )
    if args.key is None or args.value is None:
        raise ToolError('SET needs a key and a value: config(action=SET, key="mode", value="TRAILBLAZE_AS_AGENT")')
    key = _config_key(args.key)
    try:
        value = key.parse(args.value)
    except ValueError as exc:
        raise ToolError(f"{key.name}: {exc}") from None
    note = None
    if key.name == "target":
        value = None if str(value).strip().lower() in ("", "none", "clear") else str(value).strip()
        project = state.project
        workspace = project.workspace_for(project.config.trails_dir)
        if value is not None and project.target_config(value, workspace) is None:
            known = sorted({*project.config.project.targets, *(workspace.targets if workspace else ())})
            raise ToolError(f"unknown target {value!r} (targets: {', '.join(known) or 'none are configured'})")
    before = settings.get(key)
    setattr(settings, key.attribute, value)
    settings.changed.add(key.name)
    changed = settings.get(key) != before
    if changed and key.name == "target":
        async with state.lock:
            if await state.reconnect_for_target():
                note = "the device was connected again for the new target (its tools and base URL)"
    if key.name == "toolProfile":
        await enable(call, profile_categories(value))
    elif changed and key.name in ("mode", "target"):
        await call.tools_changed()
    return Reply({"key": key.name, "value": settings.get(key), "changed": changed, "note": note})


def _config_key(name: str) -> Any:
    key = config_key(name)
    if key is None:
        raise ToolError(
            f"unknown config key {name!r}; config(action=LIST) lists them ({', '.join(k.name for k in CONFIG_KEYS)})"
        )
    return key


# -- toolbox ----------------------------------------------------------------------------------------------------


async def toolbox(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.ToolboxArgs = _parse(A.ToolboxArgs, arguments)
    state = call.state
    if args.action is A.ToolboxAction.LIST:
        return Reply(_toolbox_listing(state, args))
    if args.action is A.ToolboxAction.RELOAD:
        reloaded = await reload_tools(state)
        await call.tools_changed()
        return Reply(reloaded)
    concrete = {c for c in Category if c is not Category.ALL}
    enabled = concrete if Category.ALL in state.enabled else set(state.enabled)
    if args.action is A.ToolboxAction.PROFILE:
        if args.profile is None:
            raise ToolError(f"PROFILE needs profile: {', '.join(p.value for p in Profile)}")
        enabled = set(profile_categories(args.profile))
    else:
        if not args.categories:
            raise ToolError(f'{args.action.value} needs categories, e.g. categories=["VERIFICATION"]')
        chosen = concrete if Category.ALL in args.categories else set(args.categories)
        enabled = enabled | chosen if args.action is A.ToolboxAction.ENABLE else enabled - chosen
        if args.action is A.ToolboxAction.ENABLE and Category.ALL in args.categories:
            enabled = {Category.ALL}
    await enable(call, frozenset(enabled))
    listing = _toolbox_listing(state, A.parse(A.ToolboxArgs, {}))
    return Reply({"enabled": listing["enabled"], "offered": listing["offered"], "categories": listing["categories"]})


async def enable(call: Call, categories: frozenset[Category]) -> None:
    """Offer the device tools of ``categories``; the client is told when the list changes."""
    state = call.state
    before = state.enabled
    state.enabled = categories
    state.settings.tool_profile = profile_of(categories)
    if categories != before:
        await call.tools_changed()


def _toolbox_listing(state: ClientState, args: A.ToolboxArgs) -> dict[str, Any]:
    offered_names = {s.name for s in state.device_tools(SESSION_TOOL_NAMES)}
    builtin = state.builtin_sources()
    groups: dict[str, list[dict[str, Any]]] = {c.value: [] for c in Category if c is not Category.ALL}
    for spec in state.all_device_tools():
        if args.name and spec.name != args.name:
            continue
        if args.search and args.search.lower() not in f"{spec.name} {spec.description}".lower():
            continue
        entry: dict[str, Any] = {
            "name": spec.name,
            "description": (spec.description or "").split("\n\n", 1)[0],
            "offered": spec.name in offered_names,
        }
        if args.detail or args.name:
            entry["inputSchema"] = spec.input_schema
            entry["source"] = spec.source
        for category in categories_of(spec, builtin):
            groups[category.value].append(entry)
    enabled = sorted(c.value for c in state.enabled)
    profile = state.settings.tool_profile
    return {
        "enabled": enabled,
        "profile": profile.value if profile is not None else None,
        "profiles": {p.value: sorted(c.value for c in cats) for p, cats in PROFILES.items()},
        "categories": [
            {"category": name, "description": DESCRIPTIONS[Category(name)], "tools": tools}
            for name, tools in groups.items()
        ],
        "offered": len(offered_names),
        "connected": state.device is not None,
        "note": None if state.device is not None else "connect a device to see its tools: device(action=WEB)",
    }


# -- shared ------------------------------------------------------------------------------------------------------


def _parse(model: type[A._Args], arguments: dict[str, Any]) -> Any:
    try:
        return A.parse(model, arguments)
    except ValueError as exc:
        raise ToolError(f"invalid arguments: {exc}") from None


async def _device(state: ClientState) -> DeviceSession:
    try:
        return await state.ensure_device()
    except TrailblazeError as exc:
        raise ToolError(f"cannot connect a device: {exc}") from None


async def _attach_screen(
    state: ClientState, device: DeviceSession, reply: Reply, *, screenshot: bool, summary: bool = True
) -> None:
    """Add the compact screen summary (and a screenshot when asked) to ``reply``."""
    if device.session is None:
        return
    want_image = screenshot or state.settings.auto_include_screenshot
    fmt = state.settings.screenshot_format
    try:
        if want_image:
            captured = await device.capture()
            root, image = captured.hierarchy, captured.screenshot
        else:
            root, image = await device.screen(), None
    except Exception as exc:  # the reply still says what happened; the screen is extra
        reply.data["screen_error"] = f"{type(exc).__name__}: {exc}"
        return
    if summary and reply.text is None:
        shown = _summary(root)
        unchanged = shown == state.last_screen
        state.last_screen = shown
        reply.text = "The screen did not change." if unchanged else f"The screen now:\n{shown}"
    if image is None:
        return
    path = _save_screenshot(state, image)
    reply.data["screenshot"] = _shown(state, path)
    if fmt is ScreenshotFormat.IMAGE_CONTENT:
        reply.images.append((image, "image/png"))
    elif fmt is ScreenshotFormat.BASE64_TEXT:
        reply.data["screenshot_base64"] = base64.b64encode(image).decode("ascii")


def _summary(screen: ViewNode) -> str:
    """The compact screen a reply shows; a cut one says how to see the rest."""
    return render_screen(screen, SUMMARY_LINES, more=MORE_OF_THE_SCREEN)


def _save_screenshot(state: ClientState, image: bytes) -> Path:
    folder = state.artifacts_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"screenshot-{len(state.artifacts) + 1:03d}.png"
    path.write_bytes(image)
    state.artifacts.append(path)
    return path


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


HANDLERS: dict[str, Handler] = {
    "device": device,
    "step": step,
    "ask": ask,
    "trail": trail,
    "session": session,
    "config": config,
    "toolbox": toolbox,
    "runPrompt": run_prompt,
}
