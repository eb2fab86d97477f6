"""Results of a run, in the shape of the ``--json`` document (README: "Results JSON").

Keys may be added; none is renamed without a CHANGELOG entry. ``index`` counts steps from 0
with the trailhead excluded (the trailhead has index -1 and kind ``trailhead``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from trailblaze.errors import ExitCode

Status = Literal["passed", "failed", "error", "skipped"]
#: Version of the results JSON document.
RESULTS_VERSION = 1


@dataclass(slots=True)
class ToolReport:
    name: str
    args: dict[str, Any]
    status: Status
    duration_ms: float
    delegated_from: list[str]
    recordable: bool = True
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "args": self.args,
            "status": self.status,
            "duration_ms": round(self.duration_ms, 3),
            "delegated_from": self.delegated_from,
            "recordable": self.recordable,
            "error": self.error,
        }


@dataclass(slots=True)
class StepResult:
    index: int
    kind: str
    text: str
    status: Status
    duration_ms: float = 0.0
    error: str | None = None
    attempts: int = 1
    tools: list[ToolReport] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "text": self.text,
            "status": self.status,
            "duration_ms": round(self.duration_ms, 3),
            "error": self.error,
            "attempts": self.attempts,
            "tools": [t.to_dict() for t in self.tools],
        }


@dataclass(slots=True)
class TrailResult:
    path: str
    id: str
    title: str
    status: Status
    driver: str
    device: str | None
    duration_ms: float = 0.0
    error: str | None = None
    steps: list[StepResult] = field(default_factory=list)
    exit_code: ExitCode = ExitCode.OK
    tags: list[str] = field(default_factory=list)
    skip_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "driver": self.driver,
            "device": self.device,
            "duration_ms": round(self.duration_ms, 3),
            "error": self.error,
            "tags": self.tags,
            "skip_reason": self.skip_reason,
            "steps": [s.to_dict() for s in self.steps],
        }

    @property
    def failing_step(self) -> StepResult | None:
        return next((s for s in self.steps if s.status in ("failed", "error")), None)


@dataclass(slots=True)
class RunResult:
    trails: list[TrailResult] = field(default_factory=list)
    duration_ms: float = 0.0
    interrupted: bool = False

    def count(self, status: Status) -> int:
        return sum(1 for t in self.trails if t.status == status)

    @property
    def exit_code(self) -> ExitCode:
        if self.interrupted:
            return ExitCode.INTERRUPTED
        return max((t.exit_code for t in self.trails), default=ExitCode.OK)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": RESULTS_VERSION,
            "summary": {
                "passed": self.count("passed"),
                "failed": self.count("failed"),
                "error": self.count("error"),
                "skipped": self.count("skipped"),
                "duration_ms": round(self.duration_ms, 3),
            },
            "exit_code": int(self.exit_code),
            "interrupted": self.interrupted,
            "trails": [t.to_dict() for t in self.trails],
        }
