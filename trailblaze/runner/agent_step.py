"""One step worked out by an agent: the :class:`~trailblaze.api.agent.StepTask` Trailblaze
hands to agents, used by ``trailblaze record`` and by ``trailblaze run --self-heal``.

Every call the agent makes runs at once through the session's resolver, like a recorded call
would at replay. What ends up in the step's recording is what Trailblaze executed: the
recordable, non-delegating calls (``tap(ref)`` records the ``web_click`` it delegated to), with
ephemeral refs swapped for the stable ``nodeSelector`` they pointed at before the call runs,
and literal values that came from the step's ``{{args.x}}``/``{{memory.x}}`` put back as
those references, so the recording replays with other arguments too.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trailblaze.api.agent import Agent, AgentSettings, CallResult, StepTask, Verdict
from trailblaze.api.results import AgentReport, Artifact
from trailblaze.core.errors import ToolFailure
from trailblaze.core.interpolate import references
from trailblaze.device import masking
from trailblaze.tools.agentschema import parse_json_arguments
from trailblaze.tools.model import REASON_KEYS, ToolCall, ToolSpec
from trailblaze.tools.resolve import CallFailed, ExecutedCall

if TYPE_CHECKING:
    from trailblaze.api.session import Session
    from trailblaze.device.commands import ViewNode
    from trailblaze.runner.toolrunner import ToolRunner
    from trailblaze.trail.model import Step, Trail

#: the tool an agent ends a step with; it is never executed or recorded
OBJECTIVE_STATUS = "objectiveStatus"
_AGENT_STATE = "trailblaze.agent"


def step_label(step: Step) -> str:
    return "trailhead" if step.kind == "trailhead" else f"{step.kind} {step.index + 1}"


def offered_tools(
    registry: Iterable[ToolSpec], kind: str, groups: Sequence[str] | None, hidden: Set[str] = frozenset()
) -> list[ToolSpec]:
    """The tools an agent is offered for a step: those exposed to LLMs on this device and not
    ``hidden`` by the session's toolsets (:func:`trailblaze.project.toolsets.hidden_tools`), narrowed
    to ``groups`` (tools without a group always stay; a tool whose groups are all off by
    default — seed 000's ``defaultEnabled: false`` — only when ``groups`` names one), verification
    tools only on a ``verify:`` step — and ``objectiveStatus`` to end the step."""
    wanted = set(groups or ())
    offered = []
    for spec in registry:
        meta = spec.metadata
        if spec.name == OBJECTIVE_STATUS:
            offered.append(spec)
            continue
        if not meta.exposed_to_llm or spec.name in hidden or spec.unavailable is not None:
            continue
        if wanted and meta.groups and not wanted.intersection(meta.groups):
            continue
        if not meta.default_enabled and not wanted.intersection(meta.groups):
            continue
        if kind == "verify" and not meta.verification:
            continue
        offered.append(spec)
    return sorted(offered, key=lambda s: s.name)


def session_hidden(session: Session) -> frozenset[str]:
    """The tools the session's toolsets keep from agents."""
    from trailblaze.device.drivernames import DriverContext
    from trailblaze.project.toolsets import hidden_tools, pushed_hidden

    project = session.run.project
    driver = session.driver
    context = DriverContext(driver.key, driver.platform, tuple(driver.aliases), project.drivers.expand)
    workspace = session.workspace
    target = project.target_config(session.target, workspace)
    extra = workspace.toolsets if workspace is not None else None
    config = session.run.config
    pushed = pushed_hidden(config, target, context, session.registry, extra)
    return hidden_tools(config, target, context, extra) | pushed


async def agent_for(session: Session, name: str) -> Agent:
    """The session's agent, created and started on first use and closed with the session."""
    agent: Agent | None = session.state.get(_AGENT_STATE)
    if agent is None:
        agent_class = session.run.project.agents.resolve(name)
        agent = agent_class(AgentSettings(session.run.config))
        await agent.start(session)
        session.state[_AGENT_STATE] = agent
        session.exit_stack.push_async_callback(agent.close)
    return agent


def pause_live_output(session: Session) -> None:
    """Ask reporters to stop their live output (``trailblaze_pause_live``; it comes back with
    the next event), so what is printed next — a prompt for a person, a diff — is not drawn
    over."""
    session.run.project.hook.trailblaze_pause_live()


class AgentStep(StepTask):
    """The step an agent works on, bound to a session and the trail's tool runner."""

    def __init__(self, session: Session, trail: Trail, step: Step, text: str, runner: ToolRunner) -> None:
        self.session = session
        self.trail = trail
        self.step = step
        self.text = text
        self.kind = step.kind
        self.label = step_label(step)
        self._hidden = session_hidden(session)
        self.tools = offered_tools(session.registry, step.kind, None, self._hidden)
        self._runner = runner
        self._groups: list[list[ToolCall]] = []
        #: tools that ran and cannot be recorded nor delegate (one needing an LLM's judgement each
        #: time): a recording of this step would replay without them, so it must not be written
        self.needs_agent: list[str] = []

    def tools_in_groups(self, groups: Sequence[str] | None) -> list[ToolSpec]:
        return offered_tools(self.session.registry, self.kind, groups, self._hidden)

    async def screen(self) -> ViewNode:
        """The screen with the session's secrets masked: a filled secret field shows ``***``
        to a person, an LLM and whatever the agent logs."""
        return masking.masked_node(await self.session.device.view_hierarchy(), self.session.secrets)

    def pause_output(self) -> None:
        pause_live_output(self.session)

    @property
    def recording(self) -> list[ToolCall]:
        return [call for group in self._groups for call in group]

    def undo(self) -> list[ToolCall]:
        return self._groups.pop() if self._groups else []

    def observe(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        arguments = dict(args or {})
        spec, problem = self._check(name)
        if problem is None and spec is not None:
            arguments = parse_json_arguments(spec.input_schema, arguments)
            try:
                spec.validate(arguments)
            except ValueError as exc:
                problem = str(exc)
        if problem is not None:
            return CallResult(False, error=problem)
        call = ToolCall(name, arguments)
        self._groups.append([call])
        return CallResult(True, recorded=[call])

    async def call(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        """:meth:`_call`, written to the agent's log as one tool execution."""
        import time

        started = time.monotonic()
        result = await self._call(name, args)
        spec = self.session.registry.get(name)
        self.log.tool(
            name=name,
            args=dict(args or {}),
            ok=result.ok,
            result=result.output if result.ok else result.error,
            duration_ms=(time.monotonic() - started) * 1000,
            transport="MCP" if spec is not None and spec.server_info is not None else "DIRECT",
        )
        return result

    async def _call(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        arguments = dict(args or {})
        spec, problem = self._check(name)
        if problem is not None or spec is None:
            return CallResult(False, error=problem)
        arguments = parse_json_arguments(spec.input_schema, arguments)  # an object sent as JSON text
        try:
            arguments = await self._stable_target(spec, arguments)
        except ToolFailure as exc:
            return CallResult(False, error=str(exc))
        executed: list[ExecutedCall] = []
        previous = self._runner.on_executed
        self._runner.on_executed = executed.append
        ok, error = True, None
        try:
            await self._runner.run(ToolCall(name, arguments))
        except CallFailed as exc:
            ok, error = False, exc.message
        finally:
            self._runner.on_executed = previous
        recorded = [e.call for e in executed if e.status == "passed" and e.recordable]
        self.needs_agent.extend(e.call.name for e in executed if _needs_agent(e))
        recorded = carry_reason(arguments, [ToolCall(c.name, dict(c.args)) for c in recorded])
        if self.kind == "verify":
            actions = [c.name for c in recorded if not self._is_check(c.name)]
            if actions:  # a "verification" tool that delegated to an action: it happened, but is not a check
                return CallResult(False, error=f"{name} ran {', '.join(actions)}, which a verify step may not record")
        if self.kind == "trailhead" and len(recorded) > 1:
            recorded = [ToolCall(name, arguments)]  # a trailhead holds one call: keep the one the agent made
        if recorded:
            self._groups.append(recorded)
        output = executed[-1].output if executed and ok else None
        secrets = self.session.secrets  # what the agent is shown or sent never holds a secret
        return CallResult(ok, masking.redact_value(output, secrets), error and masking.redact(error, secrets), recorded)

    def _is_check(self, name: str) -> bool:
        spec = self.session.registry.get(name)
        return spec is not None and spec.metadata.verification

    def _check(self, name: str) -> tuple[ToolSpec | None, str | None]:
        if name == OBJECTIVE_STATUS:
            return None, "objectiveStatus ends the step; it is not executed"
        spec = self.session.registry.get(name)
        if spec is None:
            close = difflib.get_close_matches(name, [s.name for s in self.tools], n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            return None, f"unknown tool {name!r}{hint}"
        if self.kind == "verify" and not spec.metadata.verification:
            return spec, (
                f"{name} is not allowed here: a verify step may only use verification (read-only) tools, "
                f"such as {', '.join(s.name for s in self.tools if s.name != OBJECTIVE_STATUS)[:200]}"
            )
        if self.kind == "trailhead" and self._groups:
            return spec, "a trailhead records exactly one tool call; undo the previous one first"
        return spec, None

    async def _stable_target(self, spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
        """Swap an ephemeral ``ref`` for the stable ``nodeSelector`` it points at, when the
        tool takes one: that is what the recording must hold to replay."""
        ref = args.get("ref")
        properties = spec.input_schema.get("properties", {})
        if not isinstance(ref, str) or "nodeSelector" not in properties or args.get("nodeSelector") is not None:
            return args
        try:
            selector = await self.session.device.selector_for_ref(ref)
        except NotImplementedError:
            return args
        if selector is None:
            raise ToolFailure(f"no element with ref {ref!r} on the current screen")
        stable = {k: v for k, v in args.items() if k not in ("ref", *REASON_KEYS)}
        stable["nodeSelector"] = selector
        stable.update((k, v) for k, v in args.items() if k in REASON_KEYS)  # the explanation goes last
        return stable


def _needs_agent(executed: ExecutedCall) -> bool:
    """Whether a call that ran is one no recording can hold: executed calls never delegate, so
    one that is not recordable needs an agent's judgement every time (seed 000, "Replay Modes") —
    unless it is a read-only query, whose answer was for the agent alone (``web_currentUrl``), or
    a call an executable tool made by name, which replaying that tool's own call makes again."""
    return executed.status == "passed" and executed.needs_agent


def needs_agent_message(tools: Sequence[str]) -> str:
    """Why a step that ran ``tools`` is not recorded, and what to do about it."""
    names = ", ".join(dict.fromkeys(tools))
    return (
        f"{names} cannot be recorded (it is neither recordable nor delegating: it needs an agent's judgement every "
        "time), so a recording of this step would replay without it and pass doing nothing; mark the step "
        "`recordable: false`, and replay it with `--self-heal --agent NAME`"
    )


def carry_reason(args: Mapping[str, Any], recorded: list[ToolCall]) -> list[ToolCall]:
    """A delegating call's ``reason`` goes with the first call it recorded."""
    reason = args.get("reason") or args.get("reasoning")
    if not reason or not recorded or "reason" in recorded[0].args or "reasoning" in recorded[0].args:
        return recorded
    first = recorded[0]
    return [first.with_args({**first.args, "reason": reason}), *recorded[1:]]


@dataclass(slots=True)
class Solved:
    verdict: Verdict
    recording: list[ToolCall]
    report: AgentReport
    #: tools the agent ran that no recording can hold (:attr:`AgentStep.needs_agent`)
    needs_agent: list[str]
    #: the agent's log and the screenshot of where it left the screen, for the step's result
    artifacts: list[Artifact] = field(default_factory=list)


async def solve_step(agent: Agent, session: Session, trail: Trail, step: Step, text: str, runner: ToolRunner) -> Solved:
    """Have ``agent`` work out ``step``; the recording has the step's references put back."""
    from trailblaze.runner.agentrun import new_log, solve_logged
    from trailblaze.runner.evidence import relative_to_run, trail_folder

    task = AgentStep(session, trail, step, text, runner)
    folder = trail_folder(session, trail)
    log = new_log(folder, session, task, agent)
    verdict, record = await solve_logged(agent, task, session)
    recording = with_references(task.recording, step, trail, session.memory)
    usage = verdict.usage
    report = AgentReport(
        name=agent.name,
        status=verdict.status,
        explanation=verdict.explanation,
        model=usage.model,
        turns=usage.turns,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        run=log.run if log.path is not None else None,
    )
    artifacts: list[Artifact] = []
    if folder is not None and log.path is not None and log.error is None:
        root = session.run.options.artifacts_dir
        artifacts.append(relative_to_run(Artifact("agent-log", str(log.path)), root))
        if record.get("screenshot"):
            artifacts.append(relative_to_run(Artifact("screenshot", str(folder / record["screenshot"])), root))
    return Solved(verdict, recording, report, list(dict.fromkeys(task.needs_agent)), artifacts)


def with_references(calls: Sequence[ToolCall], step: Step, trail: Trail, memory: Mapping[str, Any]) -> list[ToolCall]:
    """Put ``{{args.x}}``/``{{memory.x}}`` back where a recorded value came from them, so the
    recording replays with other values: a value equal to a trail argument (two characters or
    more) or to a memory value the step's text refers to, or containing one (four or more)."""
    candidates: dict[str, str] = {}
    for name, value in trail.arg_values.items():
        if isinstance(value, str | int | float) and not isinstance(value, bool) and len(str(value)) >= 2:
            candidates[f"{{{{args.{name}}}}}"] = str(value)
    for ref in references(step.text or ""):
        if ref.namespace == "memory" and memory.get(ref.name) not in (None, ""):
            candidates[f"{{{{memory.{ref.name}}}}}"] = str(memory[ref.name])
    if not candidates:
        return list(calls)
    values = sorted(((literal, template) for template, literal in candidates.items()), key=lambda i: -len(i[0]))

    def put_back(value: Any) -> Any:
        if isinstance(value, str):
            for literal, template in values:
                if value == literal:
                    return template
            for literal, template in values:
                if len(literal) >= 4 and literal in value:
                    value = value.replace(literal, template)
            return value
        if isinstance(value, Mapping):
            return {k: put_back(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [put_back(v) for v in value]
        return value

    return [call.with_args(put_back(dict(call.args))) for call in calls]
