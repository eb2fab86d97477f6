// Four of the example trails as Playwright Test specs, five copies each (20 tests): the peer
// `trailblaze run` is timed against (benchmarks/pytest_peers.py). The same page actions and
// checks as benchmarks/peers/flows/test_flows.py.
const { test, expect } = require("@playwright/test");

for (let copy = 0; copy < 5; copy++) {
  test(`submit contact ${copy}`, async ({ page }) => {
    await page.goto("/forms.html");
    await page.getByTestId("name-input").fill("Ada Lovelace");
    await page.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
    await page.locator("#password").fill("correct horse battery staple");
    await page.getByRole("combobox", { name: "Plan" }).selectOption(["Pro"]);
    await page.getByRole("checkbox", { name: /Subscribe.*/ }).click();
    await page.getByRole("textbox", { name: "Comments", exact: true }).pressSequentially("Hello from a trail");
    await page.getByRole("button", { name: "Submit" }).click();
    await expect(page.getByTestId("submission-result")).toBeVisible();
    await expect(page.getByText("Name: Ada Lovelace").first()).toBeVisible();
    const status = page.getByRole("status");
    for (const item of ["Email: ada@example.com", "Plan: Pro", "Newsletter: yes"]) {
      await expect(status.getByText(item).first()).toBeVisible();
    }
    await expect(page.getByTestId("email-input")).toHaveValue("ada@example.com");
    await page.getByRole("button", { name: "Clear All" }).click();
    await expect(page.getByTestId("name-input")).toHaveValue("");
    await expect(page.locator("#plan")).toHaveValue("free");
  });

  test(`keyboard and errors ${copy}`, async ({ page }) => {
    await page.goto("/forms.html");
    await page.locator("#submit").click();
    await expect(page.getByRole("alert")).toHaveText("Name is required");
    await page.getByTestId("name-input").click();
    await page.keyboard.type("Grace Hopper");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("submission-result").getByRole("paragraph").first()).toHaveText(
      "Name: Grace Hopper",
    );
  });

  test(`filter and open ${copy}`, async ({ page }) => {
    await page.goto("/lists.html");
    await page.getByRole("searchbox", { name: "Filter items" }).fill("42");
    await expect(page.locator("#count")).toHaveText("1 item");
    await expect(page.getByText("Item 42").first()).toBeVisible();
    await page.getByTestId("item-list").getByRole("link", { name: /Item \d+/ }).click();
    await page.waitForURL("**/detail.html?item=42", { waitUntil: "commit" });
    await expect(page.getByRole("heading", { level: 1, name: "Item 42" })).toBeVisible();
    await page.goBack();
    await page.waitForURL(/lists\.html$/, { waitUntil: "commit" });
  });

  test(`history and memory ${copy}`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto("/index.html");
    const heading = page.getByRole("heading", { level: 1 });
    await expect(heading).toBeVisible();
    const remembered = (await heading.innerText()).trim();
    expect(await page.evaluate("document.title")).toBeTruthy();
    expect(remembered).toBe("Trailblaze Sample App");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "About" }).click();
    await expect(page.getByRole("heading", { name: "About" })).toBeVisible();
    await page.goBack();
    await expect(page.getByText(remembered).first()).toBeVisible();
    await page.goForward();
    await page.waitForURL("**/about.html");
    expect(2 * (3 + 4)).toBe(14);
    expect(remembered).not.toBe("About");
  });
}
