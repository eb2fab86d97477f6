"""``getAgentMetrics`` and ``clearAgentMetrics``: how trailblaze's agent has done, per session
and for the whole server (upstream's ``AgentMetricsCollector``).

Every agent run of ``step`` and ``runPrompt`` (TRAILBLAZE_AS_AGENT) is counted when it ends, from
its record in the agent log (:mod:`trailblaze.api.agentlog`): a success (the step is done), a
failure (the agent could not do it: it said so, or ran out of turns) or an error (the LLM did not
answer, the run was interrupted), with its iterations, tool calls, tokens, LLM time and
duration, grouped by how the LLM was called (upstream's ``agentImplementation``: ``DIRECT`` or
``MCP_SAMPLING``). Failures and errors are counted by kind. The server's totals count every
session's runs, also those of sessions that have ended; ``clearAgentMetrics`` clears this
session's (``scope: SESSION``) or every count (``ALL``, upstream's only behaviour). The tools
are in :mod:`.metrics_tools`.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

#: runs kept for ``recent`` (the counts cover every run)
RECENT_RUNS = 10


@dataclass
class _Stats:
    runs: int = 0
    successes: int = 0
    failures: int = 0
    errors: int = 0
    iterations: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_ms: float = 0.0
    duration_ms: float = 0.0
    min_ms: float | None = None
    max_ms: float = 0.0
    error_kinds: Counter[str] = field(default_factory=Counter)

    def add(self, record: dict[str, Any]) -> None:
        status = record.get("status")
        self.runs += 1
        if status == "complete":
            self.successes += 1
        elif status == "error":
            self.errors += 1
        else:
            self.failures += 1
        if status != "complete":
            self.error_kinds[str(record.get("error_kind") or status)] += 1
        self.iterations += int(record.get("iterations") or 0)
        self.tool_calls += int(record.get("tool_calls") or 0)
        self.prompt_tokens += int(record.get("prompt_tokens") or 0)
        self.completion_tokens += int(record.get("completion_tokens") or 0)
        self.llm_ms += float(record.get("llm_ms") or 0)
        duration = float(record.get("duration_ms") or 0)
        self.duration_ms += duration
        self.min_ms = duration if self.min_ms is None else min(self.min_ms, duration)
        self.max_ms = max(self.max_ms, duration)

    def to_dict(self) -> dict[str, Any]:
        runs = self.runs
        return {
            "totalExecutions": runs,
            "successCount": self.successes,
            "failureCount": self.failures,
            "errorCount": self.errors,
            "successRate": round(self.successes / runs, 4) if runs else 0.0,
            "errorKinds": dict(sorted(self.error_kinds.items())),
            "iterations": self.iterations,
            "avgIterations": round(self.iterations / runs, 2) if runs else 0.0,
            "toolCalls": self.tool_calls,
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
            "totalTokens": self.prompt_tokens + self.completion_tokens,
            "llmTimeMs": round(self.llm_ms, 1),
            "avgDurationMs": round(self.duration_ms / runs, 1) if runs else 0.0,
            "minDurationMs": round(self.min_ms or 0.0, 1),
            "maxDurationMs": round(self.max_ms, 1),
        }


@dataclass
class AgentMetrics:
    """The counts of agent runs, by LLM call strategy, and the last few runs."""

    by_strategy: dict[str, _Stats] = field(default_factory=dict)
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT_RUNS))

    def add(self, record: dict[str, Any]) -> None:
        strategy = str(record.get("strategy") or "DIRECT")
        self.by_strategy.setdefault(strategy, _Stats()).add(record)
        keys = ("objective", "status", "error_kind", "iterations", "duration_ms", "strategy")
        self.recent.append({key: record.get(key) for key in keys})

    def clear(self) -> None:
        self.by_strategy.clear()
        self.recent.clear()

    def to_dict(self) -> dict[str, Any]:
        total = _Stats()
        for stats in self.by_strategy.values():
            total.runs += stats.runs
            total.successes += stats.successes
            total.failures += stats.failures
            total.errors += stats.errors
            total.iterations += stats.iterations
            total.tool_calls += stats.tool_calls
            total.prompt_tokens += stats.prompt_tokens
            total.completion_tokens += stats.completion_tokens
            total.llm_ms += stats.llm_ms
            total.duration_ms += stats.duration_ms
            if stats.min_ms is not None:
                total.min_ms = stats.min_ms if total.min_ms is None else min(total.min_ms, stats.min_ms)
            total.max_ms = max(total.max_ms, stats.max_ms)
            total.error_kinds.update(stats.error_kinds)
        return {
            **total.to_dict(),
            "byStrategy": [
                {"agentImplementation": name, **stats.to_dict()} for name, stats in sorted(self.by_strategy.items())
            ],
            "recent": list(self.recent),
        }


#: every session's runs since the server started (or was last cleared with scope ALL)
SERVER = AgentMetrics()


def count(session: AgentMetrics, record: dict[str, Any]) -> None:
    """Count one agent run's record for its session and the server."""
    session.add(record)
    SERVER.add(record)


def forget(session: AgentMetrics) -> None:
    """Take ``session``'s runs out of the server's totals."""
    for name, stats in session.by_strategy.items():
        _subtract(SERVER.by_strategy.get(name), stats)


def _subtract(total: _Stats | None, part: _Stats) -> None:
    if total is None:
        return
    for name in ("runs", "successes", "failures", "errors", "iterations", "tool_calls", "prompt_tokens"):
        setattr(total, name, max(0, getattr(total, name) - getattr(part, name)))
    total.completion_tokens = max(0, total.completion_tokens - part.completion_tokens)
    total.llm_ms = max(0.0, total.llm_ms - part.llm_ms)
    total.duration_ms = max(0.0, total.duration_ms - part.duration_ms)
    total.error_kinds.subtract(part.error_kinds)
    total.error_kinds += Counter()  # drops the kinds at zero
