"""From a ref on the screen to the selector a recording keeps (``trailblaze.drivers.web.stable``), in
real Chromium: the most stable candidate that finds the element alone, and a recording that
still finds the same elements after a redesign of the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import NodeSelector, is_positional
from trailblaze.drivers.web import locators, stable
from trailblaze.drivers.web.device import WebDevice
from trailblaze.tools import steptext

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
    # equal names and nothing around them that differs: the last resort, which of them it is
    assert [await device.selector_for_ref(ref or "") for ref in saves] == [
        {"web": {"ariaRole": "button", "ariaNameRegex": "Save", "nthIndex": 0}},
        {"web": {"ariaRole": "button", "ariaNameRegex": "Save", "nthIndex": 1}},
    ]
    assert [await device.selector_for_ref(ref or "") for ref in edits] == [
        {"web": {"ariaRole": "link", "ariaNameRegex": "Edit", "nthIndex": 0}},
        {"web": {"ariaRole": "link", "ariaNameRegex": "Edit", "nthIndex": 1}},
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


def in_row(cell: str) -> dict[str, Any]:
    return {"web": {"ariaRole": "row"}, "containsChild": {"web": {"ariaRole": "cell", "ariaNameRegex": cell}}}


async def test_equal_buttons_in_rows_are_told_apart_by_their_row(device: WebDevice) -> None:
    await device.navigate(orders_page("original"))
    root = await device.view_hierarchy()
    details = [n.ref for n in root.walk() if n.class_name == "button" and n.text == "Details"]
    button = {"ariaRole": "button", "ariaNameRegex": "Details"}
    assert [await device.selector_for_ref(ref or "") for ref in details] == [
        {"web": button, "childOf": in_row("1042")},
        {"web": button, "childOf": in_row("1045")},
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
    await device.page.set_content(
        "<button>Save</button><button>Save</button><span>x</span><span>y</span><p>z</p><p>z</p>"
    )
    page = device.page
    for css, role, name, expected in [
        ("button >> nth=1", "button", "Save", {"ariaRole": "button", "ariaNameRegex": "Save", "nthIndex": 1}),
        ("span >> nth=1", None, None, {"cssSelector": 'span:text-is("y")'}),
        ("p >> nth=1", None, None, {"cssSelector": 'p:text-is("z")', "nthIndex": 1}),  # the 2nd 'z'
    ]:
        handle = await page.locator(css).element_handle()
        assert handle is not None
        assert await stable.stable_selector(page, handle, role, name) == {"web": expected}


def page(version: str, name: str) -> str:
    return (PAGES / version / name).as_uri()


async def recorded_everywhere(device: WebDevice, identity: str) -> list[tuple[dict[str, Any], Any]]:
    """The selector recorded for every ref on the page, and what each finds (``identity``)."""
    root = await device.view_hierarchy()
    recordings = []
    for node in root.walk():
        if node.ref:
            chosen = await device.selector_for_ref(node.ref)
            assert chosen is not None, node
            found = locators.build(device.page, NodeSelector.model_validate(chosen))
            assert await found.count() == 1, chosen
            recordings.append((chosen, await found.evaluate(identity)))
    return recordings


async def replays(device: WebDevice, recordings: list[tuple[dict[str, Any], Any]], identity: str) -> None:
    for chosen, expected in recordings:
        found = locators.build(device.page, NodeSelector.model_validate(chosen))
        assert await found.count() == 1, chosen
        assert await found.evaluate(identity) == expected, chosen


#: which item of the trip planner an element belongs to, and what it is (a section by its label)
ITEM = (
    "e => [e.closest('[data-item]')?.dataset.item ?? null, e.localName, "
    "e.getAttribute('aria-labelledby') ?? e.textContent.trim().replace(/\\s+/g, ' ').slice(0, 12)]"
)


async def test_repeated_items_are_told_apart_by_what_a_person_reads_them_by(device: WebDevice) -> None:
    # cards by their heading, tiles by their test id and text, a form per item by its legend,
    # rows by their first cell; each "Add" alike but for where it is
    await device.navigate(page("original", "trip.html"))
    root = await device.view_hierarchy()
    adds = [n.ref or "" for n in root.walk() if n.class_name == "button" and n.text == "Add"]
    add = {"ariaRole": "button", "ariaNameRegex": "Add"}
    kyoto = {
        "web": {"ariaRole": "article"},
        "containsChild": {"web": {"ariaRole": "heading", "ariaNameRegex": "Kyoto"}},
    }
    mochi = {"web": {"dataTestId": "snack-tile"}, "containsChild": {"web": {"cssSelector": ':text-is("Mochi")'}}}
    assert await device.selector_for_ref(adds[0]) == {"web": add, "childOf": kyoto}
    assert await device.selector_for_ref(adds[3]) == {"web": add, "childOf": mochi}
    assert await device.selector_for_ref(adds[-1]) == {"web": add, "childOf": in_row("Hikari 3")}
    nights = [n.ref or "" for n in root.walk() if n.class_name == "spinbutton"]
    assert await device.selector_for_ref(nights[1]) == {
        "web": {"ariaRole": "spinbutton", "ariaNameRegex": "Nights"},
        "childOf": {"web": {"ariaRole": "group", "ariaNameRegex": "Capsule Inn"}},
    }


async def test_repeated_items_are_found_on_a_redesign_that_wraps_reorders_and_adds_one_first(
    device: WebDevice,
) -> None:
    await device.navigate(page("original", "trip.html"))
    recordings = await recorded_everywhere(device, ITEM)
    assert not [chosen for chosen, _ in recordings if is_positional(chosen)]
    await device.navigate(page("redesigned", "trip.html"))
    await replays(device, recordings, ITEM)


async def test_the_admin_index_is_found_on_a_redesign_by_each_row_and_table(device: WebDevice) -> None:
    # Django's admin index: an Add link in every row; two apps have a Users row
    await device.navigate(page("original", "admin.html"))
    root = await device.view_hierarchy()
    adds = [n.ref or "" for n in root.walk() if n.class_name == "link" and n.text == "Add"]
    add = {"ariaRole": "link", "ariaNameRegex": "Add"}

    def row(header: str) -> dict[str, Any]:
        return {
            "web": {"ariaRole": "row"},
            "containsChild": {"web": {"ariaRole": "rowheader", "ariaNameRegex": header}},
        }

    assert await device.selector_for_ref(adds[2]) == {"web": add, "childOf": row("Tickets")}
    helpdesk = {"web": {"ariaRole": "table", "ariaNameRegex": "Helpdesk"}}
    assert await device.selector_for_ref(adds[4]) == {"web": add, "childOf": {**row("Users"), "childOf": helpdesk}}
    href = "e => e.getAttribute('href')"
    recordings = await recorded_everywhere(device, href)
    assert not [chosen for chosen, _ in recordings if is_positional(chosen)]
    await device.navigate(page("redesigned", "admin.html"))
    await replays(device, recordings, href)


async def test_nothing_around_them_that_differs_leaves_their_position(device: WebDevice) -> None:
    # items that are anonymous wrappers: no role, test id or id says what they are, so their
    # text cannot say which one; the nth of them, and the step says it was found by position
    await device.page.set_content(
        "<div><div><span>Kyoto</span> <button>Add</button></div><div><span>Nara</span> <button>Add</button></div></div>"
    )
    root = await device.view_hierarchy()
    adds = [n.ref or "" for n in root.walk() if n.class_name == "button"]
    chosen = await device.selector_for_ref(adds[1])
    assert chosen == {"web": {"ariaRole": "button", "ariaNameRegex": "Add", "nthIndex": 1}}
    assert steptext.describe_call("web_click", {"nodeSelector": chosen}).startswith("Click the 2nd 'Add' (by position")
