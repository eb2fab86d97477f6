"""Laying out new YAML the way the file around it is written.

The writer splices new recordings into hand-written files, so they should look as if the
author wrote them: the file's own indentation for mappings and sequences, its line breaks,
its preferred quotes; one tool call per item, short arguments in flow style (``{url: /x}``),
long ones one per line. Strings a YAML 1.1 reader would take for booleans (``yes``, ``on``) are
always quoted.
"""

from __future__ import annotations

import functools
import math
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


def flow(value: Any, layout: Layout) -> str:
    """``value`` as a one-line YAML flow value that reads back equal — any string, whatever
    commas, colons, ``#``, braces, quotes, surrounding spaces, line breaks or look-alikes of
    numbers and booleans it holds — in the quote style the file mostly uses."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{emit_key(k, layout)}: {flow(v, layout)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v, layout) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    text = str(value)
    if _plain_is_safe(text):
        return text
    return _quote(text, layout.quote)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    return text if any(c in text for c in ".eE") else text + ".0"


#: characters a plain scalar may not start with (YAML's indicators)
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
#: characters that never appear in a plain scalar written here: flow indicators (they end a
#: scalar inside ``{...}``), and everything that is not plainly printable
_NOT_PLAIN = re.compile(r"[,\[\]{}\x00-\x1f\x7f-\xa0\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]|: |:$| #")


@functools.lru_cache(maxsize=4096)
def _plain_is_safe(text: str) -> bool:
    """Whether ``text`` can be written without quotes, in block and in flow context alike, and
    read back as the same string (by the loader, YAML 1.2 core schema, and by YAML 1.1 readers).
    A candidate is checked by reading it back; anything doubtful is quoted."""
    if not text or text != text.strip(" ") or text[0] in _INDICATORS or _NOT_PLAIN.search(text):
        return False
    if _YAML11_SPECIAL.match(text):
        return False
    from trailblaze.core.errors import UsageError
    from trailblaze.core.yamlscalars import resolve_plain_scalar
    from trailblaze.core.yamlsource import load_text

    if resolve_plain_scalar(text) != text or not isinstance(resolve_plain_scalar(text), str):
        return False
    try:
        data = load_text(f"k: {text}\nl: [{text}, {text}]\nm: {{{text}: {text}}}\n").data
    except UsageError:
        return False
    return bool(data == {"k": text, "l": [text, text], "m": {text: text}})


_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}
#: what a single-quoted scalar cannot hold as it is (it has no escapes; line breaks fold)
_NEEDS_ESCAPES = re.compile(r"[\x00-\x1f\x7f-\xa0\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def _quote(text: str, quote: str) -> str:
    if quote == "'" and not _NEEDS_ESCAPES.search(text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + "".join(_escape(c) for c in text) + '"'


def _escape(char: str) -> str:
    escaped = _ESCAPES.get(char)
    if escaped is not None:
        return escaped
    code = ord(char)
    if _NEEDS_ESCAPES.match(char):
        if code <= 0xFF:
            return f"\\x{code:02x}"
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return char


def emit_key(key: Any, layout: Layout) -> str:
    return flow(str(key), layout)


def call_text(call: ToolCall) -> str:
    """One call on one line, as it would appear in a trail file (for messages)."""
    layout = Layout()
    return f"{emit_key(call.name, layout)}: {flow(plain(call.args), layout)}"
