"""What the translation raises and returns for V8."""

from __future__ import annotations

from typing import NamedTuple


class JavaRegexError(ValueError):
    """A pattern that is not valid Java regex syntax, or uses a construct the target engine lacks."""


class JsPattern(NamedTuple):
    """A pattern for ``new RegExp(source, flags)``."""

    source: str
    flags: str
