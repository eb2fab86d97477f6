"""The page-elements list (``e1``, ``e2``…) numbered from a default-mode ARIA snapshot exactly as
upstream's ``buildCompactElementList`` numbers it: recorded refs depend on every rule here."""

from __future__ import annotations

from trailblaze.drivers.web import elements

# what `aria_snapshot()` (default mode) writes; the comments say what upstream does with each line
DEFAULT_MODE = """\
- banner:
  - navigation "Main":
    - link "Forms":
      - /url: forms.html
    - link "Forms":
      - /url: forms.html?again
- main:
  - heading "Products" [level=1]
  - paragraph: Several products share a name.
  - text: loose text
  - generic "named generic"
  - img
  - img "Logo"
  - button
  - button "Say \\"hi\\""
  - list "Cables":
    - listitem "Cable - $9.99":
      - button "View"
    - listitem "Cable - $9.99":
      - button "View"
  - iframe
  - widget "Custom"
"""


def test_elements_are_numbered_and_counted_among_equals_as_upstream_does() -> None:
    listing = elements.page_elements(DEFAULT_MODE)
    shown = {key: (e.descriptor, e.nth) for key, e in listing.items()}
    assert shown == {
        "e1": ('navigation "Main"', 0),  # a named landmark counts; the unnamed banner does not
        "e2": ('link "Forms"', 0),
        "e3": ('link "Forms"', 1),  # same descriptor: the second among equals
        "e4": ('heading "Products"', 0),
        "e5": ('paragraph "Several products share a name."', 0),  # `role: text` reads as a name
        # text lines, named generics and an unnamed img are not listed
        "e6": ('img "Logo"', 0),
        "e7": ("button", 0),  # interactive roles are listed without a name
        "e8": ('button "Say \\"', 0),  # upstream's name ends at the first quote
        "e9": ('list "Cables"', 0),
        "e10": ('listitem "Cable - $9.99"', 0),
        "e11": ('button "View"', 0),
        "e12": ('listitem "Cable - $9.99"', 1),
        "e13": ('button "View"', 1),
        # an unnamed iframe and a role Playwright does not know (read as generic) are not listed
    }


def test_an_element_is_paired_with_its_handle_in_the_ai_snapshot() -> None:
    ai_mode = """\
- generic [active] [ref=e1]:
  - button "View" [ref=e7]
  - generic [ref=e8]:
    - button "View" [ref=e9]
  - iframe [ref=e10]:
    - button "View" [ref=f1e2]
"""
    listing = elements.page_elements('- button "View"\n- button "View"\n- iframe', ai_mode)
    assert [(e.id, e.nth, e.handle, e.line) for e in listing.values()] == [("e1", 0, "e7", 1), ("e2", 1, "e9", 3)]


def test_an_element_id_is_written_as_upstream_accepts_it() -> None:
    assert elements.element_id("e5") == "e5"
    assert elements.element_id(" [e12] ") == "e12"
    assert elements.element_id("f1e2") is None
    assert elements.element_id('button "e5"') is None
