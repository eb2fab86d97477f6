"""Check a trail's tool calls against a tool registry before anything runs.

Unknown tools and arguments that do not fit a tool's schema are reported with the file and
line of the call. Arguments holding ``{{memory.x}}`` are only known when the step runs, so a
schema complaint about such a field waits until then.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.core.interpolate import has_references, resolver, substitute
from trailblaze.core.sourcefile import file_kind
from trailblaze.tools.model import ToolArgumentError, ToolCall, ToolSpec, strip_reason
from trailblaze.tools.registry import ToolRegistry, UnknownToolError
from trailblaze.trail.model import Step, Trail


def check_trail_tools(
    trail: Trail,
    registry: ToolRegistry,
    classifiers: Sequence[str] | None,
    *,
    driver: str | None = None,
    allow_unknown: bool = False,
    environ: Mapping[str, str] | None = None,
) -> list[TrailblazeError]:
    """Every problem with the calls ``trail`` would make.

    With ``classifiers``, only the recording a device with those classifiers replays is checked;
    with None, every recording in the file is. ``allow_unknown`` defers unknown names (tools
    that MCP servers will only offer once a session starts).
    """
    env = os.environ if environ is None else environ
    problems: list[TrailblazeError] = []
    unknown: dict[str, UnknownToolError] = {}  # each unknown name's first error
    for step in trail.all_steps:
        calls = _calls_to_check(step, classifiers)
        for call in calls:
            spec = registry.get(call.name)
            if spec is None:
                if not allow_unknown:
                    problems.extend(_unknown_tool(registry, call, driver, unknown))
                continue
            if spec.unavailable is not None:
                problems.append(UsageError(f"{call.name} {spec.unavailable}", call.location))
                continue
            if step.kind == "verify" and not _verifies(call, spec):
                problems.append(
                    UsageError(
                        f"verify steps may only use verification (read-only) tools; {call.name!r} is not one",
                        call.location,
                    )
                )
            problems.extend(_check_args(call, spec, trail, env))
    return problems


def _verifies(call: ToolCall, spec: ToolSpec) -> bool:
    """Whether a call may be a ``verify:`` step's: a verification tool, a read-only query, or a
    call that only looks (``mobile_maestro`` with only assertions)."""
    return spec.metadata.verification or spec.metadata.query or spec.implementation.verifies(call.args)


def _calls_to_check(step: Step, classifiers: Sequence[str] | None) -> list[ToolCall]:
    """The recording a device with ``classifiers`` replays, plus the more specific ones of
    the same family (``android-phone`` for ``android``), which a device may still pick."""
    if classifiers is None:
        return step.all_calls()
    chosen = step.recording_for(classifiers) or []
    specific = [
        call
        for key, calls in (step.recordings or {}).items()
        if calls is not chosen and any(key.startswith(f"{c}-") for c in classifiers)
        for call in calls
    ]
    return [*chosen, *specific]


def _check_args(call: ToolCall, spec: object, trail: Trail, env: Mapping[str, str]) -> list[TrailblazeError]:
    raw = strip_reason(call.args)
    args = substitute(raw, resolver(trail.arg_values, None, env))
    try:
        spec.validate(args)  # type: ignore[attr-defined]
    except ToolArgumentError as exc:
        problems: list[TrailblazeError] = []
        for field, message in exc.problems:
            top = field.split(".", 1)[0]
            if top in raw and has_references(raw[top], "memory"):
                continue  # decided when the step runs
            key_path = [p if not p.isdigit() else int(p) for p in field.split(".")] if field else []
            where = call.arg_location(key_path) if field and top in raw else call.location
            if message == "unknown argument" and field:
                message += _did_you_mean(field, getattr(spec, "input_schema", None))
            problems.append(UsageError(f"{call.name}: {field + ': ' if field else ''}{message}", where))
        return problems
    except TrailblazeError as exc:  # the tool itself cannot check (an MCP server's broken schema)
        if exc.location is None:  # said where the trail calls it
            exc.location = call.location
        return [exc]
    if call.name == "runTrail" and isinstance(args.get("path"), str) and not has_references(raw.get("path"), "memory"):
        # the shared trail is a file next to this one: one that is not there is known now
        shared = Path(trail.path).parent / args["path"]
        problem = _not_a_trail_file(shared)
        if problem is not None:
            return [UsageError(f"runTrail: {args['path']}: {problem} ({shared})", call.arg_location(["path"]))]
    return []


def _did_you_mean(field: str, schema: Any) -> str:
    """`` (did you mean 'text'?)`` for a misspelt argument (``txt``, or ``nodeSelector.web.ariaRol``):
    the nearest key the schema allows at that place, if one is near."""
    import difflib

    *parents, name = field.split(".")
    known = _keys_at(schema, parents, schema)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _keys_at(schema: Any, path: list[str], root: Any) -> list[str]:
    """The property names a JSON Schema allows at ``path`` (object keys, and list indexes as
    digits), following ``$ref`` into ``$defs`` and every branch of ``anyOf``/``oneOf``."""
    if not isinstance(schema, dict):
        return []
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and isinstance(root, dict):
        return _keys_at(root.get("$defs", {}).get(ref.rsplit("/", 1)[-1]), path, root)
    branches = [b for key in ("anyOf", "oneOf") for b in schema.get(key) or []]
    if branches:
        return sorted({k for branch in branches for k in _keys_at(branch, path, root)})
    if not path:
        return list(schema.get("properties") or {})
    head, *rest = path
    if head.isdigit():
        return _keys_at(schema.get("items"), rest, root)
    return _keys_at((schema.get("properties") or {}).get(head), rest, root)


def _not_a_trail_file(path: Path) -> str | None:
    """Why ``path`` cannot be a trail file (``/dev/zero`` is there: it is a device), or None."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "file not found"
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    return None if stat.S_ISREG(mode) else f"not a regular file ({file_kind(mode)})"


def _unknown_tool(
    registry: ToolRegistry, call: ToolCall, driver: str | None, first: dict[str, UnknownToolError]
) -> list[UsageError]:
    """The error of a call to a tool ``registry`` does not have. The nearest names are looked
    for once a name: a misspelt name in each of the 116,000 steps of a 10 MB trail spent 12 of
    its 16 s in difflib, finding the same names each time."""
    known = first.get(call.name)
    if known is not None:
        return [known.at(call.location)]
    try:
        registry.require(call.name, call.location, driver=driver)
    except UnknownToolError as exc:
        first[call.name] = exc
        return [exc]
    except UsageError as exc:
        return [exc]
    return []
