"""Properties of the Java→Python translation: quoting means the text itself, whatever the text;
and no pattern, however broken, makes the translation fail other than by saying why."""

from __future__ import annotations

from collections.abc import Callable

import regex
from hypothesis import example, given
from hypothesis import strategies as st

from trailblaze.core import javaregex
from trailblaze.core.javaregex import JavaRegexError
from trailblaze.device.selectors import regex_problem

#: text heavy in what regexes treat specially, plus anything else
TEXT = st.text(alphabet=st.sampled_from("\\^$.|?*+()[]{}QEpPkx0-&aZ é\n\t😀")) | st.text()


def fullmatch(pattern: str, text: str) -> bool:
    return regex.compile(javaregex.to_python(pattern), regex.DOTALL).fullmatch(text) is not None


@given(TEXT, TEXT)
@example("a\\Eb", "a\\Eb")
@example("$29.99 (USD)", "$29x99 (USD)")
def test_a_quoted_text_matches_exactly_itself(text: str, other: str) -> None:
    quoted = javaregex.quote(text)  # Pattern.quote: \Q…\E, with any \E in the text spelled out
    assert fullmatch(quoted, text)
    assert fullmatch(quoted, other) is (other == text)
    assert javaregex.literal_text(quoted) == text


@given(TEXT.filter(lambda t: "\\E" not in t))
def test_a_text_between_q_and_e_matches_exactly_itself(text: str) -> None:
    assert fullmatch(f"\\Q{text}\\E", text)
    assert not fullmatch(f"\\Q{text}\\E", text + "x")
    assert javaregex.upstream_name(f"\\Q{text}\\E") == text


@given(TEXT)
def test_what_the_recorder_writes_matches_the_name(name: str) -> None:
    written = javaregex.escape_for_selector(name)
    assert fullmatch(written, name)
    if not any(c in javaregex.METACHARACTERS for c in name):
        assert written == name


def refusal(translate: Callable[[], object]) -> str | None:
    """Why ``translate`` refused, or None when it translated."""
    try:
        translate()
    except (JavaRegexError, regex.error) as exc:
        return str(exc)
    return None


@given(TEXT)
def test_any_pattern_is_translated_or_refused_with_a_reason(pattern: str) -> None:
    refused = refusal(lambda: regex.compile(javaregex.to_python(pattern), regex.DOTALL))
    if refused is not None:
        assert regex_problem(pattern) == f"invalid regex {pattern!r}: {refused}"
        return
    browser = refusal(lambda: javaregex.to_javascript(pattern))
    assert browser is None or "browser" in browser
