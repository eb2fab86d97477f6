"""Java's regex syntax, translated for Python's ``regex``: each case is a pattern as upstream
records it (or as a person writes one for Java) and whether it matches a whole text.

Matching goes through ``selectors.text_matches``, the one function every selector field and
value check uses: a Java pattern matching the whole text, or the text equal to the pattern.
"""

from __future__ import annotations

import pytest

from trailblaze.core import javaregex
from trailblaze.core.javaregex import JavaRegexError
from trailblaze.device.selectors import regex_problem, text_matches


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        # plain text, and text with metacharacters that is equal to the pattern
        ("Submit", "Submit", True),
        ("ok", "book", False),
        ("$3.00", "$3.00", True),  # `$` anchors, so only the literal reading matches
        ("$3.00", "$4.00", False),
        ("Olives (1 m) - $1.00", "Olives (1 m) - $1.00", True),
        ("${ticketName}", "${ticketName}", True),  # a brace that starts no quantifier is a brace
        # quoting, as Kotlin's Regex.escape writes it
        ("\\QWireless Mouse - $29.99\\E", "Wireless Mouse - $29.99", True),
        ("\\QWireless Mouse - $29.99\\E", "Wireless Mouse - $29x99", False),
        ("\\Q$3.00\\E", "\\Q$3.00\\E", True),  # the literal reading still holds
        ("Charge \\Q$\\E\\d+\\.\\d{2}", "Charge $12.50", True),  # outside the quote, regex again
        ("\\Q$5.00", "$5.00", True),  # an unterminated quote runs to the end
        ("\\\\Qa\\.b", "\\Qa.b", True),  # an escaped backslash starts no quote
        ("[\\Q]-\\E]+", "]-]", True),  # quoting inside a class
        ("\\Qa\\E\\\\E\\Qb\\E", "a\\Eb", True),  # Pattern.quote of a text holding \E
        # quantifiers
        ("\\d++", "123", True),
        ("a*+a", "aaa", False),  # possessive: never gives one back
        ("(?>a+)b", "aab", True),
        ("(?>a|ab)c", "abc", False),  # atomic: the first alternative is final
        ("x{2,3}?", "xx", True),
        # classes
        ("\\p{Lu}\\p{Ll}+", "Émile", True),
        ("\\pL+", "Zoë", True),
        ("\\p{IsLatin}+", "Zoë", True),
        ("\\p{IsGreek}+", "Ωμέγα", True),
        ("\\p{InGreek}+", "Ωμέγα", True),
        ("\\p{Alpha}+", "Zoë", False),  # POSIX classes are ASCII in Java
        ("\\p{javaLowerCase}+", "zoë", True),
        ("\\p{IsAlphabetic}+", "Zoë", True),
        ("\\P{Digit}+", "abc", True),
        ("[a-z&&[^aeiou]]+", "rhythm", True),
        ("[a-z&&[^aeiou]]+", "rhyme", False),
        ("[a-d[m-p]]+", "amp", True),
        ("[^\\d\\s]+", "abc", True),
        ("\\w+", "naïve", False),  # \w is ASCII in Java
        ("\\h\\v", "\t\n", True),
        ("a\\Rb", "a\r\nb", True),
        ("\\x{1F600}\\uD83D\\uDE00", "😀😀", True),
        ("\\0101\\x42\\u0043\\cI\\e", "ABC\t\x1b", True),
        ("\\N{LATIN SMALL LETTER E WITH ACUTE}", "é", True),
        # flags, anchors, groups
        ("(?i)submit", "SUBMIT", True),
        ("(?i)caf\u00e9", "CAF\u00c9", False),  # (?i) alone ignores the case of ASCII letters only
        ("(?iu)caf\u00e9", "CAF\u00c9", True),
        ("(?i)k", "\u212a", False),
        ("(?i)[^a]", "A", False),
        ("(?:ab)*+ab", "ababab", False),
        ("((?>a+)|b)+c", "aabc", True),
        ("a(?i)b|c", "aB", True),
        ("a(?i)b|c", "C", True),  # (?i) holds to the end of the group, through the alternatives
        ("(?i:a)b", "AB", False),
        ("(?-i)Pizza", "pizza", False),
        ("(?x) a b  # a comment", "ab", True),
        ("^Charge \\$5$", "Charge $5", True),
        ("(?<word>ab)\\k<word>", "abab", True),
        ("(a)(b)\\2\\1", "abba", True),
        ("\\Aab\\z", "ab", True),
        ("(?=.*b)a.", "ab", True),
    ],
)
def test_java_patterns_match_as_java_matches_them(pattern: str, text: str, matches: bool) -> None:
    assert regex_problem(pattern) is None
    assert text_matches(pattern, text) is matches


def test_the_dot_matches_line_breaks_unless_a_pattern_says_otherwise() -> None:
    assert text_matches(".+", "line1\nline2")  # trailblaze's matching is DOTALL
    assert not text_matches("(?-s).+", "line1\nline2")
    assert not text_matches("(?-s).+", "line1\u2028line2")  # Java's line terminators, not only \n


def test_maestro_flags_ignore_case_and_read_lines() -> None:
    assert text_matches("pizza", "Pizza", "ism")
    assert not text_matches("(?-i)pizza", "Pizza", "ism")
    assert text_matches(".*^line2$", "line1\nline2", "ism")
    assert not text_matches(".*^line2$", "line1\nline2")


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("+47 Points", "dangling meta character '+' at position 0"),
        ("a{3,1}", "illegal repetition range {3,1}"),
        ("Sub(mit", "unclosed group at position 3"),
        ("a)", "unmatched ')' at position 1"),
        ("[abc", "unclosed character class"),
        ("\\y", "illegal or unsupported escape sequence \\y"),
        ("\\1", "\\1 refers to a group that does not exist"),
        ("\\k<name>", "\\k<name> refers to a group that does not exist"),
        ("\\G", "\\G (the end of the previous match) is not supported"),
        ("\\b{g}", "\\b{…} boundaries are not supported"),
        ("\\p{javaJavaIdentifierStart}", "Java-only class with no equivalent here"),
        ("\\p{Nonsense}", "unknown character property \\p{Nonsense}"),
        ("\\p{IsNoSuchScript}", "unknown property value"),
        ("(?q)a", "unknown inline flag 'q'"),
        ("a**", "a quantifier follows a quantifier"),
        ("^*", "a quantifier here repeats nothing"),
        ("\\x{110000}", "illegal hexadecimal escape"),
    ],
)
def test_what_java_rejects_is_an_error_naming_it(pattern: str, problem: str) -> None:
    message = regex_problem(pattern)
    assert message is not None and message.startswith(f"invalid regex {pattern!r}: ")
    assert problem in message


def test_flags_that_change_the_predefined_classes_or_line_ends_are_refused_not_ignored() -> None:
    unicode_classes = regex_problem("(?U)\\w+")
    assert unicode_classes is not None and "'U' (UNICODE_CHARACTER_CLASS) is not supported" in unicode_classes
    assert "\\p{L}" in unicode_classes  # and what to write instead
    assert "'d' (UNIX_LINES) is not supported" in (regex_problem("(?d).") or "")
    assert regex_problem("(?-U)a(?-d)") is None  # turning them off changes nothing


def test_what_the_browser_cannot_match_is_an_error_for_web_names_only() -> None:
    assert regex_problem("\\p{InGreek}+") is None
    browser = regex_problem("\\p{InGreek}+", browser=True)
    assert browser is not None and "Unicode blocks (\\p{InGreek}) cannot be matched in the browser" in browser
    assert "grapheme" in (regex_problem("\\X", browser=True) or "")


def test_literal_text_is_the_one_text_a_plain_pattern_matches() -> None:
    assert javaregex.literal_text("View") == "View"
    assert javaregex.literal_text("\\QWireless Mouse - $29.99\\E") == "Wireless Mouse - $29.99"
    assert javaregex.literal_text("^Total \\$5\\.00$") == "Total $5.00"
    for pattern in ("Item \\d", "(?i)view", "a|b", "a+", "Sub(mit"):
        assert javaregex.literal_text(pattern) is None, pattern


def test_upstream_name_is_what_upstreams_web_replay_reads() -> None:
    assert javaregex.upstream_name("\\Q$5.00\\E") == "$5.00"
    assert javaregex.upstream_name("^Price (USD)$") == "Price (USD)"
    assert javaregex.upstream_name("View") == "View"


def test_recorded_names_are_quoted_as_upstream_records_them() -> None:
    assert javaregex.escape_for_selector("View") == "View"
    assert javaregex.escape_for_selector("Keyboard - $39.99") == "\\QKeyboard - $39.99\\E"
    assert javaregex.escape_for_selector("a\\Eb") == "\\Qa\\E\\\\E\\Qb\\E"


def test_javascript_translation_keeps_v8_on_its_linear_engine() -> None:
    """No i or u flag, no lookaround, unless the pattern needs it (checked in Chromium in
    tests/drivers/web/test_locators.py)."""
    assert javaregex.to_javascript("(?i)ok") == ("[Oo][Kk]", "")  # Java's (?i): ASCII letters
    assert javaregex.to_javascript("(?iu)ok") == ("[Oo][Kk\u212a]", "")  # Unicode case: the Kelvin sign too
    assert javaregex.to_javascript("ok", "i") == ("[Oo][Kk\u212a]", "")  # Kotlin's IGNORE_CASE is Unicode case
    assert javaregex.to_javascript("^\\QA.B\\E$") == ("^A\\.B$", "")
    assert javaregex.to_javascript("a+b") == ("a+b", "")


def test_javascript_has_no_atomic_groups_so_they_are_a_lookahead_and_a_backreference() -> None:
    assert javaregex.to_javascript("a++(?>b)") == ("(?=(?<tba1>a+))\\k<tba1>(?=(?<tba2>b))\\k<tba2>", "")
    # the pattern's own groups are named, so that its backreferences still mean them
    assert javaregex.to_javascript("(a)(?>b)\\1") == ("(?<tbg1>a)(?=(?<tba1>b))\\k<tba1>\\k<tbg1>", "")
    # names the pattern uses are left to it
    assert javaregex.to_javascript("(?<tba1>a)*+") == ("(?=(?<tbxa1>(?<tba1>a)*))\\k<tbxa1>", "")
    assert javaregex.to_javascript("\\p{Lu}") == ("[\\p{Lu}]", "u")
    assert javaregex.to_javascript("\"'`>") == ("\\x22\\x27\\x60\\x3e", "")  # safe inside a selector string
    with pytest.raises(JavaRegexError, match="grapheme"):
        javaregex.to_javascript("\\X")
