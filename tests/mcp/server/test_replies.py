"""A reply's text: the account a client's LLM reads back as YAML, and the screen once — whole, or
what changed since the client was last sent it."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from trailblaze.mcpserver import replies

FORM = """\
heading "Forms" level=1 [e6]
generic "Name"
textbox "Name" [e7]
textbox "Email" [e8]
combobox "Plan" [e10]
  option "Free" selected [e11]
  option "Pro" [e12]
button "Submit" [e16]
button "Clear All" [e17]"""


def test_the_first_screen_is_whole_and_the_same_one_is_unchanged() -> None:
    assert replies.screen_update(None, FORM) == "The screen now:\n" + FORM
    assert replies.screen_update(FORM, FORM) == "The screen did not change."


def test_a_field_edit_is_the_one_line_that_changed() -> None:
    typed = FORM.replace('textbox "Name" [e7]', 'textbox "Name" value=Ada focused [e7]')
    assert replies.screen_update(FORM, typed) == (
        'The screen changed (ask() shows all of it):\n~ textbox "Name" value=Ada focused [e7]'
    )


def test_lines_added_and_removed_are_marked_in_screen_order() -> None:
    after = FORM.replace('generic "Name"\n', "").replace(
        'button "Clear All" [e17]', 'button "Clear All" [e17]\nalert "Name is required" [e18]'
    )
    after = after.replace('  option "Free" selected [e11]', '  option "Free" [e11]')
    assert replies.screen_changes(FORM.splitlines(), after.splitlines()) == [
        '- generic "Name"',
        '~   option "Free" [e11]',
        '+ alert "Name is required" [e18]',
    ]


def test_another_page_is_shown_whole_when_that_is_shorter_than_what_changed() -> None:
    other = 'heading "About" level=1 [e1]\nparagraph "A sample app" [e2]'
    assert replies.screen_update(FORM, other) == "The screen now:\n" + other


def test_a_failure_leads_with_its_message_then_what_else_happened_then_the_screen() -> None:
    text = replies.text("web_click: no element\n\nmatches e99", {"executed": True, "done": None}, "The screen now:\nx")
    assert text == "web_click: no element\nmatches e99\n\nexecuted: true\ndone: null\n\nThe screen now:\nx"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(min_size=1, max_size=12), JSON, min_size=1, max_size=6))
def test_the_account_reads_back_as_what_was_said_and_never_holds_a_blank_line(account: dict[str, Any]) -> None:
    text = replies.account_text(account)
    assert yaml.safe_load(text) == account
    assert "\n\n" not in text  # a reply's parts are apart at blank lines


def test_the_account_is_a_line_per_key_with_short_values_in_flow_style() -> None:
    recorded = {"step": 2, "text": "Click 'Search'", "tools": [{"web_click": {"ref": "e12"}}]}
    rows = [{"name": f"trail {n}", "file": f"trails/t{n}.trail.yaml", "title": "x" * 80} for n in range(2)]
    assert replies.account_text({"ok": True, "recorded": recorded, "trails": rows}).splitlines() == [
        "ok: true",
        "recorded: {step: 2, text: Click 'Search', tools: [{web_click: {ref: e12}}]}",
        "trails:",
        f"- {{name: trail 0, file: trails/t0.trail.yaml, title: {'x' * 80}}}",
        f"- {{name: trail 1, file: trails/t1.trail.yaml, title: {'x' * 80}}}",
    ]
