"""JSON Schema, told in words for a reference table: the type of a value, its default, and a
table of an object's properties. Shared by the tool pages and the configuration page."""

from __future__ import annotations

import json
import re
from typing import Any

Schema = dict[str, Any]
#: a Sphinx cross-reference in a docstring, :class:`~trailblaze.api.results.Artifact`: shown as `Artifact`
ROLE = re.compile(r":[a-z]+:`(~?)(?:[\w.]*\.)?(\w+)`")


def code(value: Any) -> str:
    """A value as inline code, written as YAML would show it (``true``, ``10``, ``REINSTALL``)."""
    if isinstance(value, str):
        return f"`{value}`" if value else '`""`'
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def ref_name(schema: Schema) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def type_text(schema: Schema) -> str:
    """The type of a value: ``string``, ``list of string``, ``NodeSelector`` (a link to the
    type's section), ``one of `A`, `B```… ``null`` is left out: a value that may be null may be
    left out."""
    name = ref_name(schema)
    if name is not None:
        return f"[{name}](#{name.lower()})"
    if "enum" in schema:
        return "one of " + ", ".join(code(v) for v in schema["enum"] if v is not None)
    if "const" in schema:
        return code(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            parts = [type_text(s) for s in schema[key] if s.get("type") != "null"]
            return " or ".join(dict.fromkeys(parts)) or "null"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(type_text({**schema, "type": k}) for k in kind if k != "null")
    if kind == "array":
        items = schema.get("items")
        return f"list of {type_text(items)}" if isinstance(items, dict) and items else "list"
    if kind == "object":
        values = schema.get("additionalProperties")
        if isinstance(values, dict) and values:
            return f"mapping of names to {type_text(values)}"
        return "mapping"
    if isinstance(kind, str):
        return kind
    return "any value"


def cell(text: str) -> str:
    """Text that stays in one cell of a Markdown table: on one line, its pipes escaped,
    reStructuredText's double backticks (the docstrings' and descriptions' style) made single,
    and outside code what Markdown would read as markup (``<select>``, ``*``) escaped."""
    return " ".join(prose(text, in_table=True).split())


def prose(text: str, in_table: bool = False) -> str:
    """reStructuredText-flavoured text (``code``) as Markdown that shows it as written (in a
    table cell, pipes outside code are escaped too; Markdown tables leave code spans alone)."""
    text = ROLE.sub(lambda m: f"``{m[2] if m[1] else m[0].split('`')[1]}``", text)
    pieces = text.replace("``", "`").split("`")
    for i in range(0, len(pieces), 2):  # the even pieces are outside code spans
        pieces[i] = pieces[i].replace("&", "&amp;").replace("<", "&lt;").replace("*", "\\*")
        if in_table:
            pieces[i] = pieces[i].replace("|", "\\|")
    return "`".join(pieces)


def default_text(schema: Schema, required: bool) -> str:
    if required:
        return "required"
    if "default" not in schema or schema["default"] is None:
        return "—"
    default = schema["default"]
    if default in ([], {}):
        return "empty"
    return code(default)


def property_rows(schema: Schema, skip: frozenset[str] = frozenset()) -> list[tuple[str, str, str, str]]:
    """``(name, type, default, description)`` for each property of an object schema, in order."""
    required = set(schema.get("required", []))
    return [
        (name, type_text(prop), default_text(prop, name in required), cell(prop.get("description", "")))
        for name, prop in schema.get("properties", {}).items()
        if name not in skip
    ]


def property_table(schema: Schema, first_column: str = "argument", skip: frozenset[str] = frozenset()) -> str:
    """An object schema's properties as a Markdown table (empty when it has none)."""
    rows = property_rows(schema, skip)
    if not rows:
        return ""
    lines = [f"| {first_column} | type | default | description |", "| --- | --- | --- | --- |"]
    lines += [f"| `{name}` | {kind} | {default} | {text} |" for name, kind, default, text in rows]
    return "\n".join(lines) + "\n"


def referenced_defs(schema: Any, defs: dict[str, Schema], found: dict[str, Schema] | None = None) -> dict[str, Schema]:
    """Every definition ``schema`` refers to, directly or through another, by name, in the order
    first met."""
    found = {} if found is None else found
    if isinstance(schema, dict):
        name = ref_name(schema)
        if name is not None and name not in found and name in defs:
            found[name] = defs[name]
            referenced_defs(defs[name], defs, found)
        for value in schema.values():
            referenced_defs(value, defs, found)
    elif isinstance(schema, list):
        for value in schema:
            referenced_defs(value, defs, found)
    return found


def types_section(defs: dict[str, Schema], heading: str = "##") -> str:
    """A section per definition: its description and its fields."""
    parts = []
    for name, schema in defs.items():
        text = [f"{heading} {name}", ""]
        if schema.get("description"):
            text += [cell(schema["description"]), ""]
        table = property_table(schema, "field")
        text.append(table if table else f"{type_text(schema)}\n")
        parts.append("\n".join(text))
    return "\n".join(parts)
