"""Java's regex syntax, in which upstream's recordings are written, for Python's ``regex`` and for V8.

Upstream compiles every recorded pattern with ``java.util.regex.Pattern``, and its recorder
quotes names the JVM way (Kotlin's ``Regex.escape`` writes ``\\Q…\\E``). A pattern is parsed
here as Java reads it and written out again for the engine that matches it:

* :func:`to_python` for the ``regex`` package (mobile selectors, values, URLs): possessive
  quantifiers and atomic groups keep their meaning;
* :func:`to_javascript` for V8, which matches web names in the page. The output avoids what
  would keep V8 from its linear-time engine (the ``i`` and ``u`` flags, lookarounds): case
  folding is written out as classes (``[sS]``); ``u`` is used only for ``\\p{…}`` classes and
  characters beyond U+FFFF. Possessive quantifiers and atomic groups, which V8 lacks, are
  written as a lookahead and a backreference that match the same; ``$`` does not allow a final
  line break (names have none).

Java's predefined classes (``\\d``, ``\\w``, ``\\s``, POSIX ``\\p{Alpha}``…) mean ASCII, as in
Java, in both outputs. An inline ``(?i)`` ignores the case of ASCII letters only, as Java's
does, unless ``(?iu)`` asks for Unicode case; a caller's ``i`` flag is Kotlin's IGNORE_CASE,
which is Unicode-aware. ``(?U)`` and ``(?d)`` are refused. Constructs with no equivalent
(``\\G``, ``\\b{g}``, Unicode blocks and ``\\X`` in the browser, Java-only
``\\p{javaJavaIdentifierStart}``…) raise :class:`JavaRegexError` naming them.
Where Java rejects a brace that starts no valid quantifier (``${name}``), it is read as a
literal brace, as Python reads it.

The dot matches line breaks unless a pattern says ``(?-s)`` (trailblaze's matching has always
been DOTALL).
"""

from __future__ import annotations

import functools

from trailblaze.core.javaregex.errors import JavaRegexError, JsPattern
from trailblaze.core.javaregex.syntax import Anchor, Char, parse
from trailblaze.core.javaregex.writers import JavaScriptWriter, PythonWriter

__all__ = [
    "METACHARACTERS",
    "JavaRegexError",
    "JsPattern",
    "escape_for_selector",
    "javascript_literal",
    "literal_text",
    "quote",
    "to_javascript",
    "to_python",
    "upstream_name",
]

#: characters that make a pattern more than its literal text (upstream's ``REGEX_METACHARACTERS``)
METACHARACTERS = frozenset("\\^$.|?*+()[]{}")


def to_python(pattern: str, flags: str = "s") -> str:
    """``pattern`` (Java syntax) as a pattern for the ``regex`` package; raises
    :class:`JavaRegexError` when it is not valid Java syntax. ``flags`` are the Java flags in
    effect from the start (``s`` DOTALL, ``i`` CASE_INSENSITIVE, ``m`` MULTILINE)."""
    return PythonWriter().node(parse(pattern, flags))


@functools.lru_cache(maxsize=1024)
def to_javascript(pattern: str, flags: str = "s") -> JsPattern:
    """``pattern`` (Java syntax) as a V8 regex; raises :class:`JavaRegexError` when it is not
    valid Java syntax or uses what V8 lacks. The source is safe inside a Playwright selector
    string: no quotes, and ``>`` only where a named group or ``\\k<name>`` closes, never
    ``>>`` (a literal ``>`` is written ``\\x3e``)."""
    writer = JavaScriptWriter()
    source = writer.write(parse(pattern, flags))
    return JsPattern(source, "u" if writer.unicode else "")


def javascript_literal(text: str) -> JsPattern:
    """A V8 pattern matching ``text`` literally (for alternatives next to a translated pattern)."""
    writer = JavaScriptWriter()
    source = "".join(writer.char(ord(c), False) for c in text)
    return JsPattern(source, "u" if writer.unicode else "")


def literal_text(pattern: str) -> str | None:
    """The one text ``pattern`` matches when it is plain text (``View``, ``\\Q$5.00\\E``,
    ``^Total\\$$``), else None (a real pattern, case-insensitive, or invalid)."""
    try:
        (branch,) = parse(pattern).branches
    except (JavaRegexError, ValueError):
        return None
    items = list(branch)
    if items and items[0] == Anchor("^"):
        items.pop(0)
    if items and items[-1] == Anchor("$"):
        items.pop()
    if not all(isinstance(item, Char) and not item.fold for item in items):
        return None
    return "".join(chr(item.cp) for item in items if isinstance(item, Char))


def upstream_name(pattern: str) -> str:
    """The accessible name upstream's web replay looks for when a selector gives ``pattern``:
    the inside of ``\\Q…\\E``, else the pattern without a leading ``^`` and trailing ``$``."""
    if pattern.startswith("\\Q") and pattern.endswith("\\E") and len(pattern) >= 4:
        return pattern[2:-2]
    return pattern.removeprefix("^").removesuffix("$")


def quote(text: str) -> str:
    """A Java pattern matching ``text`` literally, as ``Pattern.quote`` (Kotlin's ``Regex.escape``)
    writes it."""
    return "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def escape_for_selector(text: str) -> str:
    """``text`` as upstream's recorder writes it in a ``…Regex`` field: as is when it has no
    regex metacharacters, else quoted."""
    return quote(text) if any(c in METACHARACTERS for c in text) else text
