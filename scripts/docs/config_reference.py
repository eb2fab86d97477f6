"""The configuration reference, made from ``trailblaze schema config``: every key of
trailblaze.yaml with its type, default and description, and each nested section's fields."""

from __future__ import annotations

import re
from typing import Any

from schema_text import cell, default_text, property_rows, referenced_defs, type_text, types_section


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def aliases(properties: dict[str, Any]) -> dict[str, str]:
    """The camelCase spellings the schema also accepts, each by the key it spells."""
    return {
        snake_case(name): name for name in properties if name != snake_case(name) and snake_case(name) in properties
    }


def reference(schema: dict[str, Any]) -> str:
    properties = schema.get("properties", {})
    camel = aliases(properties)
    required = set(schema.get("required", []))
    lines = ["| key | type | default | description |", "| --- | --- | --- | --- |"]
    for name, prop in properties.items():
        if name in camel.values():
            continue
        spelled = f"`{name}`" + (f" (also `{camel[name]}`)" if name in camel else "")
        lines.append(
            f"| {spelled} | {type_text(prop)} | {default_text(prop, name in required)} | "
            f"{cell(prop.get('description', ''))} |"
        )
    defs = referenced_defs(schema, schema.get("$defs", {}))
    sections = types_section(defs, heading="###") if defs else ""
    return "\n".join(lines) + "\n\n" + sections


__all__ = ["property_rows", "reference"]
