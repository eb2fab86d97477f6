"""What a failure message says of the screen (``trailblaze/device/nearest.py``): a few elements at
most — the ones that read like what was looked for, else those of the role it looked for, else
the first ones — never the whole screen."""

from __future__ import annotations

from trailblaze.device.commands import ViewNode
from trailblaze.device.nearest import SCREEN_LINES, screen_hint, wanted_role, wanted_texts


def page(*nodes: tuple[str, str]) -> ViewNode:
    return ViewNode(class_name="main", children=[ViewNode(text=text, class_name=role) for role, text in nodes])


FORM = page(
    ("navigation", "Main"),
    ("link", "Forms"),
    ("link", "Lists"),
    ("link", "About"),
    ("heading", "Contact"),
    ("textbox", "Name"),
    ("combobox", "Plan"),
    ("button", "Submit"),
    ("button", "Clear All"),
)


def test_what_reads_like_what_was_looked_for_is_named_alone() -> None:
    assert screen_hint(["Sumbit"], FORM, role="button") == "nearest on screen: button 'Submit'"


def test_when_nothing_reads_like_it_the_elements_of_its_role_are_named() -> None:
    assert screen_hint(["Send"], FORM, role="button") == "on screen: button 'Submit'; button 'Clear All'"
    links = page(*[("link", f"Page {n}") for n in range(1, 9)])
    assert screen_hint(["Zebra"], links, role="link").endswith("link 'Page 5'; …")


def test_otherwise_the_first_elements_say_which_screen_it_was() -> None:
    hint = screen_hint(["#never"], FORM)
    assert hint == "on screen: navigation 'Main'; link 'Forms'; link 'Lists'; link 'About'; heading 'Contact'; …"
    assert hint.count("; ") == SCREEN_LINES  # five elements and the mark that there are more
    assert screen_hint(["Send"], FORM, role="slider") == hint  # no element of the role: the same
    assert screen_hint([], page()) == "on screen: (nothing with text on screen)"


def test_a_driver_names_its_elements_its_own_way() -> None:
    assert screen_hint([], FORM, outline=lambda limit: f"{limit} of them") == "on screen: 5 of them"


def test_the_role_is_the_elements_own_not_its_containers() -> None:
    args = {
        "nodeSelector": {
            "web": {"ariaRole": "link", "ariaNameRegex": "Add"},
            "childOf": {"web": {"ariaRole": "row"}},
        }
    }
    assert wanted_role(args) == "link"
    assert wanted_role({"nodeSelector": {"childOf": {"web": {"ariaRole": "row"}}, "web": {"cssSelector": "a"}}}) is None
    assert wanted_role({"text": "Submit"}) is None
    assert wanted_texts(args) == ["Add"]
