"""The baseline for the web replay benchmark: the bundled example trails written by hand.

Plain Playwright (async API), the same browser and flags, one browser for the run and a fresh
context per trail, the same actions and checks as the files in ``trails/``, relying on
Playwright's own auto-waiting. Run: ``python benchmarks/playwright_baseline.py``.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from pathlib import Path

from playwright.async_api import Page, async_playwright, expect

from trailblaze.drivers.web.browser import CHROMIUM_ARGS, VIEWPORT, system_chromium
from trailblaze.drivers.web.sample_server import SampleAppServer


async def submit_contact(page: Page, base: str) -> None:
    await page.goto(f"{base}/forms.html")
    await page.get_by_test_id("name-input").fill("Ada Lovelace")
    await page.get_by_role("textbox", name="Email").fill("ada@example.com")
    await page.locator("#password").fill("correct horse battery staple")
    await page.get_by_role("combobox", name="Plan").select_option(["Pro"])
    await page.get_by_role("checkbox", name=re.compile("^Subscribe.*$")).click()
    await page.get_by_role("textbox", name="Comments", exact=True).press_sequentially("Hello from a trail")
    await page.get_by_role("button", name="Submit").click()
    await page.get_by_test_id("submission-result").wait_for(state="visible")
    await page.get_by_text("Name: Ada Lovelace").first.wait_for(state="visible")
    status = page.get_by_role("status")
    for item in ("Email: ada@example.com", "Plan: Pro", "Newsletter: yes"):
        await status.get_by_text(item).first.wait_for(state="visible")
    await expect(page.get_by_test_id("email-input")).to_have_value("ada@example.com")
    await page.get_by_role("button", name="Clear All").click()
    await expect(page.get_by_test_id("name-input")).to_have_value("")
    await expect(page.locator("#plan")).to_have_value("free")


async def keyboard_and_errors(page: Page, base: str) -> None:
    await page.goto(f"{base}/forms.html")
    await page.locator("#submit").click()
    await expect(page.get_by_role("alert")).to_have_text("Name is required")
    await page.get_by_test_id("name-input").click()
    await page.keyboard.type("Grace Hopper")
    await page.keyboard.press("Enter")
    result = page.get_by_test_id("submission-result").get_by_role("paragraph").first
    await expect(result).to_have_text("Name: Grace Hopper")


async def filter_and_open(page: Page, base: str) -> None:
    await page.goto(f"{base}/lists.html")
    await page.get_by_role("searchbox", name="Filter items").fill("42")
    await expect(page.locator("#count")).to_have_text("1 item")
    await page.get_by_text("Item 42").first.wait_for(state="visible")
    await page.get_by_test_id("item-list").get_by_role("link", name=re.compile(r"^Item \d+$")).click()
    await page.wait_for_url("**/detail.html?item=42", wait_until="commit")
    await page.get_by_role("heading", level=1, name="Item 42").wait_for(state="visible")
    await page.go_back()
    await page.wait_for_url(re.compile(r"lists\.html$"), wait_until="commit")


ARTIFACTS = Path(tempfile.mkdtemp(prefix="baseline-"))


async def scroll_and_hover(page: Page, base: str) -> None:
    artifacts = ARTIFACTS
    await page.goto(f"{base}/lists.html")
    await page.get_by_test_id("item-list").evaluate("e => e.scrollBy(0, 5000)")
    await page.get_by_role("link", name="Item 50").hover()
    await expect(page.get_by_role("tooltip")).to_have_text("Details for Item 50")
    await page.evaluate("window.scrollBy(0, 800)")
    await page.screenshot(path=str(artifacts / "lists-bottom.png"), full_page=True)
    (artifacts / "lists-bottom.aria.yaml").write_text(await page.aria_snapshot(mode="ai"))
    await page.get_by_role("heading", level=2, name="Archived").wait_for(state="visible")
    await page.get_by_role("heading", level=3).wait_for(state="visible")


async def wait_for_content(page: Page, base: str) -> None:
    await page.goto(f"{base}/delayed.html")
    await page.get_by_text("Welcome back!").first.wait_for(state="visible")
    await page.get_by_role("button", name="Load data").click()
    await page.get_by_text("Data loaded").first.wait_for(state="visible")
    results = page.get_by_role("list", name="Results")
    for item in ("Alpha", "Beta", "Gamma"):
        await results.get_by_text(item).first.wait_for(state="visible")
    await page.get_by_role("button", name="Unlock").click()
    await page.get_by_role("button", name="Continue").click()
    await page.get_by_text("You may continue").first.wait_for(state="visible")
    await page.get_by_role("button", name="Go to About later").click()
    await page.wait_for_url("**/about.html?from=delayed", wait_until="commit")
    await asyncio.sleep(0.1)
    await page.get_by_text("You came from the delayed page.").first.wait_for(state="visible")


async def history_and_memory(page: Page, base: str) -> None:
    await page.set_viewport_size(VIEWPORT)  # type: ignore[arg-type]
    await page.goto(f"{base}/index.html")
    heading = page.get_by_role("heading", level=1)
    await heading.wait_for(state="visible")
    remembered = (await heading.inner_text()).strip()
    assert await page.evaluate("document.title")
    assert remembered == "Trailblaze Sample App"
    await page.get_by_role("navigation", name="Main").get_by_role("link", name="About").click()
    await page.get_by_role("heading", name="About").wait_for(state="visible")
    await page.go_back()
    await page.get_by_text(remembered).first.wait_for(state="visible")
    await page.go_forward()
    await page.wait_for_url("**/about.html", wait_until="commit")


async def legacy_about(page: Page, base: str) -> None:
    await page.goto(f"{base}/about.html")
    await page.get_by_text("Trailblaze replays trails against this sample app.").first.wait_for(state="visible")
    await page.get_by_role("link", name="Back to home").click()
    await page.get_by_role("heading", name="Trailblaze Sample App").wait_for(state="visible")


async def main() -> None:
    server = SampleAppServer().start()
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=system_chromium(), args=list(CHROMIUM_ARGS))
            for scenario in (
                wait_for_content,
                keyboard_and_errors,
                submit_contact,
                legacy_about,
                filter_and_open,
                scroll_and_hover,
                history_and_memory,
            ):
                context = await browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
                page = await context.new_page()
                page.set_default_timeout(10_000)
                await scenario(page, server.url)
                await context.close()
            await browser.close()
    finally:
        server.stop()
    print("7 scenarios passed", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
