"""A results JSON document read back (``merge-reports``' inputs): checked before it is used.

A shard's report comes from another machine, and maybe from a job nobody reviewed. Every field
the merge reads has the type the README's "Results JSON" gives it (no coercion: ``"3"`` is not
a number, ``1`` is not ``true``); every number anywhere in the document is finite (``NaN`` and
``1e999``, which JSON parsers read as infinity, would be written back as ``NaN`` and
``Infinity``, which no JSON reader takes) and every duration is at most
:data:`MAX_DURATION_MS`, so sums stay finite. A problem is a usage error naming the file and
the field. Keys this trailblaze does not know are kept (documents gain keys, README). Messages
(errors, skip reasons, agents' explanations) are cut to the run's own bound,
:data:`trailblaze.core.limits.MESSAGE_CHARS`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trailblaze.core.errors import ErrorList, Location, UsageError
from trailblaze.core.limits import shorten

#: the longest duration a report may give (ms): about 31 years
MAX_DURATION_MS = 1e12
#: problems listed for one document before "… and N more"
MAX_PROBLEMS = 10
#: the keys holding messages, cut as a run cuts them
_MESSAGE_KEYS = frozenset({"error", "skip_reason", "explanation"})


def check(document: dict[str, Any], path: Path) -> None:
    """Raise a :class:`~trailblaze.core.errors.UsageError` (or several) naming ``path`` and the field
    when ``document`` is not a results document this trailblaze can merge; cut its messages."""
    from pydantic import ValidationError

    from trailblaze.core.validation import describe_errors

    problems = [UsageError(f"{field}: expected a finite number, got {value}") for field, value in _non_finite(document)]
    if not problems:
        try:
            _model().model_validate(document)
        except ValidationError as exc:
            problems = describe_errors(exc)
    if problems:
        where = str(path)
        located = [UsageError(f"not a results JSON document ({p.message})", Location(where)) for p in problems]
        if len(located) > MAX_PROBLEMS:
            more = len(located) - MAX_PROBLEMS
            located = [*located[:MAX_PROBLEMS], UsageError(f"… and {more} more", Location(where))]
        raise located[0] if len(located) == 1 else ErrorList(located)
    _cut_messages(document)


def _non_finite(document: Any) -> Iterator[tuple[str, str]]:
    """Where ``document`` holds ``NaN`` or an infinity (a field path such as ``trails.0.duration_ms``),
    walked without recursion: the document's depth is the reader's to bound, not the stack's."""
    pending: list[tuple[str, Any]] = [("", document)]
    while pending:
        where, value = pending.pop()
        if isinstance(value, float) and not math.isfinite(value):
            yield where or "(the document)", "NaN" if math.isnan(value) else "one too large (it reads as infinity)"
        elif isinstance(value, dict):
            pending.extend((f"{where}.{key}" if where else str(key), item) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend((f"{where}.{index}" if where else str(index), item) for index, item in enumerate(value))


def _cut_messages(document: Any) -> None:
    pending: list[Any] = [document]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _MESSAGE_KEYS and isinstance(item, str):
                    value[key] = shorten(item)
                elif key == "evidence_errors" and isinstance(item, list):
                    value[key] = [shorten(e) if isinstance(e, str) else e for e in item]
                else:
                    pending.append(item)
        elif isinstance(value, list):
            pending.extend(value)


@functools.cache
def _model() -> Any:
    """The shape of a results document (README, "Results JSON"), made on first use: pydantic
    is imported by ``merge-reports`` only. Keys are optional, as documents written before a key
    was added lack it; a key that is there has its type."""
    from typing import Annotated, Literal

    from pydantic import BaseModel, ConfigDict, Field

    from trailblaze.api.results import RESULTS_VERSION

    Status = Literal["passed", "failed", "error", "skipped", "healed", "incomplete", "flaky"]
    Duration = Annotated[float, Field(ge=0, le=MAX_DURATION_MS)]
    Count = Annotated[int, Field(ge=0)]
    Text = str | None

    class Part(BaseModel):
        model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)

    class Artifact(Part):
        kind: str
        path: str

    class Evidence(Part):
        artifacts: list[Artifact] = Field(default_factory=list)
        evidence_errors: list[str] = Field(default_factory=list)

    class Tool(Part):
        name: str = ""
        args: dict[str, Any] = Field(default_factory=dict)
        status: Status = "passed"
        duration_ms: Duration = 0
        delegated_from: list[str] = Field(default_factory=list)
        recordable: bool = True
        error: Text = None

    class Agent(Part):
        name: str = ""
        status: str = ""
        explanation: Text = None
        model: Text = None
        turns: Count = 0
        prompt_tokens: Count = 0
        completion_tokens: Count = 0
        total_tokens: Count = 0

    class Step(Evidence):
        index: int = 0
        kind: str = "step"
        text: str = ""
        status: Status = "passed"
        duration_ms: Duration = 0
        error: Text = None
        attempts: Annotated[int, Field(ge=1)] = 1
        tools: list[Tool] = Field(default_factory=list)
        agent: Agent | None = None
        recorded: bool = False

    class FailedStep(Part):
        index: int
        kind: str = "step"
        text: str = ""

    class Attempt(Evidence):
        status: Status = "failed"
        error: Text = None
        duration_ms: Duration = 0
        failing_step: FailedStep | None = None

    class Trail(Evidence):
        path: str = ""
        id: str
        title: Text = None
        status: Status
        driver: Text = None
        device: Text = None
        duration_ms: Duration = 0
        error: Text = None
        exit_code: int = 0
        tags: list[str] = Field(default_factory=list)
        skip_reason: Text = None
        recording_saved: bool = False
        attempts: list[Attempt] = Field(default_factory=list)
        steps: list[Step] = Field(default_factory=list)

    class Summary(Part):
        duration_ms: Duration = 0
        deselected: Count = 0

    class Shard(Part):
        index: Annotated[int, Field(ge=1)]
        total: Annotated[int, Field(ge=1)]

    class Document(Part):
        version: Literal[RESULTS_VERSION]  # type: ignore[valid-type]
        summary: Summary = Summary()
        exit_code: int = 0
        interrupted: bool = False
        artifacts_dir: Text = None
        shard: Shard | None = None
        trails: list[Trail]

    return Document
