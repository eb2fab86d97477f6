"""Parse JSON that Trailblaze did not write itself — files it reads (``lastfailed.json``, the
``record`` cache, results JSON for ``merge-reports`` and ``--shard-durations``) and bodies it
is sent (the callback API) — with its nesting bounded before the parser sees it.

``json.loads`` recurses once per level: 100,000 ``[`` are a ``RecursionError``, not a
message. The brackets are counted first, outside strings, and text nested deeper than
:data:`~trailblaze.core.limits.YAML_DEPTH` (JSON is YAML, and one bound serves both) is refused with
the line and column of the bracket that goes over.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from pathlib import Path
from typing import Any

from trailblaze.core import limits
from trailblaze.core.errors import Location, UsageError
from trailblaze.core.sourcefile import read_source

#: a string, to the end of the text when it is not closed (so no match starts again inside it)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_LONG_NUMBER = re.compile(r"-?\d{4000,}")  # near the 4300 digits Python converts


class JsonError(ValueError):
    """Text that is not JSON, or JSON nested too deep: ``message`` at 1-based ``line`` and
    ``column``. A :class:`ValueError`, as ``json.loads`` raises."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} (line {line}, column {column})")
        self.message = message
        self.line = line
        self.column = column


def parse(text: str | bytes) -> Any:
    """The value of the JSON ``text`` (bytes in UTF-8, -16 or -32, as ``json.loads`` takes them);
    :class:`JsonError` when it is not JSON or nests deeper than the bound."""
    if not isinstance(text, str | bytes | bytearray):
        raise JsonError(f"expected JSON text, got {type(text).__name__}", 1, 1)
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode(json.detect_encoding(text))
        except UnicodeDecodeError as exc:
            raise JsonError(f"not UTF-8 text (byte {exc.start})", 1, 1) from None
    check_depth(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonError(exc.msg, exc.lineno, exc.colno) from None
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        found = _LONG_NUMBER.search(text)
        at = found.start() if found else 0
        line = text.count("\n", 0, at) + 1
        raise JsonError("a number with too many digits", line, at - text.rfind("\n", 0, at)) from None


def load_path(path: Path) -> Any:
    """The JSON value in the file at ``path``, read as every file Trailblaze is given is
    (:func:`~trailblaze.core.sourcefile.read_source`); a :class:`UsageError` naming the file, with
    a line and column where the JSON is wrong."""
    text = read_source(path, "JSON")
    try:
        return parse(text)
    except JsonError as exc:
        raise UsageError(f"not JSON: {exc.message}", Location(str(path), exc.line, exc.column)) from None


def check_depth(text: str) -> None:
    """Refuse ``text`` whose ``[``/``{`` nest deeper than the bound (outside strings)."""
    bound = limits.YAML_DEPTH.get_int()
    if text.count("[") + text.count("{") <= bound:
        return  # the common case: too few brackets to nest that deep
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if max(accumulate(map(_STEP.__getitem__, brackets)), default=0) <= bound:
        return
    offset = _offset_of_level(text, bound + 1)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    message = f"JSON nested more than {bound} levels deep ({limits.YAML_DEPTH.env} raises the limit)"
    raise JsonError(message, line, column)


_MARK = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\Z)|[\[\]{}]', re.DOTALL)


def _offset_of_level(text: str, level: int) -> int:
    """Where the first bracket that opens ``level`` is (only called when there is one)."""
    depth = 0
    for found in _MARK.finditer(text):
        mark = found.group()
        if mark in "[{":
            depth += 1
            if depth >= level:
                return found.start()
        elif mark in "]}":
            depth -= 1
    return 0
