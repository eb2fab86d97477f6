"""The screen as agents read it."""

from __future__ import annotations

from trailblaze.device.screen import render_screen
from trailblaze.drivers.web.aria import parse_snapshot

SNAPSHOT = """\
- generic [ref=e1]:
  - navigation "Main" [ref=e2]:
    - link "Forms" [ref=e3]:
      - /url: forms.html
  - generic:
    - heading "Forms" [level=1] [ref=e4]
    - textbox "Name" [active] [ref=e5]: Ada
    - checkbox "Subscribe" [checked] [ref=e6]
    - button "Submit" [disabled] [ref=e7]
"""


def test_one_element_per_line_with_refs_and_state() -> None:
    assert render_screen(parse_snapshot(SNAPSHOT)).splitlines() == [
        "generic [e1]",
        '  navigation "Main" [e2]',
        '    link "Forms" url=forms.html [e3]',
        '  heading "Forms" level=1 [e4]',  # the anonymous wrapper is left out
        '  textbox "Name" value=Ada focused [e5]',
        '  checkbox "Subscribe" checked [e6]',
        '  button "Submit" disabled [e7]',
    ]


def test_long_screens_are_cut_with_a_note() -> None:
    snapshot = "\n".join(f'- button "B{i}" [ref=e{i}]' for i in range(10))
    lines = render_screen(parse_snapshot(snapshot), max_lines=3).splitlines()
    assert lines == ['button "B0" [e0]', 'button "B1" [e1]', 'button "B2" [e2]', "… 7 more elements not shown"]


def test_an_empty_screen_says_so() -> None:
    assert render_screen(parse_snapshot("")) == "(the screen is empty)"
