"""One tool described for a person (``trailblaze tools NAME``, the docs' tool pages): what it
does, where it runs, each argument with its type, default and description, and an example call
as a trail's recording holds it.

Everything is read from the tool's spec — its input schema and metadata — so a tool from a
plugin, a YAML file or an MCP server is described the same way as a built-in one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trailblaze.tools.model import ToolMetadata, ToolSpec

#: the short flags ``trailblaze tools`` shows, in order, with what each means
FLAGS: tuple[tuple[str, str], ...] = (
    ("llm", "offered to agents"),
    ("rec", "recorded into the trail when called"),
    ("deleg", "runs other tools (those are recorded)"),
    ("verif", "a check: it fails the step when what it checks is not so"),
    ("host", "runs on the host, not on the device"),
    ("query", "answers the agent; never recorded"),
)


def flags_of(meta: ToolMetadata) -> list[str]:
    on = {
        "llm": meta.exposed_to_llm,
        "rec": meta.recordable,
        "deleg": meta.delegating,
        "verif": meta.verification,
        "host": meta.requires_host,
        "query": meta.query,
    }
    return [name for name, _ in FLAGS if on[name]]


def where_of(meta: ToolMetadata) -> str:
    return ", ".join(sorted(meta.drivers or meta.platforms or ["all"]))


@dataclass(frozen=True, slots=True)
class Argument:
    name: str
    type: str
    required: bool
    #: the default as JSON text, or None when there is none
    default: str | None
    description: str


def arguments(spec: ToolSpec) -> list[Argument]:
    """The tool's arguments in the order its schema lists them."""
    schema = spec.input_schema or {}
    required = set(schema.get("required", []))
    found = []
    for name, prop in (schema.get("properties") or {}).items():
        default = json.dumps(prop["default"]) if "default" in prop else None
        found.append(
            Argument(name, type_name(prop), name in required, default, str(prop.get("description") or "").strip())
        )
    return found


def type_name(schema: dict[str, Any]) -> str:
    """A JSON Schema as a person reads a type: ``string``, ``integer 0–10000``, ``NodeSelector``,
    ``list of string``, ``"UP" | "DOWN"``; ``null`` is left out of unions (it means optional)."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for union in ("anyOf", "oneOf"):
        if union in schema:
            parts = [type_name(s) for s in schema[union] if s.get("type") != "null"]
            return " | ".join(dict.fromkeys(parts)) or "null"
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind if k != "null")
    if kind == "array":
        items = schema.get("items")
        return f"list of {type_name(items)}" if isinstance(items, dict) and items else "list"
    if kind in ("integer", "number") and ("minimum" in schema or "maximum" in schema):
        low, high = schema.get("minimum", ""), schema.get("maximum", "")
        return f"{kind} {low}–{high}"
    if kind == "object" and schema.get("title"):
        return "object"
    return str(kind or "any")


def example_call(spec: ToolSpec) -> dict[str, Any]:
    """A call a trail could record: the required arguments, and the element (``nodeSelector``)
    or page (``url``) a tool takes as one of two alternatives, each with a placeholder of its type."""
    schema = spec.input_schema or {}
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required", []))
    wanted = [name for name in properties if name in required or name in _ALTERNATIVES_SHOWN]
    web = spec.metadata.platforms is None or "web" in spec.metadata.platforms
    args = {name: _placeholder(name, properties[name], schema.get("$defs", {}), web) for name in wanted}
    return {spec.name: args}


#: strings whose placeholder must look like what they are, to be a valid call
_EXAMPLE_STRINGS = {"url": "https://example.com/", "path": "shared/sign-in.trail.yaml"}
#: optional arguments an example shows anyway: the usual way to give what the tool acts on
_ALTERNATIVES_SHOWN = frozenset({"nodeSelector", "url"})


def _placeholder(name: str, schema: dict[str, Any], defs: dict[str, Any], web: bool) -> Any:
    kind: Any
    if "$ref" in schema:
        kind = str(schema["$ref"]).rsplit("/", 1)[-1]
        if kind == "NodeSelector":
            if web:
                return {"web": {"ariaRole": "button", "ariaNameRegex": "Save"}}
            return {"androidAccessibility": {"textRegex": "Save"}}
        return _placeholder(name, defs.get(kind, {}), defs, web)
    for union in ("anyOf", "oneOf"):
        if union in schema:
            options = [s for s in schema[union] if s.get("type") != "null"]
            return _placeholder(name, options[0], defs, web) if options else None
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    kind = schema.get("type")
    if kind == "string":
        return _EXAMPLE_STRINGS.get(name, f"<{name}>")
    if kind in ("integer", "number"):
        if "exclusiveMinimum" in schema:
            return schema["exclusiveMinimum"] + 1
        return schema.get("minimum", 0)
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items")
        return [_placeholder(name, items, defs, web)] if isinstance(items, dict) and items else []
    if kind == "object":
        props = schema.get("properties") or {}
        return {key: _placeholder(key, props[key], defs, web) for key in schema.get("required", []) if key in props}
    return f"<{name}>"


def drivers_text(drivers: Sequence[str]) -> str:
    """Which drivers' sessions have a tool, and the listing that shows it."""
    if not drivers:
        return "none of this project's"
    return f"{', '.join(drivers)} (`trailblaze tools --driver {drivers[0]}` lists it)"


def tool_page(spec: ToolSpec, drivers: Sequence[str] | None = None) -> str:
    """The whole description of one tool, as plain text; ``drivers``, when given, the keys of
    the drivers whose sessions have it."""
    import yaml

    meta = spec.metadata
    lines = [spec.name, ""]
    if spec.description:
        lines += [spec.description.strip(), ""]
    flags = flags_of(meta)
    lines.append(f"source: {spec.source}    runs on: {where_of(meta)}    flags: {' '.join(flags) or '(none)'}")
    if drivers is not None:
        lines.append(f"drivers: {drivers_text(drivers)}")
    if meta.groups:
        lines.append(f"groups: {', '.join(meta.groups)}")
    lines.append("")
    args = arguments(spec)
    if args:
        lines.append("arguments:")
        for arg in args:
            status = "required" if arg.required else "optional"
            if arg.default is not None:
                status = f"default: {arg.default}"
            lines.append(f"  {arg.name} ({arg.type}; {status})")
            lines.append(f"      {arg.description or '(no description)'}")
    else:
        lines.append("arguments: none")
    example = yaml.safe_dump([example_call(spec)], sort_keys=False, default_flow_style=None, allow_unicode=True)
    lines += ["", "example (in a step's recording):", *(f"  {line}" for line in example.rstrip().splitlines())]
    if flags:
        lines += ["", "flags: " + "; ".join(f"{name}: {meaning}" for name, meaning in FLAGS if name in flags)]
    return "\n".join(lines)
