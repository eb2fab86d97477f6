"""What a recording has finished so far, kept in ``.trailblaze/record/`` until it is written.

The trail file itself is written once, when the trail's recording ends; until then every step
an agent finishes is saved here (atomically, as JSON), so Ctrl-C, a crash or a killed process
loses no work and never touches the trail file. ``trailblaze record --resume`` reads it back:
the saved steps are replayed instead of being asked of the agent again. A saved step is
used only while the trail still has that step, with the same text, at the same place.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.core import jsonsource
from trailblaze.core.errors import Location, UsageError
from trailblaze.core.fileio import write_atomic
from trailblaze.tools.model import ToolCall
from trailblaze.trail.model import Step, Trail
from trailblaze.trail.writer import RecordingEdit

PROGRESS_VERSION = 1


@dataclass(slots=True)
class RecordingProgress:
    """The finished steps of one trail's recording on one driver."""

    path: Path
    trail_path: str
    driver: str
    edits: dict[tuple[str | int, ...], RecordingEdit] = field(default_factory=dict)

    @classmethod
    def location(cls, root: Path, trail: Trail, driver: str) -> Path:
        digest = hashlib.sha256(f"{Path(trail.path).resolve()}\0{driver}".encode()).hexdigest()[:16]
        return root / ".trailblaze" / "record" / f"{digest}.json"

    @classmethod
    def fresh(cls, root: Path, trail: Trail, driver: str) -> RecordingProgress:
        return cls(cls.location(root, trail, driver), str(Path(trail.path).resolve()), driver)

    @classmethod
    def load(cls, root: Path, trail: Trail, driver: str) -> RecordingProgress | None:
        """The saved progress for ``trail``, or None; raises when it no longer fits the trail."""
        path = cls.location(root, trail, driver)
        if not os.path.lexists(path):
            return None
        try:
            data = jsonsource.load_path(path)
        except UsageError as exc:
            raise UsageError(f"cannot read the saved recording: {exc}; delete it to start over") from None
        try:
            edits = [_edit_from_json(saved) for saved in data["steps"]]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise UsageError(
                f"cannot read the saved recording {path}: it is not one trailblaze wrote; delete it to start over"
            ) from None
        progress = cls(path, str(Path(trail.path).resolve()), driver)
        steps = {s.key_path: s for s in trail.all_steps}
        for edit in edits:
            step = steps.get(edit.key_path)
            if step is None or (step.kind, step.text) != (edit.kind, edit.text):
                raise UsageError(
                    f"the trail changed since the interrupted recording: its {edit.label()} "
                    f"{edit.text!r} is no longer there; run without --resume to start over",
                    Location(str(trail.path)),
                )
            progress.edits[edit.key_path] = edit
        return progress

    def exists(self) -> bool:
        return self.path.is_file()

    def calls_for(self, step: Step) -> list[ToolCall] | None:
        edit = self.edits.get(step.key_path)
        return list(edit.calls) if edit is not None else None

    def add(self, edit: RecordingEdit) -> None:
        self.edits[edit.key_path] = edit
        self._save()

    def clear(self) -> None:
        self.edits.clear()
        self.path.unlink(missing_ok=True)

    def _save(self) -> None:
        data = {
            "version": PROGRESS_VERSION,
            "trail": self.trail_path,
            "driver": self.driver,
            "steps": [_edit_to_json(e) for e in self.edits.values()],
        }
        write_atomic(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _edit_to_json(edit: RecordingEdit) -> dict[str, Any]:
    return {
        "key_path": list(edit.key_path),
        "kind": edit.kind,
        "index": edit.index,
        "text": edit.text,
        "classifier": edit.classifier,
        "calls": [{call.name: dict(call.args)} for call in edit.calls],
    }


def _edit_from_json(data: dict[str, Any]) -> RecordingEdit:
    """One saved step; a ``TypeError``/``ValueError``/``KeyError`` when it is not what
    :func:`_edit_to_json` writes."""
    calls = []
    for item in data["calls"]:
        ((name, args),) = item.items()
        if not isinstance(name, str) or not isinstance(args, dict):
            raise TypeError("a call is {name: {arguments}}")
        calls.append(ToolCall(name, args))
    key_path = tuple(data["key_path"])
    if not all(isinstance(part, str | int) for part in key_path) or not isinstance(data["text"], str):
        raise TypeError("a step has a key path and a text")
    return RecordingEdit(
        key_path=key_path,
        kind=data["kind"],
        index=data["index"],
        text=data["text"],
        classifier=data["classifier"],
        calls=tuple(calls),
    )
