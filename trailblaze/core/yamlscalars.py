"""What an unquoted YAML scalar is, the way the YAML 1.2 core schema reads it (``yes`` is text,
``0o17`` an octal number, ``.nan`` a float), for :mod:`trailblaze.core.yamlsource`."""

from __future__ import annotations

import math
import re
from typing import Any

_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INF = frozenset({".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
_NEG_INF = frozenset({"-.inf", "-.Inf", "-.INF"})
_NAN = frozenset({".nan", ".NaN", ".NAN"})
#: what a plain scalar that is not a string starts with (any other is text: the common case)
NOT_TEXT_START = frozenset("0123456789+-.~nNtTfF")


def resolve_plain_scalar(value: str) -> Any:
    """Resolve an unquoted scalar the way the YAML 1.2 core schema does."""
    if value and value[0] not in NOT_TEXT_START:
        return value
    if value in _NULLS:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT.match(value):
        return int(value)
    if _OCT.match(value):
        return int(value[2:], 8)
    if _HEX.match(value):
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if value in _INF:
        return math.inf
    if value in _NEG_INF:
        return -math.inf
    if value in _NAN:
        return math.nan
    return value
