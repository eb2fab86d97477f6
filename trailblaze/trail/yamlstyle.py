"""Laying out new YAML the way the file around it is written.

The writer splices new recordings into hand-written files, so they should look as if the
author wrote them: the file's own indentation for mappings and sequences, its line breaks,
its preferred quotes; one tool call per item, short arguments in flow style (``{url: /x}``),
long ones one per line. Strings a YAML 1.1 reader would take for booleans (``yes``, ``on``) are
always quoted.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.tools.model import ToolCall

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

#: a line longer than this is laid out as a block instead of a flow collection
FLOW_WIDTH = 100
#: plain scalars YAML 1.1 readers (PyYAML and friends) take for booleans or null: always quoted
_YAML11_SPECIAL = re.compile(r"^(?:y|Y|n|N|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|~)$")


class Calls(list[Any]):
    """A recording: laid out one call per item."""


class Call(dict[str, Any]):
    """A trailhead's single call, written as a mapping (as upstream does)."""


def plain(value: Any) -> Any:
    """JSON-like data (tuples become lists, other mappings become dicts)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Layout:
    """How the file indents: mapping children and sequence items under a key."""

    mapping: int = 2
    sequence: int = 2
    newline: str = "\n"
    quote: str = "'"

    @classmethod
    def detect(cls, text: str, root: Node) -> Layout:
        """The style of the document ``text``, whose composed root node is ``root``."""
        from ruamel.yaml.nodes import MappingNode, SequenceNode

        newline = "\r\n" if "\r\n" in text else "\n"
        mapping_steps: list[int] = []
        sequence_steps: list[int] = []
        quotes = {"'": 0, '"': 0}
        stack = [root]
        seen = 0
        while stack and seen < 5000:
            node = stack.pop()
            seen += 1
            style = getattr(node, "style", None)
            if style in quotes:
                quotes[style] += 1
            if isinstance(node, MappingNode) and node.flow_style:
                stack.extend(v for pair in node.value for v in pair)
                continue
            if not isinstance(node, MappingNode):
                if isinstance(node, SequenceNode):
                    stack.extend(node.value)
                continue
            for key, value in node.value:
                stack.append(key)
                if value.start_mark.line == key.start_mark.line or getattr(value, "flow_style", False):
                    stack.append(value)
                    continue
                if isinstance(value, MappingNode):
                    mapping_steps.append(value.start_mark.column - key.start_mark.column)
                elif isinstance(value, SequenceNode):
                    sequence_steps.append(value.start_mark.column - key.start_mark.column)
                stack.append(value)
        return cls(
            mapping=_most_common([s for s in mapping_steps if s > 0], 2),
            sequence=_most_common([s for s in sequence_steps if s >= 0], 2),
            newline=newline,
            quote='"' if quotes['"'] > quotes["'"] else "'",
        )


def _most_common(values: list[int], default: int) -> int:
    if not values:
        return default
    return max(sorted(set(values)), key=values.count)


def emit_value(value: Any, key_column: int, layout: Layout) -> str:
    """What follows ``key:`` for ``value`` when the key is at ``key_column``."""
    nl = layout.newline
    if not isinstance(value, dict | list) or not value:
        return " " + flow(value, layout)
    if isinstance(value, Call):
        ((name, args),) = value.items()
        head = " " * (key_column + layout.mapping) + emit_key(name, layout) + ":"
        lines = _call_lines(head, args, key_column + layout.mapping, layout)
    elif isinstance(value, Calls):
        lines = []
        column = key_column + layout.sequence
        for call in value:
            ((name, args),) = call.items()
            lines.extend(_call_lines(" " * column + "- " + emit_key(name, layout) + ":", args, column + 2, layout))
    elif isinstance(value, dict):
        lines = _block_mapping(value, key_column + layout.mapping, layout)
    else:
        lines = _block_sequence(value, key_column + layout.sequence, layout)
    return nl + nl.join(lines)


def _block_mapping(data: Mapping[str, Any], column: int, layout: Layout) -> list[str]:
    lines: list[str] = []
    pad = " " * column
    for key, value in data.items():
        head = pad + emit_key(key, layout) + ":"
        if isinstance(value, Calls | Call) and value:
            lines.append(head + emit_value(value, column, layout))
            continue
        inline = flow(value, layout)
        if not isinstance(value, dict | list) or not value or len(head) + 1 + len(inline) <= FLOW_WIDTH:
            lines.append(f"{head} {inline}")
        else:
            lines.append(head + emit_value(value, column, layout))
    return lines


def _block_sequence(items: Sequence[Any], column: int, layout: Layout) -> list[str]:
    lines: list[str] = []
    pad = " " * column
    for item in items:
        inline = flow(item, layout)
        if not isinstance(item, dict | list) or not item or len(pad) + 2 + len(inline) <= FLOW_WIDTH:
            lines.append(f"{pad}- {inline}")
            continue
        inner = (
            _block_mapping(item, column + 2, layout)
            if isinstance(item, dict)
            else _block_sequence(item, column + 2, layout)
        )
        first, *rest = layout.newline.join(inner).split(layout.newline)
        lines.append(pad + "- " + first.lstrip())
        lines.extend(rest)
    return lines


def _call_lines(head: str, args: Any, name_column: int, layout: Layout) -> list[str]:
    """One tool call: ``name: {args}`` on one line when every argument is a scalar and it
    fits, otherwise one argument per line (nested values in flow style when they fit)."""
    if not isinstance(args, dict) or not args:
        return [f"{head} {flow(args if args else {}, layout)}"]
    if all(not isinstance(v, dict | list) for v in args.values()):
        inline = f"{head} {flow(args, layout)}"
        if len(inline) <= FLOW_WIDTH:
            return [inline]
    return [head, *_block_mapping(args, name_column + layout.mapping, layout)]


_FLOW: Any = None


def flow(value: Any, layout: Layout) -> str:
    """``value`` as a one-line YAML flow value, quoted where a reader could misread it, in
    the quote style the file mostly uses."""
    global _FLOW
    if isinstance(value, dict):
        return "{" + ", ".join(f"{emit_key(k, layout)}: {flow(v, layout)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v, layout) for v in value) + "]"
    if isinstance(value, str) and _YAML11_SPECIAL.match(value):
        return _quote(value, layout.quote)
    if _FLOW is None:
        from ruamel.yaml import YAML

        _FLOW = YAML(typ="rt")
        _FLOW.default_flow_style = True
        _FLOW.width = 1_000_000
    stream = io.StringIO()
    _FLOW.dump(value, stream)
    out = stream.getvalue()
    if out.endswith("\n...\n"):
        out = out[: -len("\n...\n")]
    out = out.rstrip("\n")
    if isinstance(value, str) and out.startswith("'") and layout.quote == '"':
        return _quote(value, '"')
    return out


def _quote(text: str, quote: str) -> str:
    if quote == '"':
        return json.dumps(text, ensure_ascii=False)  # JSON strings are YAML double-quoted scalars
    return "'" + text.replace("'", "''") + "'"


def emit_key(key: Any, layout: Layout) -> str:
    return flow(str(key), layout)


def call_text(call: ToolCall) -> str:
    """One call on one line, as it would appear in a trail file (for messages)."""
    layout = Layout()
    return f"{emit_key(call.name, layout)}: {flow(plain(call.args), layout)}"
