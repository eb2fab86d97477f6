"""``nodeSelector`` and ``ref`` → Playwright locators, against the sample app in real Chromium.

Each case asks the question a trail asks: which elements does this selector find on this page?
"""

from __future__ import annotations

import html
import random
from typing import TYPE_CHECKING, Any

import pytest

from trailblaze.core import javaregex
from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import NodeSelector, text_matches
from trailblaze.drivers.web import locators
from trailblaze.drivers.web.device import WebDevice

if TYPE_CHECKING:
    from playwright.async_api import Locator

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

NAV = {"web": {"ariaRole": "navigation", "ariaNameRegex": "Main"}}
ITEM_LIST = {"web": {"dataTestId": "item-list"}}


def selector(data: dict[str, Any]) -> NodeSelector:
    return NodeSelector.model_validate(data)


async def texts(device: WebDevice, data: dict[str, Any], timeout: float = 2) -> list[str]:
    """The visible text of every element the selector resolves to, in document order."""
    locator = await locators.resolve(device.page, selector(data), None, timeout)
    return [" ".join(t.split()) for t in await locator.all_inner_texts()]


# -- name patterns: whole value as a Java regex, or the literal text ------------------------------------


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("Item 1", "Item 1", True),
        ("Item 1", "Item 10", False),  # whole value, not a search
        ("Item 1\\d", "Item 12", True),
        ("Subscribe.*", "Subscribe to newsletter", True),
        ("Price (USD)", "Price (USD)", True),  # as a regex the parentheses group; literally it is equal
        ("Price (USD)", "Price USD", True),
        ("a[b", "a[b", True),  # not a valid regex: literal
        ("submit", "Submit", False),  # case matters
        # Java's syntax, as upstream records it
        ("\\QWireless Mouse - $29.99\\E", "Wireless Mouse - $29.99", True),
        ("\\QAdapter v2.0\\E", "Adapter v2x0", False),  # quoted: the dot is a dot
        ("^Total: $5$", "Total: $5", True),  # upstream reads an anchored name as the name inside
        ("(?i)submit", "SUBMIT", True),
        ("(?iu)stra\\u00dfe", "STRAẞE", True),  # Unicode case, asked for
        ("(?i)stra\\u00dfe", "STRAẞE", False),  # Java's (?i) alone: ASCII letters only
        ("\\d++ items", "50 items", True),  # possessive
        ("Buy.*+\\)", "Buy (sale)", False),  # possessive: .*+ keeps the ')' (as in Java)
        ("(?>Show|Show qty)", "Show qty", False),  # atomic: the first alternative is final
        ("(a)(?>b)\\1x*+", "abaxx", True),  # the pattern's own groups keep their numbers
        ("\\p{Lu}\\p{Ll}+", "Émile", True),
        ("\\p{Lu}\\p{Ll}+", "émile", False),
        ("[a-z&&[^aeiou]]+", "rhythm", True),
        ("[a-z&&[^aeiou]]+", "rhyme", False),
        ("Say \"hi\" > 'bye'", "Say \"hi\" > 'bye'", True),  # quotes and '>' survive the selector string
        ('Say "\\(hi\\)" >> `x`.*', 'Say "(hi)" >> `x` now', True),
        ("(?iu)\\u017fun", "SUN", True),  # the long s is an s, ignoring Unicode case
    ],
)
async def test_name_match_matches_the_whole_name_or_the_literal_text(
    device: WebDevice, pattern: str, value: str, matches: bool
) -> None:
    match = locators.name_match(pattern)
    if isinstance(match, str):
        assert (match == value) is matches
    else:
        script = "([s, f, v]) => new RegExp(s, f).test(v)"
        tested = await device.page.evaluate(script, [match.source, match.flags, value])
        assert tested is matches
    await device.page.set_content(f"<button>{html.escape(value)}</button>")  # and as Playwright applies it
    assert await locators.by_role(device.page, "button", pattern).count() == int(matches)


#: pieces of Java patterns for test_names_match_in_the_page_as_in_python
PIECES = ["a", "B", "é", "ß", "ẞ", "ſ", "K", ".", "\\d", "\\w", "\\s", "[a-c]", "[^a]", "[a-z&&[^b]]", "\\p{Lu}"]
PIECES += ["\\P{L}", "\\Qa.b\\E", "\\.", "\\x41", "(?i)", "(?-i)", "(?i:ab)", "\\b", " ", "$", "^"]


def java_pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.15 and depth < 2:
            part = f"({java_pattern(rng, depth + 1)})"
        elif roll < 0.22 and depth < 2:
            part = f"(?:{java_pattern(rng, depth + 1)}|{java_pattern(rng, depth + 1)})"
        else:
            part = rng.choice(PIECES)
        if part not in ("(?i)", "(?-i)", "\\b", "$", "^") and not part.startswith("\\Q"):
            part += rng.choice(["", "", "*", "+", "?", "{1,2}", "*?"])
        parts.append(part)
    return "".join(parts)


async def test_names_match_in_the_page_as_in_python(device: WebDevice) -> None:
    """The same Java pattern, translated for V8 and for Python's regex, matches the same names."""
    rng = random.Random(12)
    cases = []
    for _ in range(400):
        pattern = java_pattern(rng)
        match = locators.name_match(pattern)
        for _ in range(4):
            name = "".join(rng.choice("aAbB1 .éÉxßẞsSſkK") for _ in range(rng.randint(0, 5)))
            expected = text_matches(pattern, name) or name == javaregex.upstream_name(pattern)
            if isinstance(match, str):
                assert (match == name) is expected, (pattern, name)
            else:
                cases.append((pattern, name, match.source, match.flags, expected))
    script = "cases => cases.map(([s, f, name]) => new RegExp(s, f).test(name))"
    found = await device.page.evaluate(script, [[source, flags, name] for _, name, source, flags, _ in cases])
    assert [(p, n) for (p, n, *_, expected), got in zip(cases, found, strict=True) if got is not expected] == []


def test_a_plain_or_quoted_name_is_an_exact_name_as_upstream_has_it() -> None:
    assert locators.name_match("View") == "View"
    assert locators.name_match("\\QWireless Mouse - $29.99\\E") == "Wireless Mouse - $29.99"
    assert locators.name_match("^Contact Form$") == "Contact Form"
    assert locators.name_match("Total \\$5\\.00") == "Total $5.00"
    assert not isinstance(locators.name_match("Item \\d+"), str)


# -- the web block ---------------------------------------------------------------------------------


async def test_role_and_name_match_the_whole_accessible_name(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    assert await texts(device, {"web": {"ariaRole": "link", "ariaNameRegex": "Item 1"}}) == ["Item 1"]
    assert len(await texts(device, {"web": {"ariaRole": "link", "ariaNameRegex": "Item 1\\d"}})) == 10


async def test_the_web_block_decides_in_upstreams_order_css_then_test_id_then_role(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    css_first = {"web": {"cssSelector": "select", "dataTestId": "name-input", "ariaRole": "link"}}
    assert await (await locators.resolve(device.page, selector(css_first), None, 2)).get_attribute("id") == "plan"
    test_id_next = {"web": {"dataTestId": "name-input", "ariaRole": "link", "ariaNameRegex": "Nothing"}}
    assert await (await locators.resolve(device.page, selector(test_id_next), None, 2)).get_attribute("id") == "name"
    assert await (await locators.resolve(device.page, selector({"web": {"cssSelector": "input"}}), None, 2)).count() > 1


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

    async def found(ref: str) -> Locator:
        locator = await locators.for_ref(page, ref)
        assert locator is not None
        return locator

    assert await (await found("css=#plan")).get_attribute("id") == "plan"
    assert await (await found('button "Clear All"')).get_attribute("id") == "clear"
    assert await (await found("checkbox")).get_attribute("id") == "newsletter"
    assert await (await found('textbox "Name"')).count() == 1  # exact name: not "Name" in other labels
    assert await (await found("e10")).get_attribute("id") == "plan"  # the page-elements list
    assert await (await found("[e10]")).get_attribute("id") == "plan"
    assert await locators.for_ref(page, "e99") is None
    # upstream's readings of a descriptor without quotes, then of plain text
    assert await (await found("button Clear All")).get_attribute("id") == "clear"
    assert await (await found("button 'Clear All'")).get_attribute("id") == "clear"
    assert await (await found("Clear All")).get_attribute("id") == "clear"  # the name of a control
    assert await (await found('heading "Forms" [level=1]')).inner_text() == "Forms"
    assert await (await found("Subscribe to")).inner_text() == "Subscribe to newsletter"  # at last, text


async def test_a_descriptor_ref_reads_quotes_in_the_name_as_the_snapshot_writes_them(device: WebDevice) -> None:
    await device.page.set_content('<button>Say "hi"</button><button>Say</button>')
    snapshot = await device.page.aria_snapshot(mode="ai")
    assert 'button "Say \\"hi\\""' in snapshot
    located = await locators.for_ref(device.page, 'button "Say \\"hi\\""')
    assert located is not None and await located.inner_text() == 'Say "hi"'


async def test_a_node_selector_and_a_ref_are_alternatives(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    submit, clear, nothing = (selector({"web": {"cssSelector": css}}) for css in ("#submit", "#clear", "#nothing"))
    page = device.page
    # both find something: the first in document order, as upstream's locator.or(…).first()
    assert await (await locators.resolve(page, clear, "css=#submit", 1)).get_attribute("id") == "submit"
    assert await (await locators.resolve(page, submit, "e17", 1)).get_attribute("id") == "submit"
    # one finds nothing: the other
    assert await (await locators.resolve(page, nothing, "e17", 1)).get_attribute("id") == "clear"
    assert await (await locators.resolve(page, clear, "e99", 1)).get_attribute("id") == "clear"
    # a node selector without a web block (upstream records `index: 2` alone) or for a phone gives way,
    # and so does a web block upstream finds nothing by (no CSS selector, test id or role)
    assert await (await locators.resolve(page, selector({"index": 2}), "e17", 1)).get_attribute("id") == "clear"
    for nothing_upstream in ({"nthIndex": 0}, {"ariaNameRegex": "Submit"}, {"headingLevel": 1}):
        only = selector({"web": nothing_upstream})
        assert await (await locators.resolve(page, only, "e17", 1)).get_attribute("id") == "clear"
    phone = selector({"androidAccessibility": {"textRegex": "Submit"}})
    assert await (await locators.resolve(page, phone, "e16", 1)).get_attribute("id") == "submit"
    # spatial selectors too: whichever is found first
    laid_out = selector({"web": {"ariaRole": "button"}, "rightOf": {"web": {"cssSelector": "#nothing"}}})
    assert await (await locators.resolve(page, laid_out, "e17", 1)).get_attribute("id") == "clear"
    with pytest.raises(ToolFailure, match="give a nodeSelector or a ref"):
        await locators.resolve(page, None, None, 1)
    with pytest.raises(ToolFailure, match="give a nodeSelector or a ref"):
        await locators.resolve(page, None, "  ", 1)


# -- upstream's selectors on a page of duplicate names and names with $, . and ( ---------------------------


async def selected(device: WebDevice, data: dict[str, Any] | None, ref: str | None = None) -> str:
    locator = await locators.resolve(device.page, selector(data) if data else None, ref, 2)
    await locator.click(timeout=2000)
    return await device.page.locator("#selected").inner_text()


async def test_quoted_names_and_nth_index_as_upstream_records_them(device: WebDevice) -> None:
    await device.navigate("/products.html")
    cable = "\\QPremium Cable (1 m) - $9.99\\E"
    listitem = {"ariaRole": "listitem"}
    assert await selected(device, {"web": {**listitem, "ariaNameRegex": "\\QPremium Cable (2 m) - $12.50\\E"}}) == (
        "Selected: Premium Cable (2 m) - $12.50 (ID: cable-2)"
    )
    for nth, product in enumerate(["cable-1", "cable-3", "cable-4"]):
        chosen = await selected(device, {"web": {**listitem, "ariaNameRegex": cable, "nthIndex": nth}})
        assert chosen.endswith(f"(ID: {product})")
    for nth, product in enumerate(["cable-1", "cable-2", "cable-3", "adapter-1", "adapter-2", "cable-4"]):
        chosen = await selected(device, {"web": {"ariaRole": "button", "ariaNameRegex": "View", "nthIndex": nth}})
        assert chosen.endswith(f"(ID: {product})")
    quoted = {"web": {**listitem, "ariaNameRegex": "\\QAdapter v2.0 - $19.99\\E"}}
    assert await (await locators.resolve(device.page, selector(quoted), None, 1)).count() == 1
    as_regex = {"web": {**listitem, "ariaNameRegex": "Adapter v2\\.0 - \\$19\\.99"}}
    assert await (await locators.resolve(device.page, selector(as_regex), None, 1)).count() == 1
    loose = {"web": {**listitem, "ariaNameRegex": "Adapter v2.0 - .*"}}  # the dot also matches the x
    assert await (await locators.resolve(device.page, selector(loose), None, 1)).count() == 2
    anchored = {"web": {**listitem, "ariaNameRegex": "^Premium Cable (2 m) - $12.50$"}}  # upstream: the name inside
    assert await selected(device, anchored) == "Selected: Premium Cable (2 m) - $12.50 (ID: cable-2)"
    ignoring_case = {"web": {**listitem, "ariaNameRegex": "(?i)premium cable \\(2 M\\).*"}}
    assert (await selected(device, ignoring_case)).endswith("(ID: cable-2)")
    unicode_class = {"web": {**listitem, "ariaNameRegex": "\\p{Lu}\\p{Ll}+ v2\\.0\\P{L}*"}}
    assert (await selected(device, unicode_class)).endswith("(ID: adapter-1)")


async def test_refs_name_the_elements_as_upstream_numbers_them(device: WebDevice) -> None:
    await device.navigate("/products.html")
    # e11 the first "Premium Cable (1 m) - $9.99", e15 the second, e24 the third; e12 … e25 the View buttons
    assert (await selected(device, None, "e15")).endswith("(ID: cable-3)")
    assert (await selected(device, None, "e24")).endswith("(ID: cable-4)")
    assert (await selected(device, None, "e23")).endswith("(ID: adapter-2)")
    assert (await selected(device, None, 'listitem "Premium Cable (2 m) - $12.50"')).endswith("(ID: cable-2)")
    assert (await selected(device, None, 'button "View"')).endswith("(ID: cable-1)")  # the first, as upstream


async def test_a_selector_that_would_grow_too_big_for_playwright_is_refused(device: WebDevice) -> None:
    # within the depth bound, but each containsChild level quotes the next into itself again
    nested: dict[str, Any] = {"web": {"ariaRole": "button", "ariaNameRegex": '"' * 2000}}
    for _ in range(7):
        nested = {"web": {"cssSelector": "div"}, "containsChild": nested}
    with pytest.raises(ToolFailure, match=r"makes a Playwright selector longer than 100000 characters"):
        locators.build(device.page, selector(nested))
    assert await locators.build(device.page, selector({"web": {"cssSelector": "body"}})).count() == 1


def test_describe_web_names_the_target() -> None:
    assert locators.describe_web(selector({"web": {"cssSelector": "#a"}}), "e1") == "cssSelector='#a'"
    assert locators.describe_web(None, "e1") == "ref 'e1'"
    assert locators.describe_web(None, None) == "the page"
