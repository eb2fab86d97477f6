"""JSON Schemas (draft 2020-12) for trail files and trailblaze.yaml, for editors.

Both are generated, never written by hand: trailblaze.yaml's from the model that validates it
(:func:`trailblaze.project.config.file_model`, so plugins' ``addini`` settings and ``add_section``
sections are in it), a trail file's from :class:`~trailblaze.trail.model.TrailConfig` and the
project's tool registry — every tool a recording may call, with its arguments' schema. Point
yaml-language-server at them with ``# yaml-language-server: $schema=trail.schema.json``.

The schema is what an editor can check; ``trailblaze validate`` checks more (drivers, which
tools a device offers, ``{{args.…}}`` values, verification-only tools in ``verify:`` steps).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser
    from trailblaze.tools.model import ToolSpec

DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: kept in the file beside a call's arguments, never passed to the tool
_REASON = {"type": "string", "description": "Why this call was made (kept in the file, not passed to the tool)."}

#: what each key of a trail file means, where it is not a model's field (the file's own shape)
KEYS = {
    "config": "The trail's settings: its title, id, tags, args, target, devices, timeout…",
    "trailhead": "The step that brings the app to where the trail starts (a launch, a sign-in), run before the "
    "trail's steps: a recording of exactly one call per device.",
    "trailhead.step": "What the trailhead does, in plain language.",
    "trailhead.recording": "The one call per device classifier that does it.",
    "trail": "The steps, in order: `- step:` does something, `- verify:` checks something.",
    "step": "What the step does, in plain language: what reports show, and what an agent works from when the step "
    "has no recording, or (with --self-heal) when its recording fails.",
    "verify": "What the step checks, in plain language; its recording may hold only checks and queries (tools "
    "that change nothing).",
    "recording": "The calls that do the step, by device classifier (web, android, ios, android-phone…; a "
    "classifier also finds its shorter prefix's). Absent: an agent must work the step out (trailblaze record); "
    "a classifier with no calls: nothing to do there.",
    "recordable": "false: an agent works the step out on every run and it is never recorded, for a step that "
    "needs judgement a recording cannot replay (run it with --self-heal).",
    "maxRetries": "How many more times the step's recording is replayed when it fails, before the step fails.",
    "legacy.config": "The trail's settings: the keys of the current format's config:.",
    "legacy.tools": "Tool calls without step text, run as a step of their own.",
    "legacy.prompts": "Steps: `- step:` or `- verify:` each, with its recording under `tools:`.",
    "legacy.recording": "The step's recording: its calls under `tools:`, for the device the file is for (its "
    "name, android-phone.trail.yaml, else config.platform; else any device).",
    "legacy.recording.tools": "The step's tool calls.",
}


def config_schema(parser: Parser | None) -> dict[str, Any]:
    """The schema of trailblaze.yaml, with every plugin's settings and sections."""
    from trailblaze.project.config import file_model

    schema = file_model(parser).model_json_schema(by_alias=False)
    # a plugin's section takes camelCase keys only when its model says so (an alias generator)
    literal = {
        section.model.__name__
        for section in (parser.sections.values() if parser is not None else ())
        if not section.model.model_config.get("alias_generator")
    }
    defs = schema.get("$defs", {})
    kept = {name: defs.pop(name) for name in list(defs) if name in literal}
    _accept_camel_case(schema)
    defs.update(kept)
    return {"$schema": DRAFT, **schema, "title": "trailblaze.yaml"}


def _accept_camel_case(node: Any) -> None:
    """trailblaze.yaml takes every key as written in the docs (``trails_dir``) and in camelCase
    (``trailsDir``, upstream's spelling): the schema says so for every object (but the sections
    of plugins whose models take their keys as written)."""
    from pydantic.alias_generators import to_camel

    if isinstance(node, list):
        for item in node:
            _accept_camel_case(item)
        return
    if not isinstance(node, dict):
        return
    for value in list(node.values()):
        _accept_camel_case(value)
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return
    for name, value in list(properties.items()):
        properties.setdefault(to_camel(name), value)
    either = [n for n in node.get("required", []) if to_camel(n) != n]
    if either:
        node["required"] = [n for n in node["required"] if n not in either]
        node.setdefault("allOf", []).extend({"anyOf": [{"required": [n]}, {"required": [to_camel(n)]}]} for n in either)


def trail_schema(tools: Iterable[ToolSpec]) -> dict[str, Any]:
    """The schema of a trail file in either format, its calls checked against ``tools``."""
    from trailblaze.trail.model import TrailConfig

    config = TrailConfig.model_json_schema()
    defs: dict[str, Any] = dict(config.pop("$defs", {}))
    defs["config"] = config
    defs["call"] = _call_schema(tools, defs)
    defs["calls"] = {"type": "array", "items": {"$ref": "#/$defs/call"}}
    defs["recording"] = {
        "type": "object",
        "description": "Tool calls by device classifier (web, android, android-phone, ios, …).",
        "additionalProperties": {"anyOf": [{"$ref": "#/$defs/calls"}, {"$ref": "#/$defs/call"}]},
    }
    step_common = {
        "recording": {"$ref": "#/$defs/recording", "description": KEYS["recording"]},
        "recordable": {"type": "boolean", "default": True, "description": KEYS["recordable"]},
        "maxRetries": {"type": "integer", "minimum": 0, "default": 0, "description": KEYS["maxRetries"]},
    }
    defs["step"] = {
        "type": "object",
        "description": "One step: `step:` (something to do) or `verify:` (something to check).",
        "oneOf": [{"required": ["step"]}, {"required": ["verify"]}],
        "properties": {
            "step": {"type": "string", "description": KEYS["step"]},
            "verify": {"type": "string", "description": KEYS["verify"]},
            **step_common,
        },
        "additionalProperties": False,
    }
    defs["current"] = {
        "type": "object",
        "description": "A trail file: its settings, a trailhead, and its steps.",
        "properties": {
            "config": {"$ref": "#/$defs/config", "description": KEYS["config"]},
            "trailhead": {
                "type": "object",
                "description": KEYS["trailhead"],
                "properties": {
                    "step": {"type": "string", "description": KEYS["trailhead.step"]},
                    "recording": {"$ref": "#/$defs/recording", "description": KEYS["trailhead.recording"]},
                },
                "additionalProperties": False,
            },
            "trail": {
                "type": "array",
                "minItems": 1,
                "items": {"$ref": "#/$defs/step"},
                "description": KEYS["trail"],
            },
        },
        "required": ["trail"],
        "additionalProperties": False,
    }
    defs["legacy"] = _legacy_schema()
    return {
        "$schema": DRAFT,
        "title": "trailblaze trail file",
        "anyOf": [{"$ref": "#/$defs/current"}, {"$ref": "#/$defs/legacy"}],
        "$defs": defs,
    }


def _call_schema(tools: Iterable[ToolSpec], defs: dict[str, Any]) -> dict[str, Any]:
    """A call: a tool's name alone, or ``{name: {arguments}}`` with exactly one name."""
    properties: dict[str, Any] = {}
    names: list[str] = []
    for spec in sorted(tools, key=lambda s: s.name):
        arguments = _hoist_defs(spec.name, dict(spec.input_schema or {"type": "object"}), defs)
        arguments["properties"] = {"reason": _REASON, "reasoning": _REASON, **arguments.get("properties", {})}
        description = arguments.pop("description", None) or spec.description or f"The tool {spec.name}."
        no_required = not arguments.get("required")
        call = {"anyOf": [arguments, {"type": "null"}]} if no_required else arguments
        properties[spec.name] = {"description": description, **call}  # where an editor looks for it
        names.append(spec.name)
    return {
        "anyOf": [
            {"type": "string", "enum": names},
            {
                "type": "object",
                "properties": properties,
                "additionalProperties": False,
                "minProperties": 1,
                "maxProperties": 1,
            },
        ]
    }


def _hoist_defs(tool: str, arguments: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with its ``$defs`` moved to the root's (where its ``#/$defs/…`` refs point);
    a name another tool defines differently is renamed ``<tool>.<name>``."""
    import json

    own = arguments.pop("$defs", {})
    renamed = {name: f"{tool}.{name}" for name, d in own.items() if defs.get(name, d) != d}
    if renamed:
        text = json.dumps([arguments, own])
        for name, new in renamed.items():
            text = text.replace(f'"#/$defs/{name}"', f'"#/$defs/{new}"')
        arguments, own = json.loads(text)
    for name, definition in own.items():
        defs[renamed.get(name, name)] = definition
    return arguments


def _legacy_schema() -> dict[str, Any]:
    prompt = {
        "type": "object",
        "oneOf": [{"required": ["step"]}, {"required": ["verify"]}],
        "properties": {
            "step": {"type": "string", "description": KEYS["step"]},
            "verify": {"type": "string", "description": KEYS["verify"]},
            "recording": {
                "type": "object",
                "description": KEYS["legacy.recording"],
                "properties": {"tools": {"$ref": "#/$defs/calls", "description": KEYS["legacy.recording.tools"]}},
                "additionalProperties": False,
            },
            "recordable": {"type": "boolean", "default": True, "description": KEYS["recordable"]},
            "maxRetries": {"type": "integer", "minimum": 0, "default": 0, "description": KEYS["maxRetries"]},
        },
        "additionalProperties": False,
    }
    item = {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "properties": {
            "config": {"$ref": "#/$defs/config", "description": KEYS["legacy.config"]},
            "tools": {"$ref": "#/$defs/calls", "description": KEYS["legacy.tools"]},
            "prompts": {"type": "array", "items": prompt, "description": KEYS["legacy.prompts"]},
        },
        "additionalProperties": False,
    }
    return {
        "type": "array",
        "description": "A trail file in upstream's legacy format: a list of `- config:`, `- tools:` and "
        "`- prompts:` items.",
        "items": item,
    }
