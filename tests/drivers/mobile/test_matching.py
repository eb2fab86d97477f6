"""Selector matching on the mobile screen model (trailblaze/drivers/mobile/matching.py), on hierarchies written
the way uiautomator2 dumps them."""

from __future__ import annotations

import pytest

from trailblaze.device.commands import ViewNode
from trailblaze.device.selectors import ElementSelector, NodeSelector
from trailblaze.drivers.android.hierarchy import parse_hierarchy
from trailblaze.drivers.mobile.matching import Screen, SelectorError, as_selector, text_selector


def node(bounds: str, children: str = "", **attrs: str) -> str:
    fields = {"text": "", "resource-id": "", "class": "android.view.View", "content-desc": "", **attrs}
    fields = {k.replace("_", "-"): v for k, v in fields.items()}
    text = " ".join(f'{k}="{v}"' for k, v in fields.items())
    if not children:
        return f'<node {text} bounds="{bounds}" />'
    return f'<node {text} bounds="{bounds}">{children}</node>'


def screen(*nodes: str, platform: str = "android") -> Screen:
    xml = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\">" + "".join(nodes)
    return Screen(parse_hierarchy(xml + "</hierarchy>"), platform)


FORM = screen(
    node(
        "[0,0][1080,2400]",
        node(
            "[48,300][1032,480]",
            node("[84,312][400,360]", text="Name", **{"class": "android.widget.TextView"}),
            **{"class": "android.widget.EditText", "resource-id": "app:id/name_input", "clickable": "true"},
        )
        + node(
            "[48,528][1032,708]",
            node("[84,540][400,588]", text="Email", **{"class": "android.widget.TextView"}),
            **{"class": "android.widget.EditText", "resource-id": "app:id/email_input", "hint": "you@example.com"},
        )
        + node(
            "[48,948][516,1092]",
            node("[72,972][492,1068]", text="Submit", **{"class": "android.widget.TextView"}),
            clickable="true",
            **{"content-desc": "Send the form"},
        )
        + node(
            "[564,948][1032,1092]",
            node("[588,972][1008,1068]", text="Clear All", **{"class": "android.widget.TextView"}),
            clickable="true",
        )
        + node(
            "[48,1140][1032,1320]",
            text="Name: Jane Doe&#10;Email: jane@example.com",
            **{"class": "android.widget.TextView"},
        )
        + node("[48,1400][1032,1500]", text="Hidden", **{"visible-to-user": "false"})
        + node("[48,1500][48,1600]", text="Empty box"),
    )
)


def texts(nodes: list) -> list[str | None]:
    return [n.text or n.description or n.id for n in nodes]


def test_a_text_regex_matches_the_whole_text_or_equals_it_literally() -> None:
    assert texts(FORM.find(ElementSelector(textRegex="Sub.*"))) == ["Submit"]
    assert FORM.find(ElementSelector(textRegex="ubmi")) == []
    assert texts(FORM.find(ElementSelector(textRegex="Name: Jane Doe\nEmail: jane@example.com"))) == [
        "Name: Jane Doe\nEmail: jane@example.com"
    ]
    with_parens = screen(node("[0,0][10,10]", text="Price (USD)"))
    assert len(with_parens.find(ElementSelector(textRegex="Price (USD)"))) == 1


def test_maestro_text_also_matches_hint_and_accessibility_text_but_accessibility_text_regex_does_not() -> None:
    assert texts(FORM.find(ElementSelector(textRegex="you@example.com"))) == ["app:id/email_input"]
    assert texts(FORM.find(ElementSelector(textRegex="Send the form"))) == ["Send the form"]
    strict = NodeSelector.model_validate({"androidAccessibility": {"textRegex": "Send the form"}})
    assert FORM.find(strict) == []
    by_description = NodeSelector.model_validate({"androidAccessibility": {"contentDescriptionRegex": "Send.*"}})
    assert texts(FORM.find(by_description)) == ["Send the form"]


def test_resource_ids_match_in_full_or_by_their_short_name() -> None:
    assert texts(FORM.find(ElementSelector(idRegex="app:id/name_input"))) == ["app:id/name_input"]
    assert texts(FORM.find(ElementSelector(idRegex="email_input"))) == ["app:id/email_input"]
    assert FORM.find(ElementSelector(idRegex="input")) == []


def test_contains_child_means_a_direct_child_and_child_of_any_ancestor() -> None:
    fields = FORM.find(ElementSelector(containsChild=ElementSelector(textRegex="Name")))
    assert texts(fields) == ["app:id/name_input"]
    root_contains = FORM.find(
        NodeSelector.model_validate({"containsChild": {"androidAccessibility": {"textRegex": "Name"}}})
    )
    assert texts(root_contains) == ["app:id/name_input"]  # not the screen's root: "Name" is not its direct child
    inside = FORM.find(ElementSelector(textRegex=".*", childOf=ElementSelector(idRegex="email_input")))
    assert texts(inside) == ["Email"]


def test_contains_descendants_needs_every_listed_selector() -> None:
    both = NodeSelector.model_validate(
        {
            "containsDescendants": [
                {"androidMaestro": {"textRegex": "Submit"}},
                {"androidMaestro": {"textRegex": "Clear All"}},
            ]
        }
    )
    found = FORM.find(both)
    assert [n.bounds.top for n in found if n.bounds] == [0]


def test_spatial_relations_compare_boxes_with_the_first_anchor() -> None:
    below = FORM.find(ElementSelector(textRegex=".+", below=ElementSelector(textRegex="Clear All")))
    assert texts(below) == ["Name: Jane Doe\nEmail: jane@example.com"]
    right = FORM.find(ElementSelector(textRegex=".+", rightOf=ElementSelector(textRegex="Submit")))
    assert texts(right) == ["Clear All"]
    left = FORM.find(ElementSelector(textRegex=".+", leftOf=ElementSelector(textRegex="Clear All")))
    assert texts(left) == ["Name", "Email", "Send the form", "Submit"]
    above = FORM.find(ElementSelector(textRegex="Email", above=ElementSelector(textRegex="Submit")))
    assert texts(above) == ["Email"]
    assert FORM.find(ElementSelector(textRegex=".+", below=ElementSelector(textRegex="Nowhere"))) == []


def test_index_counts_top_to_bottom_then_left_to_right() -> None:
    grid = screen(
        node("[500,0][600,100]", text="b"),
        node("[0,200][100,300]", text="c"),
        node("[0,0][100,100]", text="a"),
    )
    assert [texts(grid.find(ElementSelector(textRegex="[abc]", index=i))) for i in range(4)] == [
        ["a"],
        ["b"],
        ["c"],
        [],
    ]
    assert texts(grid.find(ElementSelector(textRegex="[abc]", index="2"))) == ["c"]
    with pytest.raises(SelectorError, match="not a whole number"):
        grid.find(ElementSelector(textRegex="a", index="first"))


def test_without_an_index_the_target_is_the_most_specific_match() -> None:
    anything = ElementSelector(textRegex=".+|")
    assert FORM.target(ElementSelector(accessibilityTextRegex="Send the form")).text is None  # the button itself
    nested = screen(node("[0,0][100,100]", node("[10,10][90,90]", text="inner"), text="outer"))
    assert nested.target(ElementSelector(textRegex="inner|outer")).text == "inner"
    assert nested.target(ElementSelector(textRegex="inner|outer", index=0)).text == "outer"
    assert FORM.target(anything) is not None


def test_invisible_and_empty_nodes_never_match() -> None:
    assert FORM.find(ElementSelector(textRegex="Hidden")) == []
    assert FORM.find(ElementSelector(textRegex="Empty box")) == []


def test_state_flags() -> None:
    toggles = screen(
        node("[0,0][100,100]", text="on", checkable="true", checked="true", **{"class": "android.widget.Switch"}),
        node("[0,100][100,200]", text="off", checkable="true", checked="false", enabled="false"),
        node("[0,200][100,300]", text="plain", focused="true", selected="true"),
    )
    assert texts(toggles.find(ElementSelector(checked=True))) == ["on"]
    assert texts(toggles.find(ElementSelector(checked=False))) == ["off", "plain"]
    assert texts(toggles.find(ElementSelector(enabled=False))) == ["off"]
    accessible = NodeSelector.model_validate({"androidAccessibility": {"isCheckable": True, "isEnabled": True}})
    assert texts(toggles.find(accessible)) == ["on"]
    assert texts(toggles.find(ElementSelector(focused=True, selected=True))) == ["plain"]
    klass = NodeSelector.model_validate({"androidAccessibility": {"classNameRegex": ".*Switch"}})
    assert texts(toggles.find(klass)) == ["on"]


def test_fields_uiautomator_cannot_show_are_an_error_naming_them() -> None:
    selector = NodeSelector.model_validate({"androidAccessibility": {"textRegex": "Name", "paneTitleRegex": "x"}})
    with pytest.raises(SelectorError, match="paneTitleRegex"):
        FORM.find(selector)


def test_a_selector_for_another_platform_is_an_error() -> None:
    with pytest.raises(SelectorError, match="for iosMaestro, not android"):
        FORM.find(NodeSelector.model_validate({"iosMaestro": {"textRegex": "Name"}}))
    with pytest.raises(SelectorError, match="for web"):
        FORM.find(NodeSelector.model_validate({"web": {"cssSelector": "#x"}}))
    with pytest.raises(SelectorError, match="css"):
        FORM.find(ElementSelector(css="#x"))


def test_text_and_id_shortcuts_narrow_a_selector() -> None:
    assert texts(FORM.find(text="Email")) == ["Email"]
    assert texts(FORM.find(ElementSelector(textRegex=".*"), id="name_input")) == ["app:id/name_input"]
    assert FORM.count(text_selector("Submit")) == 1


def test_as_selector_reads_either_shape() -> None:
    assert isinstance(as_selector({"androidAccessibility": {"textRegex": "x"}, "index": 1}), NodeSelector)
    assert isinstance(as_selector({"containsChild": {"textRegex": "x"}}), ElementSelector)
    assert isinstance(as_selector({"textRegex": "x", "idRegex": "y"}), ElementSelector)
    with pytest.raises(SelectorError, match="not a selector"):
        as_selector({"colour": "red"})


def test_stable_selectors_find_exactly_the_node() -> None:
    for ref_node in FORM.nodes:
        selector = FORM.stable_selector(ref_node)
        found = FORM.find(NodeSelector.model_validate(selector))
        assert len(found) == 1
        assert found[0] is ref_node, selector
    submit = next(n for n in FORM.nodes if n.text == "Submit")
    assert FORM.stable_selector(submit) == {"androidAccessibility": {"textRegex": "Submit"}}
    twins = screen(node("[0,0][100,100]", text="Same"), node("[0,200][100,300]", text="Same"))
    assert twins.stable_selector(twins.nodes[1]) == {"androidAccessibility": {"textRegex": "Same"}, "index": 1}


def model_list(*models: str, wrapped: bool = False) -> Screen:
    """A list view of models, each row its name and an Add button (an admin app's index)."""
    rows = ""
    for i, model in enumerate(models):
        top = 300 + i * 200
        content = node(f"[48,{top}][600,{top + 150}]", text=model, **{"class": "android.widget.TextView"}) + node(
            f"[700,{top}][1000,{top + 150}]",
            text="Add",
            clickable="true",
            **{"class": "android.widget.Button", "resource-id": "app:id/add"},
        )
        if wrapped:
            content = node(f"[0,{top}][1080,{top + 150}]", content, **{"class": "android.widget.FrameLayout"})
        rows += node(
            f"[0,{top}][1080,{top + 150}]",
            content,
            **{"class": "android.widget.LinearLayout", "resource-id": "app:id/model_row"},
        )
    return screen(
        node(
            "[0,0][1080,2400]",
            node("[0,300][1080,2400]", rows, **{"class": "androidx.recyclerview.widget.RecyclerView"}),
            **{"class": "android.widget.LinearLayout"},
        )
    )


def row_of(button: ViewNode) -> str | None:
    """The model name in the row that holds ``button``."""
    row = button.parent
    while row is not None and row.id != "app:id/model_row":
        row = row.parent
    assert row is not None
    return next(n.text for n in row.walk() if n.text and n is not button)


def test_a_button_on_every_row_of_a_list_is_told_apart_by_its_row() -> None:
    models = model_list("Groups", "Tickets", "Users")
    adds = [n for n in models.nodes if n.text == "Add"]
    selector = models.stable_selector(adds[1])
    assert selector == {
        "androidAccessibility": {"resourceIdRegex": "app:id/add"},
        "childOf": {
            "androidAccessibility": {"resourceIdRegex": "app:id/model_row"},
            "containsDescendants": [{"androidAccessibility": {"textRegex": "Tickets"}}],
        },
    }
    # the rows wrapped, in another order, a new one first: the same row's button
    redesign = model_list("Billing", "Users", "Tickets", "Groups", wrapped=True)
    target = redesign.target(NodeSelector.model_validate(selector))
    assert target is not None and target.text == "Add"
    assert row_of(target) == "Tickets"


def test_a_screen_matches_one_selector_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Polling a still screen (the same Screen, as the devices keep it for an identical
    document) matches the same selector once; an equal selector of its own, or another text,
    is matched afresh, and a caller may change what it got."""
    still = screen(node("[0,0][100,50]", text="Submit"), node("[0,60][100,110]", text="Cancel"))
    calls: list[object] = []
    matches = Screen._matches
    monkeypatch.setattr(Screen, "_matches", lambda self, s: calls.append(s) or matches(self, s))
    selector = as_selector({"androidAccessibility": {"textRegex": "Submit"}})
    first = still.find(selector)
    first.clear()
    assert [n.text for n in still.find(selector)] == ["Submit"]
    assert still.target(selector) is not None
    assert len(calls) == 1
    assert still.find(as_selector({"androidAccessibility": {"textRegex": "Submit"}}))
    assert [n.text for n in still.find(text="Cancel")] == ["Cancel"]
    assert len(calls) == 3
