"""What an agent did while it worked out a step, as JSON Lines a person can read back (seed 001's
MCP logging: ``McpAgentRunLog``, ``McpAgentIterationLog``, ``McpSamplingLog``, ``McpAgentToolLog``).

Four records, one JSON object a line, each with ``record`` (its kind), ``run`` (the agent run it
belongs to), ``step`` (the step's label) and ``time``:

* ``sampling`` — one LLM completion: the messages sent (the system prompt first), the model,
  tokens, how long it took and the ``strategy`` (``DIRECT``: trailblaze's own LLM client;
  ``MCP_SAMPLING``: the MCP client's LLM) and what came back;
* ``iteration`` — one round of the agent: its number, the LLM's text (its thought), the tools it
  called with their arguments and results, and the ``response_type`` (``tool_call``,
  ``complete``, ``failed``, ``no_tool``);
* ``tool`` — one tool execution: its name, arguments, result, how long it took and its
  ``transport`` (``DIRECT``: in this process; ``MCP``: a toolset's MCP server);
* ``agent_run`` — written last: the objective, the agent, the transport and strategy, the
  number of iterations, the final result (``status``, ``explanation``, ``error_kind``), tokens,
  LLM time and duration.

Everything written goes through the session's masking (:mod:`trailblaze.device.masking`), every
text is cut to :data:`~trailblaze.core.limits.MESSAGE_CHARS` (a sampling request's messages
together to :data:`MESSAGES_CHARS`), and a file stops growing at
:data:`~trailblaze.core.limits.LOG_BYTES` (the run record is still written, saying so). The file
is opened as every log trailblaze writes as it goes — never through a link
(:func:`~trailblaze.core.fileio.open_log`) — and a log that cannot be written never fails the
step: the run record's ``log_error`` says why, when it can be written at all.

Agents write the iteration and sampling records through :attr:`StepTask.log
<trailblaze.api.agent.StepTask.log>`; Trailblaze writes the tool and run records itself.
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

#: how the agent's LLM was called: trailblaze's own client (``DIRECT``), the MCP client's LLM
#: through sampling (``MCP_SAMPLING``), or not by trailblaze at all: the MCP client is the agent
#: and made the calls itself (``MCP_CLIENT``, ``trailblaze mcp``'s MCP_CLIENT_AS_AGENT mode)
Strategy = Literal["DIRECT", "MCP_SAMPLING", "MCP_CLIENT"]
Transport = Literal["DIRECT", "MCP"]
#: the file an agent log has in its folder (a trail's evidence folder, an MCP session's folder)
FILE_NAME = "agent-log.jsonl"
#: characters of one sampling request's messages, together
MESSAGES_CHARS = 20_000


class AgentLog:
    """The records of one agent run, appended to ``path`` (None: counted, not written)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        secrets: Iterable[str] = (),
        objective: str = "",
        step: str = "",
        agent: str = "",
        strategy: Strategy = "DIRECT",
        transport: Transport = "DIRECT",
    ) -> None:
        self.path = path
        self.secrets = secrets
        self.run = uuid.uuid4().hex[:12]
        self.objective = objective
        self.step = step
        self.agent = agent
        self.strategy: Strategy = strategy
        self.transport: Transport = transport
        self.iterations = 0
        self.samplings = 0
        self.tool_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.llm_ms = 0.0
        self.actions: list[str] = []
        self.error: str | None = None
        self.cut = False
        #: the run's record, once :meth:`finish` wrote it
        self.record: dict[str, Any] | None = None
        self._started = time.monotonic()

    # -- what agents write --------------------------------------------------------------------------

    def sampling(
        self,
        *,
        messages: Sequence[Any],
        completion: Any,
        model: str | None,
        duration_ms: float,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        strategy: Strategy | None = None,
        tools: Sequence[str] = (),
        error: str | None = None,
    ) -> None:
        """One LLM completion (``messages`` as sent, the system prompt among them)."""
        self.samplings += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.llm_ms += duration_ms
        self._write(
            "sampling",
            {
                "number": self.samplings,
                "strategy": strategy or self.strategy,
                "model": model,
                "messages": self._messages(messages),
                "tools": list(tools),
                "completion": self._value(completion),
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "duration_ms": round(duration_ms, 1),
                "error": error,
            },
        )

    def iteration(self, *, completion: str | None, calls: Sequence[Mapping[str, Any]], response_type: str) -> None:
        """One round: the LLM's text and the calls it made, each ``{tool, args, ok, result}``."""
        self.iterations += 1
        self._write(
            "iteration",
            {
                "number": self.iterations,
                "completion": self._text(completion) if completion else None,
                "calls": [self._value(dict(call)) for call in calls],
                "response_type": response_type,
            },
        )

    # -- what Trailblaze writes ---------------------------------------------------------------------

    def tool(
        self, *, name: str, args: Mapping[str, Any], ok: bool, result: Any, duration_ms: float, transport: Transport
    ) -> None:
        self.tool_calls += 1
        if ok:
            self.actions.append(name)
        self._write(
            "tool",
            {
                "tool": name,
                "args": self._value(dict(args)),
                "ok": ok,
                "result": self._value(result),
                "duration_ms": round(duration_ms, 1),
                "transport": transport,
            },
        )

    def finish(
        self,
        *,
        status: str,
        explanation: str = "",
        error_kind: str | None = None,
        model: str | None = None,
        screenshot: str | None = None,
    ) -> dict[str, Any]:
        """Write the run record (last) and return it."""
        record = {
            "objective": self._text(self.objective),
            "agent": self.agent,
            "transport": self.transport,
            "strategy": self.strategy,
            "model": model,
            "iterations": self.iterations,
            "tool_calls": self.tool_calls,
            "actions": self.actions[:100],
            "status": status,
            "successful": status == "complete",
            "explanation": self._text(explanation),
            "error_kind": error_kind,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "llm_ms": round(self.llm_ms, 1),
            "duration_ms": round((time.monotonic() - self._started) * 1000, 1),
            "screenshot": screenshot,
            "log_cut": self.cut,
        }
        self._write("agent_run", record, last=True)
        record["log_error"] = self.error
        self.record = record
        return record

    # -- writing ------------------------------------------------------------------------------------

    def _write(self, kind: str, fields: dict[str, Any], *, last: bool = False) -> None:
        if self.path is None or self.error is not None:
            return
        from trailblaze.core import limits
        from trailblaze.core.fileio import open_log

        head = {"record": kind, "run": self.run, "step": self.step, "time": _now()}
        line = json.dumps({**head, **fields}, ensure_ascii=False, default=str)
        data = (limits.utf8_text(line) + "\n").encode("utf-8")
        try:
            size = self.path.stat().st_size if self.path.is_file() else 0
            if not last and size + len(data) > limits.LOG_BYTES.get_int():
                self.cut = True
                return
            with open_log(self.path) as handle:
                handle.write(data)
        except OSError as exc:
            self.error = f"the agent log {self.path} cannot be written: {exc.strerror or exc}"

    def _text(self, text: Any) -> str:
        from trailblaze.core.limits import shorten
        from trailblaze.device.masking import redact

        return shorten(redact(str(text), self.secrets))

    def _value(self, value: Any) -> Any:
        """A JSON-like value, secrets masked, every string cut."""
        if isinstance(value, str):
            return self._text(value)
        if isinstance(value, Mapping):
            return {str(k): self._value(v) for k, v in list(value.items())[:200]}
        if isinstance(value, list | tuple):
            return [self._value(v) for v in list(value)[:200]]
        if value is None or isinstance(value, bool | int | float):
            return value
        return self._text(value)

    def _messages(self, messages: Sequence[Any]) -> list[Any]:
        """The messages of a request, the last ones first to go past :data:`MESSAGES_CHARS`
        (a screen is the bulk; the first messages say what was asked)."""
        kept: list[Any] = []
        used = 0
        for message in messages:
            value = self._value(message)
            size = len(json.dumps(value, ensure_ascii=False, default=str))
            if used + size > MESSAGES_CHARS:
                kept.append({"role": "note", "content": f"({len(messages) - len(kept)} more messages not shown)"})
                break
            kept.append(value)
            used += size
        return kept


def read_records(path: Path, limit_bytes: int | None = None) -> list[dict[str, Any]]:
    """The records of an agent log (lines that are not a JSON object are left out; a file past
    ``limit_bytes`` is read that far). Read without following a link at ``path``."""
    import os
    import stat

    from trailblaze.core import limits

    bound = limits.LOG_BYTES.get_int() + 1_000_000 if limit_bytes is None else limit_bytes
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return []
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return []
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(bound)
    records = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("record"), str):
            records.append(value)
    return records


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
