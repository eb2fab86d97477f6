"""Agents: who works out a step from its text when there is no recording to replay.

An agent is given one step at a time as a :class:`StepTask` — the step's text, the tools it may
use, the current screen — and acts through the task: every call it makes is executed at once
by Trailblaze (delegation resolved, refs turned into stable selectors) and the recordable
calls that ran become the step's recording. Seed 001's subagent pattern: a step is solved
from its text and the screen as it is now, never from earlier screens or steps.

Agents are registered by plugins (``trailblaze_register_agents``) and picked with
``--agent NAME``. Three are built in: ``interactive`` (a person at the terminal), ``openai``
(any OpenAI-compatible chat-completions endpoint) and ``browser`` (record by demonstration).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from trailblaze.core.registry import Registry

if TYPE_CHECKING:
    from trailblaze.api.agentlog import AgentLog
    from trailblaze.api.session import Session
    from trailblaze.device.commands import ViewNode
    from trailblaze.project.config import Config
    from trailblaze.tools.model import ToolCall, ToolSpec
    from trailblaze.trail.model import Trail

VerdictStatus = Literal["complete", "failed", "skipped", "quit"]


@dataclass(slots=True)
class AgentSettings:
    """What an agent is created with: the project configuration, with the command's options
    (``config.getoption``) and the agent plugin's own settings (``config.section``)."""

    config: Config


@dataclass(slots=True)
class Usage:
    """What solving a step cost: the model, LLM round trips and tokens (zero for people)."""

    model: str | None = None
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.model = other.model or self.model
        self.turns += other.turns
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens


@dataclass(slots=True)
class Verdict:
    """How an agent's work on a step ended.

    ``complete``: the step is done, its recording is what the task executed. ``failed``: the
    agent could not do it (``explanation`` says why). ``skipped``: leave the step without a
    recording and go on. ``quit``: stop recording; the steps finished so far are kept.
    """

    status: VerdictStatus
    explanation: str = ""
    usage: Usage = field(default_factory=Usage)
    #: why a ``failed`` step failed, in a word the agent metrics count (``objective_failed``: the
    #: agent said so; ``turn_limit``: it ran out of turns); None: ``failed``
    error_kind: str | None = None


@dataclass(slots=True)
class CallResult:
    """The outcome of one call an agent made: ``ok`` with the tool's ``output``, or ``error``.

    ``recorded`` lists the calls this one added to the step's recording (a delegating call
    adds the executable calls it resolved to; a call with a ``ref`` is recorded with the
    stable ``nodeSelector`` the ref pointed at)."""

    ok: bool
    output: Any = None
    error: str | None = None
    recorded: list[ToolCall] = field(default_factory=list)

    def describe(self) -> str:
        """One line for whoever solves the step (a person, an LLM): bounded, as a tool may
        return megabytes."""
        from trailblaze.core.limits import shorten

        if not self.ok:
            return shorten(f"failed: {self.error}")
        if self.output is None or self.output == "":
            return "ok"
        return shorten(f"ok: {self.output}")


class StepTask(abc.ABC):
    """One step for an agent to work out. Trailblaze implements it; agents use it."""

    #: the step's text with ``{{args.x}}`` filled in
    text: str
    #: ``step``, ``verify`` (only verification tools may be used) or ``trailhead`` (one call)
    kind: str
    #: "step 3", "verify 4" or "trailhead", for messages
    label: str
    trail: Trail
    session: Session
    #: the tools the agent may call for this step (exposed to LLMs, for this driver, narrowed
    #: by ``llm.groups``; verification tools only on ``verify:`` steps)
    tools: Sequence[ToolSpec]
    _agent_log: AgentLog | None = None

    @property
    def context(self) -> str | None:
        """Background for whoever solves the step: the app target's guidance (upstream's
        ``system_prompt_file``) and the trail's ``config.context``."""
        target = self.session.run.project.target_config(self.session.target, self.session.workspace)
        parts = [p.strip() for p in (target.system_prompt if target else None, self.trail.config.context) if p]
        return "\n\n".join(parts) or None

    @property
    def verify_only(self) -> bool:
        return self.kind == "verify"

    @property
    def log(self) -> AgentLog:
        """Where the agent writes its iterations and LLM completions
        (:class:`~trailblaze.api.agentlog.AgentLog`); Trailblaze writes the tool executions and
        the run's record. A task Trailblaze did not give a log counts without writing."""
        log = self._agent_log
        if log is None:
            from trailblaze.api.agentlog import AgentLog

            log = self._agent_log = AgentLog()
        return log

    @log.setter
    def log(self, value: AgentLog) -> None:
        self._agent_log = value

    def tools_in_groups(self, groups: Sequence[str] | None) -> Sequence[ToolSpec]:
        """The step's tools narrowed to ``groups`` (an LLM agent's setting, ``llm.groups``):
        tools in one of them or in none. None: :attr:`tools`. Trailblaze's own tasks also offer
        then the tools whose groups are all off by default (seed 000's ``defaultEnabled:
        false``) when ``groups`` names one; this default can only narrow :attr:`tools`."""
        if not groups:
            return self.tools
        wanted = set(groups)
        return [s for s in self.tools if not s.metadata.groups or wanted.intersection(s.metadata.groups)]

    @abc.abstractmethod
    async def screen(self) -> ViewNode:
        """The screen now, with ephemeral refs (``e12``) an agent can act on."""

    def pause_output(self) -> None:  # noqa: B027 - optional
        """Stop live progress output (a spinner) before talking to a person at the terminal."""

    @abc.abstractmethod
    async def call(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        """Execute a tool call now and record what it executed. Never raises for a call that
        fails or is refused: the result says why, so the agent can try something else."""

    @abc.abstractmethod
    def observe(self, name: str, args: Mapping[str, Any] | None = None) -> CallResult:
        """Record a call that already happened on the device without executing it (a person
        clicked in the browser). Checked like :meth:`call`."""

    @abc.abstractmethod
    def undo(self) -> list[ToolCall]:
        """Drop what the last call added to the recording (the device is not changed back);
        returns the dropped calls, empty when there was nothing to drop."""

    @property
    @abc.abstractmethod
    def recording(self) -> list[ToolCall]:
        """What the step's recording holds so far."""


class Agent(abc.ABC):
    """Works out steps from their text. Subclass it, set ``name``, implement :meth:`solve`,
    and register the class in ``trailblaze_register_agents``.

    One agent instance serves one device session: :meth:`start` is called before its first
    step, :meth:`close` after the session's last trail.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    #: records by watching a person use a visible browser (the web driver runs headed)
    shows_browser: ClassVar[bool] = False
    #: what it records is made from observed events, not from calls it ran: ``record``
    #: replays the new recording once, on a fresh page, before saving it
    verify_by_replay: ClassVar[bool] = False
    #: reads a person's answers from stdin: not where a command speaks a protocol there
    #: (``config.stdout_protocol``: ``trailblaze mcp`` refuses it)
    reads_stdin: ClassVar[bool] = False
    #: the agent ``record`` and ``run --self-heal`` use when nothing names one and no agent
    #: :meth:`is_configured`: the first registered agent that says so (the interactive agent)
    fallback: ClassVar[bool] = False

    def __init__(self, settings: AgentSettings) -> None:
        self.settings = settings

    @classmethod
    def is_configured(cls, config: Config) -> bool:
        """Whether the project sets this agent up, so it is the one ``record`` and ``run
        --self-heal`` use when neither ``--agent`` nor ``agent:`` names one (``openai``: an
        ``llm:`` section or the ``OPENAI_*`` variables). The first registered agent that says
        so wins; without one, the :attr:`fallback` agent."""
        return False

    async def start(self, session: Session) -> None:  # noqa: B027 - optional hook
        """Prepare for steps on ``session`` (check credentials, attach to the page…)."""

    @abc.abstractmethod
    async def solve(self, task: StepTask) -> Verdict:
        """Work out one step through ``task`` and say how it ended."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release what :meth:`start` acquired."""


class AgentRegistry(Registry[type[Agent]]):
    """Agent classes by name, with the plugin that registered each."""

    kind = "agent"

    def names_of(self, item: type[Agent]) -> Iterable[str]:
        return (item.name,)

    def check(self, item: Any) -> type[Agent]:
        if not (isinstance(item, type) and issubclass(item, Agent)):
            raise TypeError(f"{item!r} is not a trailblaze.Agent subclass")
        name = getattr(item, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"agent class {item.__name__} has no `name`")
        return item

    def describe(self, item: type[Agent], source: str) -> str:
        return f"{source or '?'} ({item.__name__})"
