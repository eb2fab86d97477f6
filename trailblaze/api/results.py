"""Results of a run, in the shape of the ``--json`` document (README: "Results JSON").

Part of the plugin contract: reporters receive these in ``trailblaze_run_finish``,
``trailblaze_trail_finish``, ``trailblaze_step_finish`` and ``trailblaze_tool_report``. Nothing
here imports the runner.

Keys may be added; none is renamed without a CHANGELOG entry. ``index`` counts steps from 0
with the trailhead excluded (the trailhead has index -1 and kind ``trailhead``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

# Status is part of this module's API: a result's status, as plugins and the results JSON name it
from trailblaze.core.errors import ExitCode
from trailblaze.core.errors import Status as Status
from trailblaze.core.limits import one_line

if TYPE_CHECKING:
    from pathlib import Path

    from trailblaze.trail.model import Trail

#: what a piece of evidence is: a screenshot, the screen's hierarchy (ARIA snapshot on the web,
#: view hierarchy on phones), the page's console messages, a Playwright trace, what an agent did
#: (:mod:`trailblaze.api.agentlog`: JSON Lines, shared by the trail's agent runs)
ArtifactKind = Literal["screenshot", "hierarchy", "console", "trace", "agent-log"]
#: Version of the results JSON document.
RESULTS_VERSION = 1
#: the exit code of a trail in a document written before trails carried their own
_CODE_OF_STATUS = {"failed": ExitCode.FAILED, "incomplete": ExitCode.FAILED, "error": ExitCode.ERROR}


@dataclass(frozen=True, slots=True)
class Artifact:
    """A file of evidence a step or trail left, at ``path`` relative to the run's ``artifacts_dir``."""

    kind: ArtifactKind
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": self.path}

    @classmethod
    def list_from(cls, data: Mapping[str, Any]) -> list[Artifact]:
        """The ``artifacts`` of a part of a results document (entries without a path left out)."""
        return [
            cls(a.get("kind", "screenshot"), a["path"])
            for a in data.get("artifacts") or []
            if isinstance(a, Mapping) and isinstance(a.get("path"), str)
        ]


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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolReport:
        return cls(
            name=str(data.get("name", "")),
            args=dict(data.get("args") or {}),
            status=data.get("status", "passed"),
            duration_ms=float(data.get("duration_ms") or 0),
            delegated_from=list(data.get("delegated_from") or []),
            recordable=bool(data.get("recordable", True)),
            error=data.get("error"),
        )


@dataclass(slots=True)
class AgentReport:
    """Who worked a step out from its text (``record``, ``run --self-heal``) and at what cost."""

    name: str
    status: str
    explanation: str = ""
    model: str | None = None
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: the run's id in the step's ``agent-log`` artifact (None: not written)
    run: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "explanation": self.explanation,
            "model": self.model,
            "turns": self.turns,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "run": self.run,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentReport:
        return cls(
            name=str(data.get("name", "")),
            status=str(data.get("status", "")),
            explanation=str(data.get("explanation") or ""),
            model=data.get("model"),
            turns=int(data.get("turns") or 0),
            prompt_tokens=int(data.get("prompt_tokens") or 0),
            completion_tokens=int(data.get("completion_tokens") or 0),
            run=data.get("run") if isinstance(data.get("run"), str) else None,
        )


def trace_group(kind: str, index: int, text: str) -> str:
    """The title a step's actions are grouped under in the web driver's Playwright trace
    (``step 2: Press the button``, ``trailhead: Sign in``), numbered as the failure messages
    number steps; the HTML report names it beside the step's link to the trace."""
    where = "trailhead" if kind == "trailhead" else f"step {index + 1}"
    return one_line(f"{where}: {text}")[:TRACE_GROUP_MAX]


#: a trace group's title is cut to this many characters (one line of the trace viewer's list)
TRACE_GROUP_MAX = 200


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
    #: set when an agent worked on the step
    agent: AgentReport | None = None
    #: the step's new recording is (or, with --dry-run, would be) written into the trail file
    recorded: bool = False
    #: evidence saved after the step (a failed step's screenshot, hierarchy, console messages)
    artifacts: list[Artifact] = field(default_factory=list)
    #: evidence that could not be saved, and why (``screenshot t/step-2.png: No space left on device``)
    evidence_errors: list[str] = field(default_factory=list)

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
            "agent": self.agent.to_dict() if self.agent is not None else None,
            "recorded": self.recorded,
            "artifacts": [a.to_dict() for a in self.artifacts],
            "evidence_errors": list(self.evidence_errors),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StepResult:
        agent = data.get("agent")
        return cls(
            index=int(data.get("index", 0)),
            kind=str(data.get("kind", "step")),
            text=str(data.get("text", "")),
            status=data.get("status", "passed"),
            duration_ms=float(data.get("duration_ms") or 0),
            error=data.get("error"),
            attempts=int(data.get("attempts") or 1),
            tools=[ToolReport.from_dict(t) for t in data.get("tools") or [] if isinstance(t, Mapping)],
            agent=AgentReport.from_dict(agent) if isinstance(agent, Mapping) else None,
            recorded=bool(data.get("recorded")),
            artifacts=Artifact.list_from(data),
            evidence_errors=[str(e) for e in data.get("evidence_errors") or []],
        )


@dataclass(frozen=True, slots=True)
class FailedStep:
    """The step a run failed at, named as its step result names it: ``index`` (from 0; -1 for
    the trailhead), ``kind`` (``step``, ``verify``, ``trailhead``) and ``text``."""

    index: int
    kind: str
    text: str

    @classmethod
    def of(cls, step: StepResult | None) -> FailedStep | None:
        return None if step is None else cls(step.index, step.kind, step.text)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "text": self.text}

    @classmethod
    def from_dict(cls, data: Any) -> FailedStep | None:
        if not isinstance(data, Mapping) or not isinstance(data.get("index"), int):
            return None
        return cls(int(data["index"]), str(data.get("kind", "step")), str(data.get("text", "")))


@dataclass(slots=True)
class Attempt:
    """A run of a trail that ``--retries`` ran again: what it ended with."""

    status: Status
    error: str | None
    duration_ms: float
    #: the evidence that run left (its steps' and its own), kept beside the final run's
    artifacts: list[Artifact] = field(default_factory=list)
    #: the step it failed at (None: it failed before any step, or ended in an error of its own)
    failing_step: FailedStep | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "error": self.error,
            "duration_ms": round(self.duration_ms, 3),
            "artifacts": [a.to_dict() for a in self.artifacts],
            "failing_step": self.failing_step.to_dict() if self.failing_step is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Attempt:
        return cls(
            data.get("status", "failed"),
            data.get("error"),
            float(data.get("duration_ms") or 0),
            Artifact.list_from(data),
            FailedStep.from_dict(data.get("failing_step")),
        )


@dataclass(frozen=True, slots=True)
class RemoteSession:
    """The session a trail ran in at a remote device service (the ``appium`` driver's device
    cloud, Selenium Grid or Appium server): its id, the service (``browserstack``, ``saucelabs``,
    ``lambdatest``, ``aws-device-farm``, ``selenium-grid``, ``appium``), the hub it was asked of
    (no credentials), its page on the service's site (None where none is known) and its name."""

    id: str
    service: str
    hub: str
    url: str | None = None
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "service": self.service, "hub": self.hub, "url": self.url, "name": self.name}

    @classmethod
    def from_dict(cls, data: Any) -> RemoteSession | None:
        if not isinstance(data, Mapping) or not isinstance(data.get("id"), str):
            return None
        url, name = data.get("url"), data.get("name")
        return cls(
            data["id"],
            str(data.get("service") or ""),
            str(data.get("hub") or ""),
            url if isinstance(url, str) else None,
            name if isinstance(name, str) else None,
        )


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
    #: new recordings were written into the trail file (``record``, ``--save-recording``)
    recording_saved: bool = False
    #: the runs before the one this result describes (``--retries``), oldest first
    attempts: list[Attempt] = field(default_factory=list)
    #: evidence of the whole trail (a Playwright trace)
    artifacts: list[Artifact] = field(default_factory=list)
    #: evidence of the whole trail that could not be saved, and why
    evidence_errors: list[str] = field(default_factory=list)
    #: the session it ran in at a remote device service (the ``appium`` driver); in the JSON only when set
    remote_session: RemoteSession | None = None

    @classmethod
    def for_trail(
        cls, trail: Trail, driver: str, device: str | None, status: Status = "passed", **fields: Any
    ) -> TrailResult:
        """The result of ``trail`` on ``driver``/``device``, named as the trail names itself (path,
        id, title, tags): every result of a run is made here, so reports never disagree."""
        return cls(
            str(trail.path), trail.id, trail.title, status, driver, device, tags=list(trail.config.tags), **fields
        )

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
            "exit_code": int(self.exit_code),
            "tags": self.tags,
            "skip_reason": self.skip_reason,
            "recording_saved": self.recording_saved,
            "attempts": [a.to_dict() for a in self.attempts],
            "artifacts": [a.to_dict() for a in self.artifacts],
            "evidence_errors": list(self.evidence_errors),
            **({"remote_session": self.remote_session.to_dict()} if self.remote_session is not None else {}),
            "steps": [s.to_dict() for s in self.steps],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrailResult:
        """A trail of a results document (checked first: :mod:`trailblaze.reports.resultsdoc`);
        a document written before trails carried an ``exit_code`` gets the one of its status."""
        return cls(
            path=str(data.get("path", "")),
            id=data["id"],
            title=str(data.get("title") or data["id"]),
            status=data["status"],
            driver=str(data.get("driver") or ""),
            device=data.get("device"),
            duration_ms=float(data.get("duration_ms") or 0),
            error=data.get("error"),
            steps=[StepResult.from_dict(s) for s in data.get("steps") or [] if isinstance(s, Mapping)],
            exit_code=exit_code_of(data),
            tags=list(data.get("tags") or []),
            skip_reason=data.get("skip_reason"),
            recording_saved=bool(data.get("recording_saved")),
            attempts=[Attempt.from_dict(a) for a in data.get("attempts") or [] if isinstance(a, Mapping)],
            artifacts=Artifact.list_from(data),
            evidence_errors=[str(e) for e in data.get("evidence_errors") or []],
            remote_session=RemoteSession.from_dict(data.get("remote_session")),
        )

    @property
    def failing_step(self) -> StepResult | None:
        return next((s for s in self.steps if s.status in ("failed", "error")), None)

    def evidence_not_saved(self) -> list[str]:
        """Every piece of this trail's evidence that could not be saved: the steps' (named by
        step), then the trail's own."""
        steps = [
            f"{'trailhead' if s.kind == 'trailhead' else f'step {s.index + 1}'}: {error}"
            for s in self.steps
            for error in s.evidence_errors
        ]
        return [*steps, *self.evidence_errors]


@dataclass(slots=True)
class RunResult:
    trails: list[TrailResult] = field(default_factory=list)
    duration_ms: float = 0.0
    interrupted: bool = False
    #: where this run's snapshots go (a folder of its own per run, unless --artifacts-dir)
    artifacts_dir: str | None = None
    #: reports (``--json``, ``--junit``) that could not be written: the run ends with exit 2
    report_errors: list[str] = field(default_factory=list)
    #: ``--fail-on-flaky``: a trail that passed only on a retry fails the run (exit 1)
    fail_on_flaky: bool = False
    #: trails left out by ``-k``, ``--include-tags``, ``--exclude-tags`` or ``--last-failed``
    deselected: int = 0
    #: ``--shard i/n``: ``(i, n)``, this run being CI shard i of n
    shard: tuple[int, int] | None = None
    #: ``trailblaze merge-reports``: the results documents merged (``path``, ``shard``), None for a run
    merged_from: list[dict[str, Any]] | None = None
    #: ``trailblaze merge-reports``: the evidence files a reporter may read, by the path the merged
    #: result names them with (each checked to be a regular file inside its shard's folder); its
    #: other evidence entries are names only. None for a run (evidence is under ``artifacts_dir``)
    evidence_files: dict[str, Path] | None = None

    def report_failed(self, option: str, path: object, exc: OSError) -> None:
        """A report file could not be written: say so (the other reports are still written)."""
        import sys

        message = f"cannot write {option} {path}: {exc.strerror or exc}"
        self.report_errors.append(message)
        print(f"error: {message}", file=sys.stderr, flush=True)

    def count(self, status: Status) -> int:
        return sum(1 for t in self.trails if t.status == status)

    @property
    def exit_code(self) -> ExitCode:
        if self.interrupted:
            return ExitCode.INTERRUPTED
        worst = max((t.exit_code for t in self.trails), default=ExitCode.OK)
        if self.fail_on_flaky and self.count("flaky"):
            worst = max(worst, ExitCode.FAILED)
        return max(worst, ExitCode.ERROR) if self.report_errors else worst

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": RESULTS_VERSION,
            "summary": {
                "passed": self.count("passed"),
                "failed": self.count("failed"),
                "error": self.count("error"),
                "skipped": self.count("skipped"),
                "healed": self.count("healed"),
                "incomplete": self.count("incomplete"),
                "flaky": self.count("flaky"),
                "deselected": self.deselected,
                "duration_ms": round(self.duration_ms, 3),
            },
            "exit_code": int(self.exit_code),
            "interrupted": self.interrupted,
            "artifacts_dir": self.artifacts_dir,
            **({"shard": {"index": self.shard[0], "total": self.shard[1]}} if self.shard else {}),
            **({"merged_from": self.merged_from} if self.merged_from is not None else {}),
            "trails": [t.to_dict() for t in self.trails],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunResult:
        """A results document (``--json``) as the result reporters take, the reverse of
        :meth:`to_dict`; check an untrusted document first (:mod:`trailblaze.reports.resultsdoc`)."""
        summary = data.get("summary")
        summary = summary if isinstance(summary, Mapping) else {}
        shard = data.get("shard")
        merged_from = data.get("merged_from")
        return cls(
            trails=[TrailResult.from_dict(t) for t in data["trails"]],
            duration_ms=float(summary.get("duration_ms") or 0),
            interrupted=bool(data.get("interrupted")),
            artifacts_dir=data.get("artifacts_dir"),
            deselected=int(summary.get("deselected") or 0),
            shard=(shard["index"], shard["total"]) if isinstance(shard, Mapping) else None,
            merged_from=list(merged_from) if isinstance(merged_from, list) else None,
        )


def exit_code_of(trail: Mapping[str, Any]) -> ExitCode:
    """A results document's trail's exit code: its own, else the one of its status."""
    code = trail.get("exit_code")
    if isinstance(code, int) and code in ExitCode._value2member_map_:
        return ExitCode(code)
    return _CODE_OF_STATUS.get(trail["status"], ExitCode.OK)
