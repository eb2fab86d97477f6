"""What ``trailblaze mcp`` needs of JSON-RPC 2.0 below the SDK: the error codes it answers with,
and the id of a request it cannot parse.

A client matches an answer to its request by ``id``: an error with ``"id": null`` leaves the
SDK's client waiting for its read timeout. JSON-RPC prescribes ``null`` when the id cannot be
detected, but a request nested too deep to parse, or broken after its id, still has one: it is
read by :func:`readable_id`, a linear scan of the text's top level that parses nothing else.
"""

from __future__ import annotations

import json
import re
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

#: a JSON string (to the end of the text when it is not closed), a bracket, or a colon
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\Z)|[\[\]{}:]', re.DOTALL)
#: what an ``"id"`` may be: a string or an integer, with no fraction or exponent after it
_ID_VALUE = re.compile(r'\s*("(?:[^"\\]|\\.)*+"|-?(?:0|[1-9]\d{0,30}))(?![\d.eE])', re.DOTALL)


def readable_id(text: str) -> str | int | None:
    """The ``"id"`` of the JSON object ``text`` when it is a string or an integer at its top
    level (the last one, as a parser keeps), else None — without parsing the rest, which may be
    nested too deep or broken."""
    start = len(text) - len(text.lstrip())
    if not text.startswith("{", start):
        return None
    found: str | int | None = None
    depth = 0
    after_key = False
    for token in _TOKEN.finditer(text, start):
        mark = token.group()
        if mark in "[{":
            depth += 1
        elif mark in "]}":
            depth -= 1
            if depth == 0:
                break
        elif mark == ":" and after_key and (value := _ID_VALUE.match(text, token.end())) is not None:
            found = _id(value.group(1))
        after_key = depth == 1 and mark == '"id"'
    return found


def _id(text: str) -> str | int | None:
    try:
        value: Any = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, str | int) else None
