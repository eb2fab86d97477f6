"""How text from trails, pages and servers is shown: escaped, one line where it is one item, and
never a command to the CI runner reading the log."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailblaze.core.limits import inert_line, one_line, printable

#: what GitHub Actions (after trimming blanks) and Azure Pipelines take for a command
LOG_COMMAND = re.compile(r"^\s*(::|##\[|##vso\[)")
PIECES = ["::", "##[", "\n", "\r", "\t", " ", "\x00", "\x1b", "\u202e", "a", "%"]
HOSTILE = st.lists(st.sampled_from(PIECES)).map("".join)


@given(st.text() | HOSTILE)
def test_one_line_is_one_line_of_printable_text(text: str) -> None:
    shown = one_line(text)
    assert len(shown.splitlines()) <= 1
    assert not any(_hidden(c) or c in "\n\t" for c in shown)


@given(st.text() | HOSTILE)
def test_printable_keeps_only_line_breaks_and_tabs_of_the_controls(text: str) -> None:
    assert not any(_hidden(c) for c in printable(text))
    assert printable(text).count("\n") == text.count("\n")


@given(st.text() | HOSTILE)
def test_no_inert_line_is_a_log_command(text: str) -> None:
    for line in printable(text).split("\n"):
        assert not LOG_COMMAND.match(inert_line(line))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Open\n::error::pwned", "Open\\n::error::pwned"),
        ("NUL \x00 ESC \x1b[2J bell \x07", "NUL \\x00 ESC \\x1b[2J bell \\x07"),
        ("pay \u202eRLO\u202c now", "pay \\u202eRLO\\u202c now"),  # reads as what it is, not reversed
        ("tab\tCR\r", "tab\\tCR\\r"),
        ("café ✓ 日本 👩‍👩‍👧", "café ✓ 日本 👩‍👩‍👧"),  # text stays text (the joiner of an emoji too)
    ],
)
def test_what_one_line_shows(text: str, shown: str) -> None:
    assert one_line(text) == shown


def test_a_line_that_would_be_a_command_has_its_first_mark_escaped() -> None:
    assert inert_line("        ::add-mask::secret") == "        \\x3a:add-mask::secret"
    assert inert_line("##vso[task.setvariable]x") == "\\x23#vso[task.setvariable]x"
    assert inert_line("step 1: ::error::x") == "step 1: ::error::x"  # not at the start: text


def _hidden(char: str) -> bool:
    """Controls and the bidirectional marks that reorder text (what must never be printed raw)."""
    code = ord(char)
    bidi = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
    return (code < 0x20 and char not in "\n\t") or 0x7F <= code < 0xA0 or char in bidi
