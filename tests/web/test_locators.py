"""``nodeSelector`` and ``ref`` → Playwright locators, against the sample app in real Chromium.

Each case asks the question a trail asks: which elements does this selector find on this page?
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from trailblaze.errors import ToolFailure
from trailblaze.selectors import NodeSelector
from trailblaze.web import locators
from trailblaze.web.driver import WebDevice

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

NAV = {"web": {"ariaRole": "navigation", "ariaNameRegex": "Main"}}
ITEM_LIST = {"web": {"dataTestId": "item-list"}}


def selector(data: dict[str, Any]) -> NodeSelector:
    return NodeSelector.model_validate(data)


async def texts(device: WebDevice, data: dict[str, Any], timeout: float = 2) -> list[str]:
    """The visible text of every element the selector resolves to, in document order."""
    locator = await locators.resolve(device.page, selector(data), None, timeout)
    return [" ".join(t.split()) for t in await locator.all_inner_texts()]


# -- name patterns: whole value as a regex, or the literal text ------------------------------------


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("Item 1", "Item 1", True),
        ("Item 1", "Item 10", False),  # whole value, not a search
        ("Item 1\\d", "Item 12", True),
        ("Subscribe.*", "Subscribe to newsletter", True),
        ("Price (USD)", "Price (USD)", True),  # as a regex the parentheses group; literally it is equal
        ("a[b", "a[b", True),  # not a valid regex: literal
        ("submit", "Submit", False),  # case matters
    ],
)
def test_name_pattern_matches_the_whole_value_or_the_literal_text(pattern: str, value: str, matches: bool) -> None:
    assert bool(locators.name_pattern(pattern).search(value)) is matches


# -- the web block ---------------------------------------------------------------------------------


async def test_role_and_name_match_the_whole_accessible_name(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    assert await texts(device, {"web": {"ariaRole": "link", "ariaNameRegex": "Item 1"}}) == ["Item 1"]
    assert len(await texts(device, {"web": {"ariaRole": "link", "ariaNameRegex": "Item 1\\d"}})) == 10


async def test_fields_of_the_web_block_narrow_each_other(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    both = {"web": {"cssSelector": "input", "dataTestId": "name-input", "ariaRole": "textbox"}}
    locator = await locators.resolve(device.page, selector(both), None, 2)
    assert await locator.get_attribute("id") == "name"
    contradicting = {"web": {"cssSelector": "select", "dataTestId": "name-input"}}
    assert await (await locators.resolve(device.page, selector(contradicting), None, 2)).count() == 0


async def test_aria_descriptor_gives_role_and_name(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    assert await texts(device, {"web": {"ariaDescriptorRegex": 'button "Clear All"'}}) == ["Clear All"]
    assert len(await texts(device, {"web": {"ariaDescriptorRegex": "button"}})) == 2


async def test_heading_level_alone_means_a_heading_of_that_level(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    assert await texts(device, {"web": {"headingLevel": 1}}) == ["Lists"]
    assert await texts(device, {"web": {"headingLevel": 3}}) == ["Old items"]
    assert await texts(device, {"web": {"headingLevel": 2, "ariaNameRegex": "Archived"}}) == ["Archived"]


async def test_nth_index_picks_among_the_matches_of_the_block(device: WebDevice) -> None:
    await device.navigate("/index.html")
    nav_link = {"web": {"ariaRole": "link", "nthIndex": 2}, "childOf": NAV}
    assert await texts(device, nav_link) == ["Delayed content"]


# -- hierarchy -----------------------------------------------------------------------------------------


async def test_child_of_scopes_the_search(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    in_nav = await texts(device, {"web": {"ariaRole": "link"}, "childOf": NAV})
    assert in_nav == ["Forms", "Lists", "Delayed content", "About"]
    assert len(await texts(device, {"web": {"ariaRole": "link"}, "childOf": ITEM_LIST})) == 50


async def test_contains_child_keeps_elements_with_a_matching_descendant(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    row = {"web": {"cssSelector": "li"}, "containsChild": {"web": {"ariaRole": "link", "ariaNameRegex": "Item 7"}}}
    locator = await locators.resolve(device.page, selector(row), None, 2)
    assert await locator.count() == 1
    assert await locator.get_attribute("data-item-name") == "Item 7"
    # on the web any descendant counts, not only a direct child
    section = {
        "web": {"cssSelector": "main"},
        "containsChild": {"web": {"ariaRole": "link", "ariaNameRegex": "Item 7"}},
    }
    assert await (await locators.resolve(device.page, selector(section), None, 2)).count() == 1


async def test_contains_descendants_needs_every_one(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    both = {
        "web": {"cssSelector": "form"},
        "containsDescendants": [{"web": {"dataTestId": "name-input"}}, {"web": {"cssSelector": "#plan"}}],
    }
    assert await (await locators.resolve(device.page, selector(both), None, 2)).count() == 1
    missing = {
        "web": {"cssSelector": "form"},
        "containsDescendants": [{"web": {"dataTestId": "name-input"}}, {"web": {"cssSelector": "#nothing"}}],
    }
    assert await (await locators.resolve(device.page, selector(missing), None, 2)).count() == 0


async def test_selector_without_a_web_block_says_so(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    with pytest.raises(ToolFailure, match="is for androidMaestro, not the web"):
        await locators.resolve(device.page, selector({"androidMaestro": {"textRegex": "Submit"}}), None, 1)
    with pytest.raises(ToolFailure, match="no 'web:' block"):
        await locators.resolve(device.page, selector({"index": 0}), None, 1)
    with pytest.raises(ToolFailure, match="sets no field"):
        await locators.resolve(device.page, selector({"web": {}}), None, 1)


# -- layout: index and spatial relations ----------------------------------------------------------------


async def test_index_counts_matches_top_to_bottom(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    third = {"web": {"ariaRole": "link"}, "childOf": ITEM_LIST, "index": 2}
    assert await texts(device, third) == ["Item 3"]


async def test_index_counts_left_to_right_within_a_row(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    second = {"web": {"ariaRole": "button"}, "index": 1}
    assert await texts(device, second) == ["Clear All"]


async def test_index_skips_hidden_elements(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    # the error paragraph is hidden until a failed submit: the first visible paragraph-like match wins
    first = {"web": {"cssSelector": "main p, main h1"}, "index": 0}
    assert await texts(device, first) == ["Forms"]


async def test_below_and_above_pick_the_nearest_in_reading_order(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    archived = {"web": {"headingLevel": 2, "ariaNameRegex": "Archived"}}
    assert await texts(device, {"web": {"ariaRole": "heading"}, "below": archived}) == ["Old items"]
    assert await texts(device, {"web": {"ariaRole": "heading"}, "above": archived}) == ["Lists"]
    below_with_index = {"web": {"ariaRole": "link"}, "childOf": ITEM_LIST, "below": {"web": {"cssSelector": "#count"}}}
    assert await texts(device, {**below_with_index, "index": 4}) == ["Item 5"]


async def test_left_of_and_right_of(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    submit = {"web": {"ariaRole": "button", "ariaNameRegex": "Submit"}}
    assert await texts(device, {"web": {"ariaRole": "button"}, "rightOf": submit}) == ["Clear All"]
    clear = {"web": {"ariaRole": "button", "ariaNameRegex": "Clear All"}}
    assert await texts(device, {"web": {"ariaRole": "button"}, "leftOf": clear}) == ["Submit"]


async def test_layout_waits_for_the_element_then_gives_up_with_the_selector(device: WebDevice) -> None:
    await device.navigate("/delayed.html")
    late = {"web": {"cssSelector": "#welcome"}, "index": 0}
    assert await texts(device, late, timeout=5) == ["Welcome back!"]  # appears after 800 ms
    beyond = {"web": {"ariaRole": "button"}, "index": 40}
    with pytest.raises(ToolFailure, match=r"no element matches .*index=40 \(waited 0\.3s\)"):
        await locators.resolve(device.page, selector(beyond), None, 0.3)


# -- refs ----------------------------------------------------------------------------------------------


async def test_ref_forms(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    page = device.page
    assert await locators.for_ref(page, "css=#plan").get_attribute("id") == "plan"
    assert await locators.for_ref(page, 'button "Clear All"').get_attribute("id") == "clear"
    assert await locators.for_ref(page, "checkbox").get_attribute("id") == "newsletter"
    assert await locators.for_ref(page, 'textbox "Name"').count() == 1  # exact name: not "Name" in other labels
    snapshot = await page.aria_snapshot(mode="ai")
    ref = re.search(r'combobox "Plan" \[ref=(e\d+)\]', snapshot)
    assert ref is not None
    assert await locators.for_ref(page, ref.group(1)).get_attribute("id") == "plan"
    with pytest.raises(ToolFailure, match="neither an element ref"):
        locators.for_ref(page, "#plan")


async def test_a_descriptor_ref_reads_quotes_in_the_name_as_the_snapshot_writes_them(device: WebDevice) -> None:
    await device.page.set_content('<button>Say "hi"</button><button>Say</button>')
    snapshot = await device.page.aria_snapshot(mode="ai")
    assert 'button "Say \\"hi\\""' in snapshot
    assert await locators.for_ref(device.page, 'button "Say \\"hi\\""').inner_text() == 'Say "hi"'


async def test_a_node_selector_wins_over_a_ref(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    chosen = await locators.resolve(device.page, selector({"web": {"cssSelector": "#submit"}}), "css=#clear", 1)
    assert await chosen.get_attribute("id") == "submit"
    with pytest.raises(ToolFailure, match="give a nodeSelector or a ref"):
        await locators.resolve(device.page, None, None, 1)


# -- from an element back to a stable selector ------------------------------------------------------------


async def stable(device: WebDevice, css: str, role: str | None = None, name: str | None = None) -> dict[str, Any]:
    return await locators.stable_selector(device.page, device.page.locator(css), role, name)


async def test_stable_selector_prefers_test_id_then_role_and_name_then_id_then_css_path(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    assert await stable(device, "#filter", "searchbox", "Filter items") == {"web": {"dataTestId": "filter-input"}}
    await device.navigate("/forms.html")
    assert await stable(device, "#submit", "button", "Submit") == {
        "web": {"ariaRole": "button", "ariaNameRegex": "Submit"}
    }
    assert await stable(device, "#result-name") == {"web": {"cssSelector": "#result-name"}}
    path = await stable(device, ".actions")
    assert path == {"web": {"cssSelector": "#contact-form > div:nth-of-type(7)"}}


async def test_stable_selector_always_finds_the_same_single_element(device: WebDevice) -> None:
    await device.page.set_content(
        """
        <button>Save</button><button>Save</button>
        <button>A.C</button><button>ABC</button>
        <div><span>x</span><span>y</span></div>
        """
    )
    page = device.page
    cases = [
        ("button >> nth=1", "button", "Save"),  # same name twice: pinned by position
        ("button >> nth=2", "button", "A.C"),  # as a regex the name also matches "ABC"
        ("span >> nth=1", None, None),
    ]
    for css, role, name in cases:
        element = page.locator(css)
        found = await locators.stable_selector(page, element, role, name)
        located = locators.build(page, selector(found))
        assert await located.count() == 1, found
        assert await located.evaluate("(e, h) => e === h", await element.element_handle()), found


def test_describe_web_names_the_target() -> None:
    assert locators.describe_web(selector({"web": {"cssSelector": "#a"}}), "e1") == "cssSelector='#a'"
    assert locators.describe_web(None, "e1") == "ref 'e1'"
    assert locators.describe_web(None, None) == "the page"
