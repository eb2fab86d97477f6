"""Four of the example trails written as pytest-playwright tests, five copies each (20 items):
the peer ``pytest -p trailblaze`` is timed against (benchmarks/pytest_peers.py copies this file
and conftest.py into the project it times). The same page actions and checks as
forms/submit-contact, forms/keyboard-and-errors, lists/filter-and-open and
navigation/history-and-memory, with Playwright's own waiting."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

COPIES = range(5)


@pytest.mark.parametrize("copy", COPIES)
def test_submit_contact(page: Page, copy: int) -> None:
    page.goto("/forms.html")
    page.get_by_test_id("name-input").fill("Ada Lovelace")
    page.get_by_role("textbox", name="Email").fill("ada@example.com")
    page.locator("#password").fill("correct horse battery staple")
    page.get_by_role("combobox", name="Plan").select_option(["Pro"])
    page.get_by_role("checkbox", name=re.compile("Subscribe.*")).click()
    page.get_by_role("textbox", name="Comments", exact=True).press_sequentially("Hello from a trail")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_test_id("submission-result")).to_be_visible()
    expect(page.get_by_text("Name: Ada Lovelace").first).to_be_visible()
    status = page.get_by_role("status")
    for item in ("Email: ada@example.com", "Plan: Pro", "Newsletter: yes"):
        expect(status.get_by_text(item).first).to_be_visible()
    expect(page.get_by_test_id("email-input")).to_have_value("ada@example.com")
    page.get_by_role("button", name="Clear All").click()
    expect(page.get_by_test_id("name-input")).to_have_value("")
    expect(page.locator("#plan")).to_have_value("free")


@pytest.mark.parametrize("copy", COPIES)
def test_keyboard_and_errors(page: Page, copy: int) -> None:
    page.goto("/forms.html")
    page.locator("#submit").click()
    expect(page.get_by_role("alert")).to_have_text("Name is required")
    page.get_by_test_id("name-input").click()
    page.keyboard.type("Grace Hopper")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("submission-result").get_by_role("paragraph").first).to_have_text("Name: Grace Hopper")


@pytest.mark.parametrize("copy", COPIES)
def test_filter_and_open(page: Page, copy: int) -> None:
    page.goto("/lists.html")
    page.get_by_role("searchbox", name="Filter items").fill("42")
    expect(page.locator("#count")).to_have_text("1 item")
    expect(page.get_by_text("Item 42").first).to_be_visible()
    page.get_by_test_id("item-list").get_by_role("link", name=re.compile(r"Item \d+")).click()
    page.wait_for_url("**/detail.html?item=42", wait_until="commit")
    expect(page.get_by_role("heading", level=1, name="Item 42")).to_be_visible()
    page.go_back()
    page.wait_for_url(re.compile(r"lists\.html$"), wait_until="commit")


@pytest.mark.parametrize("copy", COPIES)
def test_history_and_memory(page: Page, copy: int) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/index.html")
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_be_visible()
    remembered = heading.inner_text().strip()
    assert page.evaluate("document.title")
    assert remembered == "Trailblaze Sample App"
    page.get_by_role("navigation", name="Main").get_by_role("link", name="About").click()
    expect(page.get_by_role("heading", name="About")).to_be_visible()
    page.go_back()
    expect(page.get_by_text(remembered).first).to_be_visible()
    page.go_forward()
    page.wait_for_url("**/about.html")
    assert 2 * (3 + 4) == 14
    assert remembered != "About"
