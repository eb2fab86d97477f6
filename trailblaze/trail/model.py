"""The trail model: what a trail file means, independent of which of the two formats it used."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trailblaze.core.errors import Location
from trailblaze.core.limits import MAX_WAIT_SECONDS
from trailblaze.tools.model import ToolCall

StepKind = Literal["step", "verify", "trailhead"]
ANY_CLASSIFIER = "*"


class ArgDecl(BaseModel):
    """A trail parameter: ``config.args.name: {type, default, description}``. No default = required."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["string", "integer", "number", "boolean"] = "string"
    default: Any = None
    description: str | None = None

    @property
    def required(self) -> bool:
        return "default" not in self.model_fields_set


class TrailConfig(BaseModel):
    """The ``config:`` block (both formats; ``app``/``platform``/``driver`` are the legacy keys)."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    title: str | None = None
    description: str | None = None
    target: str | None = None
    devices: dict[str, str] = Field(default_factory=dict)
    skip: dict[str, str] | None = None
    tags: list[str] = Field(default_factory=list)
    priority: str | int | None = None
    context: str | None = None
    memory: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    args: dict[str, ArgDecl] = Field(default_factory=dict)
    timeout: float | None = Field(
        default=None, gt=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False, description="seconds actions and assertions wait"
    )
    app: str | None = None
    platform: str | None = None
    driver: str | None = None


def lookup_order(classifiers: Sequence[str]) -> list[str]:
    """Classifiers as written, then their shorter prefixes (``android-phone`` → ``android``)."""
    keys = list(classifiers)
    for classifier in classifiers:
        parts = classifier.split("-")
        while len(parts) > 1:
            parts.pop()
            key = "-".join(parts)
            if key not in keys:
                keys.append(key)
    return keys


def classifier_to_record(step: Step, trail: Trail, classifiers: Sequence[str]) -> str:
    """Where a new recording for this device goes: under the key an existing recording for it
    was found (it is replaced), else a classifier the trail declares in ``config.devices``,
    else the device's most general classifier (``android`` rather than ``android-phone``), so
    other devices of the platform find it too."""
    found = step.recording_key(classifiers)
    if found is not None:
        return found
    order = lookup_order(classifiers)
    for declared in trail.config.devices:
        if declared in order:
            return declared
    return order[-1]


@dataclass(slots=True)
class Step:
    """One step of a trail. ``recordings`` is None when the step has no recording at all."""

    index: int
    kind: StepKind
    text: str | None
    recordings: dict[str, list[ToolCall]] | None
    location: Location
    recordable: bool = True
    max_retries: int = 0
    #: where the step's mapping is in the YAML document (keys and indexes), for writing it back
    key_path: tuple[str | int, ...] = ()

    @property
    def label(self) -> str:
        if self.text:
            return self.text
        calls = next(iter(self.recordings.values()), []) if self.recordings else []
        return "tools: " + ", ".join(c.name for c in calls) if calls else "(empty step)"

    def recording_for(self, classifiers: Sequence[str]) -> list[ToolCall] | None:
        """The recording for a device with these classifiers (most specific first).

        Lookup order: each classifier as written, then its shorter prefixes
        (``android-phone`` → ``android``), then a recording for any device (legacy files).
        """
        key = self.recording_key(classifiers)
        return None if key is None or self.recordings is None else self.recordings[key]

    def recording_key(self, classifiers: Sequence[str]) -> str | None:
        """The key of the recording :meth:`recording_for` finds, or None."""
        if not self.recordings:
            return None
        for key in lookup_order(classifiers):
            if key in self.recordings:
                return key
        return ANY_CLASSIFIER if ANY_CLASSIFIER in self.recordings else None

    def all_calls(self) -> list[ToolCall]:
        return [c for calls in (self.recordings or {}).values() for c in calls]


@dataclass(slots=True)
class Trail:
    path: Path
    id: str
    config: TrailConfig
    steps: list[Step]
    trailhead: Step | None = None
    format: Literal["current", "legacy"] = "current"
    arg_values: dict[str, Any] = field(default_factory=dict)
    #: where the ``config:`` mapping is in the file (keys and indexes), and how to find a part of it
    config_key_path: tuple[str | int, ...] = ("config",)
    locate: Callable[[Sequence[str | int]], Location] | None = field(default=None, compare=False, repr=False)

    def config_location(self, *keys: str | int) -> Location:
        """Where ``config.<keys>`` is written (the file when that is unknown)."""
        if self.locate is None:
            return Location(str(self.path))
        return self.locate((*self.config_key_path, *keys))

    @property
    def title(self) -> str:
        return self.config.title or self.id

    @property
    def all_steps(self) -> list[Step]:
        return ([self.trailhead] if self.trailhead else []) + self.steps
