"""Tool calls as a person types them: ``web_click ref=e12`` or YAML ``web_type: {ref: e3, text: hi}``.

In the ``key=value`` form a value is taken as text when the tool's schema says the parameter
is text, and read as YAML otherwise, so ``clearFirst=false`` is a boolean, ``values=[Pro]`` a
list, ``nodeSelector={web: {dataTestId: name}}`` a mapping and ``text=12`` stays the text "12".
Quote values with spaces: ``text="Ada Lovelace"``.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from trailblaze.core.errors import TrailblazeError
from trailblaze.core.yamlsource import load_text


class CallSyntaxError(ValueError):
    """The line is neither ``name key=value…`` nor a YAML ``name: {args}``."""


def parse_call(line: str, schemas: Mapping[str, Mapping[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments in ``line``; ``schemas`` maps tool names to input schemas."""
    text = line.strip()
    first = text.split(None, 1)[0] if text else ""
    if text.startswith(("{", "-")) or first.endswith(":"):
        return _parse_yaml(text)
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise CallSyntaxError(f"cannot read {text!r}: {exc}") from None
    if not words:
        raise CallSyntaxError("empty call")
    name, *pairs = words
    properties = schemas.get(name, {}).get("properties", {})
    args: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CallSyntaxError(f"expected key=value, got {pair!r}")
        args[key] = _value(value, properties.get(key, {}))
    return name, args


def _parse_yaml(text: str) -> tuple[str, dict[str, Any]]:
    try:
        data = load_text(text).data
    except TrailblazeError as exc:
        raise CallSyntaxError(exc.message) from None
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, str):
        return data, {}
    if not isinstance(data, dict) or len(data) != 1:
        raise CallSyntaxError("a YAML call is one mapping 'toolName: {args}'")
    ((name, args),) = data.items()
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise CallSyntaxError(f"the arguments of {name} must be a mapping")
    return str(name), args


def _value(raw: str, schema: Mapping[str, Any]) -> Any:
    if _is_text(schema):
        return raw
    try:
        return load_text(raw).data if raw else ""
    except TrailblazeError:
        return raw


def _is_text(schema: Mapping[str, Any]) -> bool:
    types = {schema.get("type")} | {option.get("type") for option in schema.get("anyOf", [])}
    types.discard(None)
    types.discard("null")
    return types == {"string"}
