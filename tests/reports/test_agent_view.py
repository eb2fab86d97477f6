"""The agent view in real headless Chromium: a self-healed step of ``run --html``, and an MCP
session's runs as ``trailblaze show-report .trailblaze/mcp`` serves them — the objective, each
iteration's thought, tool and result, the prompt folded, tokens and durations, the screenshot."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Ref, Reply

from tests.mcp.server.support import ok, stdio
from tests.support.cli import CliProcess, CliRunner, Project
from trailblaze.drivers.web.browser import CHROMIUM_ARGS

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

BROKEN = """\
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Type Ada as the name
    recording:
      web:
        - web_type: {text: Ada, nodeSelector: {web: {dataTestId: full-name-input}}}
"""


@pytest.fixture(scope="module")
def page(browser: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=browser, args=list(CHROMIUM_ARGS))
        try:
            yield chromium.new_page(viewport={"width": 1000, "height": 900})
        finally:
            chromium.close()


def _colours(png: bytes) -> int:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 24)
        return len(colours or ())


def test_a_self_healed_step_shows_what_the_agent_did(project: Project, cli: CliRunner, page: Any) -> None:
    project.trail("broken", BROKEN)
    script = [
        Reply(calls=[("web_type", {"ref": Ref('textbox "Name"'), "text": "Ada"})], content="The id changed: by ref."),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE", "explanation": "typed Ada"})]),
    ]
    with FakeOpenAI(script) as fake:
        project.write("trailblaze.yaml", f"base_url: sample-app\nllm: {{base_url: '{fake.url}', model: m}}\n")
        result = cli("run", "--timeout", "1", "--self-heal", "--agent", "openai", "--html", "--json", "r.json")
    assert result.returncode == 0, result.output
    step = result.json("r.json")["trails"][0]["steps"][1]
    assert step["status"] == "healed" and isinstance(step["agent"]["run"], str)
    kinds = sorted(a["kind"] for a in step["artifacts"])
    assert kinds.count("agent-log") == 1 and "screenshot" in kinds

    page.goto((result.cwd / "trailblaze-report" / "index.html").as_uri())
    trail = page.locator("details.trail")
    if trail.get_attribute("open") is None:  # a person opens the trail
        trail.locator("summary").first.click()
    view = page.locator(".step.healed .agent-run")
    assert view.locator("h3").inner_text().endswith("Type Ada as the name")
    meta = view.locator(".agent-meta").first.inner_text()
    assert "openai · scripted-model · LLM: DIRECT · tools: DIRECT · 2 iterations · 1 tool calls" in meta
    assert re.search(r"\d+ tokens · LLM time \d+", meta)
    first = view.locator(".iteration").first
    assert first.locator(".thought").inner_text() == "The id changed: by ref."
    assert "web_type" in first.locator(".calls").inner_text() and "Ada" in first.locator(".calls").inner_text()
    prompt = first.locator("details.prompt")
    assert not prompt.locator("pre").is_visible()  # the prompt is folded
    prompt.locator("summary").click()
    assert "The step: Type Ada as the name" in prompt.locator("pre").inner_text()
    # the screen as the agent left it, among the step's evidence: a real picture of the page
    image = page.locator(".step.healed img.shot")
    assert page.evaluate("(img) => img.naturalWidth > 100", image.element_handle())
    shot = view.screenshot()
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and _colours(shot) > 20


def test_show_report_opens_an_mcp_sessions_agent_runs(project: Project, page: Any, cli_process: CliProcess) -> None:
    script = [
        Reply(calls=[("web_navigate", {"url": "/forms.html"})], content="Go to the forms page."),
        Reply(calls=[("objectiveStatus", {"status": "COMPLETE"})]),
        Reply(calls=[("objectiveStatus", {"status": "FAILED", "explanation": "there is no Launch button"})]),
    ]
    with FakeOpenAI(script) as fake:
        project.write("trailblaze.yaml", f"base_url: sample-app\nllm: {{base_url: '{fake.url}', model: m}}\n")

        async def scenario() -> None:
            async with stdio(project.root, "--mode", "TRAILBLAZE_AS_AGENT") as client:
                ok(await client.call_tool("runPrompt", {"steps": ["Open the forms page"]}))
                await client.call_tool("step", {"objective": "Press Launch"})

        with ThreadPoolExecutor(1) as thread:  # this thread runs Playwright's loop
            thread.submit(asyncio.run, scenario()).result()
    proc = cli_process("show-report", ".trailblaze/mcp", "--no-open", cwd=project.root)
    try:
        assert proc.stdout is not None
        match = re.search(r"at (http://127\.0\.0\.1:\d+/agent-report\.html)", proc.stdout.readline())
        assert match is not None
        page.goto(match.group(1))
        runs = page.locator(".agent-run")
        assert runs.count() == 2
        assert "2 agent runs · 1 complete · 1 not" in page.locator("header .meta").inner_text()
        assert runs.nth(0).locator(".thought").inner_text() == "Go to the forms page."
        assert "objective_failed: there is no Launch button" in runs.nth(1).inner_text()
        image = runs.nth(0).locator("img.agent-shot")
        assert page.evaluate("(img) => img.naturalWidth > 100", image.element_handle())
        assert _colours(runs.nth(0).screenshot()) > 20
    finally:
        proc.terminate()
        proc.wait(timeout=10)
