"""The bounds Trailblaze puts on what it reads, matches, waits for and writes.

Trail files and MCP servers are input like any other: a file can be an alias bomb, a regex can
backtrack for hours, a server can answer with 50 MB of text. Each bound below turns such input
into one readable error instead of a hang, a traceback or a gigabyte report. Every bound can be
changed with its environment variable (README, "Limits"); the defaults are far above what real
trails need.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from trailblaze.core.errors import UsageError


@dataclass(frozen=True, slots=True)
class Limit:
    """One bound: the environment variable that changes it and its default."""

    env: str
    default: float
    what: str

    def get(self) -> float:
        """The bound in force: the environment variable's value, else the default."""
        raw = os.environ.get(self.env, "").strip()
        if not raw:
            return self.default
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value <= 0:
            raise UsageError(f"{self.env}={raw!r}: expected a number > 0 ({self.what})")
        return value

    def get_int(self) -> int:
        return max(1, int(self.get()))


#: seconds one call of a trailmap's scripted tool may take, the tools it runs included
SCRIPTED_TOOL_SECONDS = Limit("TRAILBLAZE_SCRIPTED_TOOL_TIMEOUT", 300.0, "seconds one scripted tool call may take")
#: bytes of one YAML file (a trail, trailblaze.yaml)
FILE_BYTES = Limit("TRAILBLAZE_MAX_FILE_BYTES", 10 * 1024 * 1024, "bytes a YAML file may have")
#: nesting of YAML collections (mappings and lists inside each other)
YAML_DEPTH = Limit("TRAILBLAZE_MAX_YAML_DEPTH", 100, "levels YAML mappings and lists may nest")
#: uses of YAML aliases (``*name``) in one file
YAML_ALIASES = Limit("TRAILBLAZE_MAX_YAML_ALIASES", 10_000, "YAML aliases (*name) one file may use")
#: what aliases may add to a file: nodes plus characters of the scalars they repeat
YAML_EXPANSION = Limit(
    "TRAILBLAZE_MAX_YAML_EXPANSION", 1_000_000, "nodes and characters YAML aliases may add to one file"
)
#: seconds one match of a pattern from a trail (a ``…Regex`` field, a URL pattern) may take
REGEX_SECONDS = Limit("TRAILBLAZE_REGEX_TIMEOUT", 1.0, "seconds one regex match may take")
#: characters of an ``assertMath`` expression
EXPRESSION_CHARS = Limit("TRAILBLAZE_MAX_EXPRESSION_CHARS", 1_000, "characters an assertMath expression may have")
#: characters of one message (a tool's error, an MCP server's text) in the terminal and the reports
MESSAGE_CHARS = Limit("TRAILBLAZE_MAX_MESSAGE_CHARS", 4_000, "characters one message may have")
#: levels a selector may nest through its relations (containsChild, childOf, below, …): each
#: ``containsChild`` level doubles what Playwright is sent, so 50 levels would take the memory
SELECTOR_DEPTH = Limit(
    "TRAILBLAZE_MAX_SELECTOR_DEPTH", 8, "levels a selector may nest (containsChild, childOf, below, …)"
)
#: characters of a selector, as written (its JSON) and as built for Playwright
SELECTOR_CHARS = Limit(
    "TRAILBLAZE_MAX_SELECTOR_CHARS", 100_000, "characters a selector may have, as written and as Playwright gets it"
)
#: bytes of an MCP server's stderr log before it is rotated (one older log is kept)
LOG_BYTES = Limit(
    "TRAILBLAZE_MAX_LOG_BYTES",
    5 * 1024 * 1024,
    "bytes of an MCP server's stderr log, of web: server:'s output, and of an agent log",
)
#: characters of a step's text an agent gives ``trailblaze mcp`` (an objective, a call's reason,
#: ``trailEdit``'s prompt)
STEP_TEXT_CHARS = Limit("TRAILBLAZE_MAX_STEP_TEXT_CHARS", 2_000, "characters a recorded step's text may have")

ALL = (
    FILE_BYTES,
    YAML_DEPTH,
    YAML_ALIASES,
    YAML_EXPANSION,
    REGEX_SECONDS,
    EXPRESSION_CHARS,
    MESSAGE_CHARS,
    SELECTOR_DEPTH,
    SELECTOR_CHARS,
    LOG_BYTES,
    STEP_TEXT_CHARS,
)

# Upper bounds on the numbers trails, settings and options hold (README, "Limits"): a number
# past one is misuse found before anything runs (exit 3), never a sleep for ever, a timeout
# Playwright cannot encode (1e308 s is ``Infinity`` ms in its JSON) or a loop without end.

#: seconds one wait may last: a timeout (``timeout:``, ``--timeout``, a tool's ``timeoutMs``, an
#: MCP server's or an LLM's) — an hour, far beyond any UI a test waits for
MAX_WAIT_SECONDS = 3600
#: seconds of a fixed pause (``wait``, ``web_wait``): upstream's bound on its web wait
MAX_PAUSE_SECONDS = 30
#: milliseconds one gesture (a swipe, a drag) may take
MAX_GESTURE_MS = 60_000
#: pixels: a coordinate, a scroll, a viewport's side (Chromium's own bound on a window)
MAX_PIXELS = 10_000_000
#: an index among matches, characters to erase or to type at random, a Maestro loop's repeats
MAX_COUNT = 10_000
#: ``--workers`` (sessions at once per device) and ``--shard-split``/``--shard-all`` (devices)
MAX_WORKERS = 100
#: ``--retries`` / ``retries:``
MAX_RETRIES = 100
#: ``--shard I/N``: N (GitHub Actions runs at most 256 jobs of one matrix)
MAX_SHARDS = 1000


def shorten(text: str, limit: int | None = None) -> str:
    """``text`` cut to ``limit`` characters (default :data:`MESSAGE_CHARS`), with a note of
    how much was left out: a tool's 20 MB error text must not become a 60 MB report."""
    bound = MESSAGE_CHARS.get_int() if limit is None else limit
    if len(text) <= bound or (text.endswith(" more characters not shown)") and len(text) <= bound + 64):
        return text  # short, or already cut
    left_out = len(text) - bound
    return f"{text[:bound]}… ({left_out} more characters not shown)"


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: control characters (ESC sequences that would set
    the window title, clear the screen or hide a link, from a page or an MCP server) and the
    bidirectional controls that reorder what is shown (U+202E) are shown escaped (``\\x1b``,
    ``\\u202e``); line breaks and tabs stay."""
    if text.isprintable() or not any(_is_hidden(c) for c in text):
        return text
    return "".join(_escaped(c) if _is_hidden(c) else c for c in text)


def one_line(text: str) -> str:
    """``text`` as one line, safe to print: :func:`printable`, and line breaks and tabs escaped
    too (``\\n``). A step's text, a trail's id or title, a tool's name: whatever a trail or a
    server wrote cannot start a line of its own in a CI log."""
    if text.isprintable():
        return text
    return "".join(_escaped(c) if _is_hidden(c) or c in "\n\t" else c for c in text)


def inert_line(line: str) -> str:
    """``line`` such that a CI runner reading the log does not take it for a command: GitHub
    Actions' workflow commands (``::add-mask::``, ``::stop-commands::``, ``::error::``) and
    Azure Pipelines' (``##vso[``, ``##[``) start a line, after blanks; such a line has its
    first mark escaped (``\\x3a:error::…``). Our own annotations are written without it."""
    stripped = line.lstrip()
    if not stripped.startswith(_LOG_COMMANDS):
        return line
    start = len(line) - len(stripped)
    return f"{line[:start]}\\x{ord(stripped[0]):02x}{stripped[1:]}"


#: how the commands of the CI runners that read a job's output start a line
_LOG_COMMANDS = ("::", "##[", "##vso[")
#: the controls that reorder or isolate bidirectional text, and the Unicode line separators
_INVISIBLE = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")


def utf8_text(text: str) -> str:
    """``text`` that can be written as UTF-8: a lone surrogate — how Python keeps a byte that was
    not UTF-8 in a file name or an argument — is escaped (``\\udcff``, which JSON reads back)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): the byte
        return f"\\x{code - 0xDC00:02x}"
    return char.encode("unicode_escape", "backslashreplace").decode("ascii")


def _is_hidden(char: str) -> bool:
    code = ord(char)
    return (code < 0x20 and char not in "\n\t") or 0x7F <= code < 0xA0 or char in _INVISIBLE or 0xD800 <= code <= 0xDFFF
