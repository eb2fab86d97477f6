"""Playwright's ARIA snapshot → the shared ``ViewNode`` tree (what tools and agents read)."""

from __future__ import annotations

import json
import re

import pytest

from trailblaze.device.commands import ViewNode
from trailblaze.device.screen import render_screen
from trailblaze.drivers.web import aria, locators
from trailblaze.drivers.web.device import WebDevice

SNAPSHOT = """\
- generic [active] [ref=e1]:
  - navigation "Main" [ref=e3]:
    - link "Forms" [ref=e4] [cursor=pointer]:
      - /url: forms.html
  - heading "Say \\"hi\\"" [level=1] [ref=e9]
  - checkbox "Subscribe" [checked] [ref=e24]
  - checkbox "Mixed" [checked=mixed] [ref=e25]
  - button "Continue" [disabled] [ref=e26]
  - textbox "Name" [ref=e13]: Ada
  - paragraph [ref=e30]: 50 items
  - list "Results":
    - listitem: Alpha
  - generic [ref=e12]: Name
"""


def by_ref(root: ViewNode, ref: str) -> ViewNode:
    return next(n for n in root.walk() if n.ref == ref)


def test_parse_builds_the_tree_with_roles_names_and_refs() -> None:
    root = aria.parse_snapshot(SNAPSHOT)
    assert root.class_name == "document"
    (top,) = root.children
    assert (top.class_name, top.ref, top.focused) == ("generic", "e1", True)
    nav = by_ref(root, "e3")
    assert (nav.class_name, nav.text, nav.parent) == ("navigation", "Main", top)
    link = by_ref(root, "e4")
    assert link.parent is nav
    assert link.attributes["url"] == "forms.html"  # '- /url:' lines are properties of their parent
    assert link.clickable
    assert link.attributes["cursor"] == "pointer"
    results = next(n for n in root.walk() if n.text == "Results")
    assert [c.class_name for c in results.children] == ["listitem"]


def test_parse_reads_states_and_escaped_names() -> None:
    root = aria.parse_snapshot(SNAPSHOT)
    heading = by_ref(root, "e9")
    assert heading.text == 'Say "hi"'
    assert heading.attributes["level"] == "1"
    assert by_ref(root, "e24").checked is True
    assert by_ref(root, "e25").checked is None
    assert by_ref(root, "e26").enabled is False
    assert by_ref(root, "e13").attributes["value"] == "Ada"  # a field's inline text is its value, not its name
    assert by_ref(root, "e13").text == "Name"
    assert by_ref(root, "e30").text == "50 items"  # a text-like node's inline text is its text
    assert by_ref(root, "e12").text == "Name"


def test_parse_ignores_lines_that_are_not_items() -> None:
    root = aria.parse_snapshot('garbage\n- button "OK" [ref=e2]\n\n  stray text\n')
    assert [(n.class_name, n.text) for n in root.children] == [("button", "OK")]


def test_descriptor_is_role_and_quoted_name() -> None:
    root = aria.parse_snapshot(SNAPSHOT)
    assert aria.descriptor(by_ref(root, "e9")) == 'heading "Say \\"hi\\""'
    assert aria.descriptor(ViewNode(class_name="main")) == "main"


def test_with_refs_puts_other_refs_on_lines_and_keeps_frame_handles() -> None:
    snapshot = """\
- generic [active] [ref=e1]:
  - combobox "Plan" [ref=e22]:
    - option "Free" [selected]
  - textbox "Name" [ref=e13]: Ada [x]
  - link "Forms" [ref=e4] [cursor=pointer]:
    - /url: forms.html
  - iframe [ref=e5]:
    - button "Go" [ref=f1e2]"""
    assert aria.with_refs(snapshot, {1: "e7", 2: "e8", 3: "e9"}) == (
        """\
- generic [active]:
  - combobox "Plan" [ref=e7]:
    - option "Free" [selected] [ref=e8]
  - textbox "Name" [ref=e9]: Ada [x]
  - link "Forms" [cursor=pointer]:
    - /url: forms.html
  - iframe:
    - button "Go" [ref=f1e2]"""
    )


@pytest.mark.anyio
@pytest.mark.browser
async def test_every_ref_of_a_real_snapshot_locates_exactly_its_element(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    root = await device.view_hierarchy()
    refs = [n for n in root.walk() if n.ref]
    # the page-elements list as upstream numbers it: controls, named content, in document order
    assert [n.ref for n in refs] == [f"e{i}" for i in range(1, 18)]
    for node in refs:
        located = await locators.for_ref(device.page, node.ref or "")
        assert located is not None and await located.count() == 1, node
        snapshot = await located.aria_snapshot()
        assert snapshot.startswith(f"- {node.class_name} {json.dumps(node.text)}"), (node, snapshot)
    names = {(n.class_name, n.text) for n in root.walk()}
    assert {("button", "Submit"), ("combobox", "Plan"), ("checkbox", "Subscribe to newsletter")} <= names
    outline = root.outline()
    assert "button 'Submit'" in outline
    assert "heading 'Forms'" in outline
    assert "combobox 'Plan' (3 options)" in outline and "option 'Free'" not in outline  # counted, not listed


@pytest.mark.anyio
@pytest.mark.browser
async def test_the_screen_after_the_tenth_navigation_is_the_screen_after_the_first(device: WebDevice) -> None:
    # Playwright (1.6x) numbers the top document's handles with a prefix once the page has
    # navigated (f2e5); they are still the top document's, not a frame's
    screens = []
    for _ in range(10):
        await device.navigate("/forms.html")
        screens.append(render_screen(await device.view_hierarchy()))
    assert screens[-1] == screens[0]
    assert "generic [" not in screens[0]  # anonymous wrappers carry no ref
    refs = re.findall(r"\[((?:f\d+)?e\d+)\]", screens[-1])
    assert refs == [f"e{i}" for i in range(1, len(refs) + 1)]
    for ref in refs:  # every ref the tenth screen shows still locates exactly one element
        located = await locators.for_ref(device.page, ref)
        assert located is not None and await located.count() == 1, ref
