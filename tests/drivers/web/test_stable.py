"""From a ref on the screen to the selector a recording keeps (``trailblaze.drivers.web.stable``), in
real Chromium: the most stable candidate that finds the element alone, and a recording that
still finds the same elements after a redesign of the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import NodeSelector
from trailblaze.drivers.web import locators, stable
from trailblaze.drivers.web.device import WebDevice

from .support import shown_ref

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

PAGES = Path(__file__).parent / "pages"
#: what an element is, whatever its markup around it: tag, name attribute and text
IDENTITY = "e => [e.localName, e.getAttribute('name'), e.textContent.trim().replace(/\\s+/g, ' ')]"


def orders_page(version: str, query: str = "?q=ada&status=shipped") -> str:
    return (PAGES / version / "orders.html").as_uri() + query


async def recorded(device: WebDevice, role: str, name: str | None) -> dict[str, Any]:
    """The selector recorded for the element the screen shows as ``role "name"``."""
    root = await device.view_hierarchy()
    if name is None:
        refs = [n.ref for n in root.walk() if n.class_name == role and not n.text and n.ref]
        assert len(refs) == 1, root.outline()
        ref = refs[0]
    else:
        ref = shown_ref(root, role, name)
    chosen = await device.selector_for_ref(ref or "")
    assert chosen is not None
    return chosen


async def test_candidates_in_the_order_a_playwright_user_reaches_for_them(device: WebDevice) -> None:
    await device.page.set_content(
        """
        <input data-testid="email" name="email" id="email" placeholder="Email" aria-label="Email">
        <button name="go" id="go">Go</button>
        <select name="status"><option>open</option></select>
        <input id="city">
        <input id=":r3:" aria-label="Search" placeholder="Search products">
        <input aria-label="Search" placeholder="Search people">
        <p>Nothing found</p>
        <button>Save</button><button>Save</button>
        <section id="people"><ul><li><a href="#a">Edit</a></li><li><a href="#b">Edit</a></li></ul></section>
        """
    )
    expected = [
        ("textbox", "Email", {"dataTestId": "email"}),  # a test id before anything
        ("button", "Go", {"ariaRole": "button", "ariaNameRegex": "Go"}),  # role and name before name and id
        ("combobox", None, {"cssSelector": 'select[name="status"]'}),  # no name: the name attribute
        ("paragraph", "Nothing found", {"cssSelector": 'p:text-is("Nothing found")'}),
    ]
    for role, name, web in expected:
        assert await recorded(device, role, name) == {"web": web}, (role, name)
    root = await device.view_hierarchy()
    (city,) = [n.ref for n in root.walk() if n.class_name == "textbox" and not n.text]
    assert await device.selector_for_ref(city or "") == {"web": {"cssSelector": "#city"}}
    # equal names, and a generated id passed over: the placeholders
    searches = [n.ref for n in root.walk() if n.class_name == "textbox" and n.text == "Search"]
    assert [await device.selector_for_ref(ref or "") for ref in searches] == [
        {"web": {"cssSelector": 'input[placeholder="Search products"]'}},
        {"web": {"cssSelector": 'input[placeholder="Search people"]'}},
    ]
    saves = [n.ref for n in root.walk() if n.class_name == "button" and n.text == "Save"]
    edits = [n.ref for n in root.walk() if n.class_name == "link" and n.text == "Edit"]
    # equal names: a structural path, as short as will do, below the nearest ancestor with an id
    assert [await device.selector_for_ref(ref or "") for ref in saves] == [
        {"web": {"cssSelector": "button:nth-of-type(2)"}},
        {"web": {"cssSelector": "button:nth-of-type(3)"}},
    ]
    assert [await device.selector_for_ref(ref or "") for ref in edits] == [
        {"web": {"cssSelector": "#people li:nth-of-type(1) a"}},
        {"web": {"cssSelector": "#people li:nth-of-type(2) a"}},
    ]


async def test_names_and_values_with_quotes_and_regex_characters(device: WebDevice) -> None:
    await device.page.set_content(
        """
        <button>Say "hi" (1)</button><button>Say "hi" (1)</button>
        <input name='a"b\\c'><textarea placeholder="line
        two"></textarea>
        """
    )
    root = await device.view_hierarchy()
    for node in root.walk():
        if not node.ref:
            continue
        chosen = await device.selector_for_ref(node.ref)
        assert chosen is not None, node
        found = locators.build(device.page, NodeSelector.model_validate(chosen))
        assert await found.count() == 1, chosen
    assert await recorded(device, "textbox", None) == {"web": {"cssSelector": 'input[name="a\\"b\\\\c"]'}}
    await device.page.set_content('<button>Say "hi" (1)</button>')
    assert await recorded(device, "button", 'Say "hi" (1)') == {
        "web": {"ariaRole": "button", "ariaNameRegex": '\\QSay "hi" (1)\\E'}
    }


@pytest.mark.parametrize(
    "page", ["/forms.html", "/lists.html", "/products.html", "/delayed.html", "original", "redesigned"]
)
async def test_every_ref_records_a_selector_that_finds_that_element_alone(device: WebDevice, page: str) -> None:
    await device.navigate(orders_page(page) if page in ("original", "redesigned") else page)
    root = await device.view_hierarchy()
    refs = [n.ref for n in root.walk() if n.ref]
    assert len(refs) > 5
    for ref in refs:
        chosen = await device.selector_for_ref(ref)
        assert chosen is not None, ref
        found = locators.build(device.page, NodeSelector.model_validate(chosen))
        element = await (await locators.for_ref(device.page, ref, device._elements)).element_handle()  # type: ignore[union-attr]
        assert await found.count() == 1, (ref, chosen)
        assert await found.evaluate("(e, h) => e === h", element), (ref, chosen)


async def test_a_recording_finds_the_same_elements_on_a_redesign_of_the_page(device: WebDevice) -> None:
    # the redesign adds wrappers, puts the results above the search form and renames every class
    await device.navigate(orders_page("original"))
    root = await device.view_hierarchy()
    recordings = []
    for node in root.walk():
        if node.ref:
            chosen = await device.selector_for_ref(node.ref)
            assert chosen is not None
            found = locators.build(device.page, NodeSelector.model_validate(chosen))
            recordings.append((chosen, await found.evaluate(IDENTITY)))
    kinds = {next(iter(chosen["web"])) for chosen, _ in recordings}
    assert kinds == {"ariaRole", "cssSelector"}
    assert ({"web": {"cssSelector": 'select[name="status"]'}}, ["select", "status", "any open shipped"]) in recordings
    assert ({"web": {"cssSelector": 'input[name="q"]'}}, ["input", "q", ""]) in recordings
    await device.navigate(orders_page("redesigned"))
    for chosen, identity in recordings:
        found = locators.build(device.page, NodeSelector.model_validate(chosen))
        assert await found.count() == 1, chosen
        assert await found.evaluate(IDENTITY) == identity, chosen


async def test_the_row_of_equal_buttons_is_found_by_its_position_among_rows(device: WebDevice) -> None:
    await device.navigate(orders_page("original"))
    root = await device.view_hierarchy()
    details = [n.ref for n in root.walk() if n.class_name == "button" and n.text == "Details"]
    assert [await device.selector_for_ref(ref or "") for ref in details] == [
        {"web": {"cssSelector": "tr:nth-of-type(1) button"}},
        {"web": {"cssSelector": "tr:nth-of-type(2) button"}},
    ]


async def test_a_ref_from_an_older_screen_still_finds_its_element(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    ref = shown_ref(await device.view_hierarchy(), "button", "Submit")
    await device.page.locator(":root").aria_snapshot(mode="ai")  # someone else took a snapshot since
    assert await device.selector_for_ref(ref) == {"web": {"ariaRole": "button", "ariaNameRegex": "Submit"}}


async def test_an_element_inside_a_frame_is_refused_by_name(device: WebDevice) -> None:
    await device.page.set_content('<iframe srcdoc="<button>Inside</button>"></iframe>')
    await device.page.frame_locator("iframe").get_by_role("button").wait_for()
    root = await device.view_hierarchy()
    (inside,) = [n.ref for n in root.walk() if n.class_name == "button" and n.text == "Inside"]
    with pytest.raises(ToolFailure, match=rf"{inside} is inside a frame"):
        await device.selector_for_ref(inside or "")


async def test_an_element_handle_without_a_screen_is_checked_by_playwright(device: WebDevice) -> None:
    # the browser agent's case: an element the person clicked, its role and name from the page
    await device.page.set_content("<button>Save</button><button>Save</button><span>x</span><span>y</span>")
    page = device.page
    for css, role, name, expected in [
        ("button >> nth=1", "button", "Save", {"cssSelector": "button:nth-of-type(2)"}),
        ("span >> nth=1", None, None, {"cssSelector": 'span:text-is("y")'}),
    ]:
        handle = await page.locator(css).element_handle()
        assert handle is not None
        assert await stable.stable_selector(page, handle, role, name) == {"web": expected}
