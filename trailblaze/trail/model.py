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

    type: Literal["string", "integer", "number", "boolean"] = Field(
        default="string",
        description="The value's type: a --arg value is converted to it (a boolean: true/false, yes/no, 1/0).",
    )
    default: Any = Field(
        default=None, description="The value when --arg does not give one; without a default, --arg must."
    )
    description: str | None = Field(default=None, description="What the argument is for, for people reading the trail.")

    @property
    def required(self) -> bool:
        return "default" not in self.model_fields_set


#: how the keys only upstream's files use are described
_KEPT = "kept in the file; trailblaze does not use it"


class TrailConfig(BaseModel):
    """The ``config:`` block (both formats; ``app``/``platform``/``driver`` are the legacy keys)."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(
        default=None,
        description="What reports, -k, --shard and --last-failed know the trail by; default: its path under "
        "trails_dir, without .trail.yaml.",
    )
    title: str | None = Field(
        default=None, description="What the trail checks, in a line: the terminal and reports show it (default: id)."
    )
    description: str | None = Field(default=None, description=f"What the trail checks, at more length; {_KEPT}.")
    target: str | None = Field(
        default=None,
        description="The app target the trail is for (trailblaze.yaml's targets:, an upstream workspace's): its "
        "URL, apps and tools. Wins over --target and target: in trailblaze.yaml.",
    )
    devices: dict[str, str] = Field(
        default_factory=dict,
        description="The devices the trail is for: device classifier → driver (a key, or upstream's name such "
        "as PLAYWRIGHT_NATIVE). Its first driver of this project's runs it when neither --driver nor "
        "trailblaze.yaml's driver: or platform: says; on a platform none of the classifiers names, the trail "
        "is skipped.",
    )
    skip: dict[str, str] | None = Field(
        default=None,
        description="Where not to run the trail: device classifier → the reason the report gives. A classifier "
        "skips its whole platform (android-tablet: every Android device).",
    )
    tags: list[str] = Field(
        default_factory=list,
        description="Words to pick trails by (run --include-tags, --exclude-tags; pytest's -k); reports list them.",
    )
    priority: str | int | None = Field(default=None, description=f"Upstream's priority of the trail; {_KEPT}.")
    context: str | None = Field(
        default=None,
        description="Text handed to an agent that works on this trail (record, --self-heal, trailblaze mcp), "
        "after the target's system prompt.",
    )
    memory: dict[str, Any] = Field(
        default_factory=dict,
        description="Values {{memory.KEY}} holds when the trail starts; rememberText and other memory tools "
        "add to them.",
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description=f"Anything else to keep with the trail; {_KEPT}."
    )
    args: dict[str, ArgDecl] = Field(
        default_factory=dict,
        description="The trail's parameters, {{args.NAME}} in its steps and calls, given with --arg NAME=VALUE "
        "(or trailblaze.yaml's args:).",
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=MAX_WAIT_SECONDS,
        allow_inf_nan=False,
        description="Seconds each action and check waits for the UI: wins over --timeout and trailblaze.yaml's "
        "timeout:, a call's timeoutMs wins over it.",
    )
    app: str | None = Field(default=None, description=f"The legacy format's app id; {_KEPT} (targets name apps).")
    platform: str | None = Field(
        default=None,
        description="The legacy format's platform (android, ios, web): the device its recordings are for, and "
        "the driver when neither --driver, driver: nor devices: says.",
    )
    driver: str | None = Field(
        default=None,
        description="The legacy format's driver (upstream's name, ANDROID_ONDEVICE_INSTRUMENTATION, or a key): "
        "it runs the trail when neither --driver, driver: nor devices: says.",
    )


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
    #: runs after an earlier step failed too (a Maestro flow's ``onFlowComplete`` commands)
    always: bool = False

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
