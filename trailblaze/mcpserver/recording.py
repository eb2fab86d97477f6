"""What an MCP session records, and the trail file it becomes.

A recording is a list of steps, each with its text (the ``step`` objective, the ``reason`` a
client gave a device tool call, or a description of the call) and the recordable,
non-delegating calls Trailblaze executed for it — exactly what a recording in a trail file
holds, so ``trailblaze run`` replays the session as it went. A step with no calls (one
``trailEdit`` inserted, or cleared) is saved as text alone: a replay needs an agent for it.

Saving writes a new file in upstream's unified format (``config:`` / ``trail:``, recordings
keyed by device classifier). The file is built from a skeleton of the steps, then the
recordings are put in by the same writer ``trailblaze record`` uses, which checks that the
result reads back as intended before anything is written, and writes atomically.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.core.fileio import write_atomic
from trailblaze.tools.model import ToolCall

StepKind = Literal["step", "verify"]
#: file names ``trail(action=SAVE, name=…)`` may produce: letters, digits, ``-``, ``_``, ``.``
#: what a file name keeps: letters and digits of any script, '_', '.' and '-'
_SLUG_UNSAFE = re.compile(r"[^\w.-]+")


@dataclass(slots=True)
class RecordedStep:
    kind: StepKind
    text: str
    classifier: str
    calls: list[ToolCall]
    #: False for a step that ran a tool no recording can hold (one needing an agent's judgement
    #: every time): it is saved as ``recordable: false`` with no recording, so a replay asks for
    #: an agent instead of passing without the check
    recordable: bool = True

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "text": self.text,
            "classifier": self.classifier,
            "tools": [{call.name: dict(call.args)} for call in self.calls],
        }
        if not self.recordable:
            out["recordable"] = False
        return out


@dataclass(slots=True)
class Recording:
    """One recording session (``session(action=START)`` starts a new one)."""

    title: str | None = None
    id: str = field(default_factory=lambda: f"rec-{uuid.uuid4().hex[:10]}")
    started: float = field(default_factory=time.time)
    steps: list[RecordedStep] = field(default_factory=list)
    active: bool = True
    #: where this recording was last saved (a later SAVE of the same name overwrites it)
    saved_to: Path | None = None

    def add(self, step: RecordedStep) -> int:
        self.steps.append(step)
        return len(self.steps)

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "recording": self.active,
            "steps": len(self.steps),
            "saved_to": str(self.saved_to) if self.saved_to else None,
        }


def slug(name: str) -> str:
    """A file name for a trail called ``name`` (``Log in / out`` → ``Log-in-out``, ``Café
    crème`` → ``Café-crème``)."""
    import unicodedata

    text = _SLUG_UNSAFE.sub("-", unicodedata.normalize("NFC", name.strip())).strip("-.")
    if not text:
        raise UsageError(f"{name!r} makes no file name: use letters, digits, '-' or '_'")
    text = text[:100]
    while len(text.encode("utf-8")) > 200:  # file names are at most 255 bytes, with ".trail.yaml"
        text = text[:-1]
    return text


def trail_path(trails_dir: Path, name: str) -> Path:
    """Where ``trail(action=SAVE, name=…)`` writes: ``<trails_dir>/<name>.trail.yaml``; a name
    with ``/`` makes folders below the trails folder (never outside it)."""
    parts = [slug(part) for part in name.replace("\\", "/").split("/") if part.strip() not in ("", ".", "..")]
    if not parts:
        raise UsageError(f"{name!r} makes no file name")
    path = trails_dir.joinpath(*parts[:-1], parts[-1] + ".trail.yaml")
    if not path.resolve().is_relative_to(trails_dir.resolve()):
        raise UsageError(f"{name!r} would be outside the trails folder {trails_dir}")
    return path


def render(
    title: str, steps: Sequence[RecordedStep], path: Path, *, target: str | None = None, ran_in: Path | None = None
) -> str:
    """The text of a trail file holding ``steps`` (checked to read back as intended).

    ``ran_in`` is the folder the session's calls ran relative to: a ``runTrail`` path is
    rewritten to be relative to the saved file's folder instead, so it finds the same trail."""
    from trailblaze.trail.loader import load_trail
    from trailblaze.trail.writer import RecordingEdit, apply_edits, check_round_trip

    if not steps:
        raise UsageError("nothing is recorded yet: connect a device and call step() or a device tool first")
    lines = ["config:", f"  title: {_quoted(title)}"]
    if target:
        lines.append(f"  target: {_quoted(target)}")
    lines.append("trail:")
    for step in steps:
        lines.append(f"  - {step.kind}: {_quoted(step.text)}")
        if not step.recordable:
            lines.append("    recordable: false")
    skeleton = "\n".join(lines) + "\n"
    try:
        trail = load_trail(path, text=skeleton, environ=_EveryVariable(), require_args=False)
    except TrailblazeError as exc:
        raise TrailblazeError(f"internal error: the trail skeleton does not load: {exc}") from None
    edits = [
        RecordingEdit.for_step(trail, parsed, recorded.classifier, _relocated(recorded.calls, ran_in, path.parent))
        for parsed, recorded in zip(trail.steps, steps, strict=True)
        # a step without calls (trailEdit INSERT, CLEAR_RECORDING, a `recordable: false` step) has no recording
        if recorded.calls and recorded.recordable
    ]
    text = apply_edits(skeleton, edits, str(path))
    check_round_trip(path, skeleton, text, edits)
    return text


def _relocated(calls: Sequence[ToolCall], ran_in: Path | None, folder: Path) -> list[ToolCall]:
    if ran_in is None:
        return list(calls)
    out = []
    for call in calls:
        target = call.args.get("path")
        if (
            call.name == "runTrail"
            and isinstance(target, str)
            and not Path(target).is_absolute()
            and "{{" not in target
        ):
            relative = os.path.relpath((ran_in / target).resolve(), folder.resolve())
            call = call.with_args({**call.args, "path": Path(relative).as_posix()})
        out.append(call)
    return out


def save(path: Path, text: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


class _EveryVariable(dict[str, str]):
    """An environment in which every ``${VAR}`` is set: a step's text may name a variable the
    session used (``web_fillSecret {"value": "${PASSWORD}"}``); the file is checked, not run."""

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: str) -> str:
        return ""


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar: JSON's string syntax is a subset of it."""
    return json.dumps(text, ensure_ascii=False)
