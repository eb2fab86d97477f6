"""The HTML report, loaded in real headless Chromium: what a person sees, and the filters."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliRunner, Project
from trailblaze.drivers.web.browser import CHROMIUM_ARGS
from trailblaze.reports.html import render

pytestmark = pytest.mark.usefixtures("browser")

PASSING = """
config: {title: Submit the form, tags: [smoke, forms]}
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
"""
FAILING = """
config: {title: "Look for <script>alert(1)</script>", tags: [regression]}
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - verify: The page says hello
    recording:
      web:
        - web_verifyTextVisible: {text: Hello there, timeoutMs: 300}
"""


@pytest.fixture(scope="module")
def page(browser: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=browser, args=list(CHROMIUM_ARGS))
        try:
            yield chromium.new_page()
        finally:
            chromium.close()


def _report(project: Project, cli: CliRunner) -> dict[str, Any]:
    project.trail("pass", PASSING)
    project.trail("fail", FAILING)
    result = cli("run", "--json", "results.json", "--trace", "off", cwd=project.root)
    assert result.returncode == 1, result.output
    return dict(result.json())


def test_the_report_shows_the_run_and_filters_it(project: Project, cli: CliRunner, page: Any, browser: str) -> None:
    report = _report(project, cli)
    shot = project.root / "evidence" / "fail-step-2.png"
    shot.parent.mkdir()
    page.set_content("<h1 style='color:red'>on screen when it failed</h1>")
    page.screenshot(path=str(shot))
    failing = next(t for t in report["trails"] if t["status"] == "failed")
    failing["steps"][1]["artifacts"] = [
        {"kind": "screenshot", "path": "evidence/fail-step-2.png"},
        {"kind": "trace", "path": "evidence/trace.zip"},
    ]
    out = project.root / "report.html"
    out.write_text(render(report, base=project.root), encoding="utf-8")

    page.goto(out.as_uri())
    assert page.locator(".summary").inner_text().split() == ["1", "passed", "1", "failed"]
    assert "exit code 1" in page.locator(".meta").inner_text()
    failed = page.locator("details.trail.failed")
    assert failed.get_attribute("open") is not None  # failures are open, passes folded
    assert page.locator("details.trail.passed").get_attribute("open") is None
    assert failed.locator(".title").inner_text() == "Look for <script>alert(1)</script>"  # text, not markup
    assert page.evaluate("() => document.querySelectorAll('script').length") == 1
    assert "verify 2" in failed.locator(".step.failed .label").inner_text()
    assert "Hello there" in failed.locator(".step.failed pre.error").inner_text()
    image = failed.locator("img.shot")
    assert (image.get_attribute("src") or "").startswith("data:image/png;base64,")
    assert page.evaluate("(img) => img.naturalWidth > 0", image.element_handle())
    assert failed.locator("a.evidence-link").get_attribute("href") == "evidence/trace.zip"

    page.locator("input[name=status][value=passed]").uncheck()
    assert _visible_titles(page) == ["Look for <script>alert(1)</script>"]
    assert "status=failed" in page.url and "status=passed" not in page.url
    page.locator("input[name=status][value=passed]").check()
    page.select_option("select[name=tag]", "smoke")
    assert _visible_titles(page) == ["Submit the form"]
    page.select_option("select[name=tag]", "regression")
    page.locator("input[name=status][value=failed]").uncheck()
    assert _visible_titles(page) == [] and page.locator(".empty").is_visible()

    page.goto("about:blank")
    page.goto(out.as_uri() + "#status=passed")  # the fragment restores the filters
    assert _visible_titles(page) == ["Submit the form"]


def test_a_report_without_trails_or_script_still_reads(tmp_path: Path, page: Any) -> None:
    out = tmp_path / "empty.html"
    out.write_text(render({"version": 1, "summary": {"duration_ms": 0}, "exit_code": 3, "trails": []}))
    page.goto(out.as_uri())
    assert "No trails ran." in page.locator("main").inner_text()


def test_big_screenshots_are_linked_not_inlined(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    big.write_bytes(b"\x89PNG" + b"0" * 2_100_000)
    report = {
        "trails": [
            {
                "status": "failed",
                "title": "t",
                "steps": [
                    {
                        "index": 0,
                        "kind": "step",
                        "status": "failed",
                        "artifacts": [{"kind": "screenshot", "path": "big.png"}],
                    }
                ],
            }
        ]
    }
    text = render(report, base=tmp_path)
    assert 'src="big.png"' in text and "base64" not in text


def _visible_titles(page: Any) -> list[str]:
    return [
        page.locator("details.trail").nth(i).locator(".title").inner_text()
        for i in range(page.locator("details.trail").count())
        if page.locator("details.trail").nth(i).is_visible()
    ]


def test_json_round_trip_of_the_page_data(project: Project, cli: CliRunner) -> None:
    report = _report(project, cli)
    text = render(report)
    for trail in report["trails"]:
        assert json.dumps(trail["tags"]).replace('"', "&quot;") in text


def test_a_retried_trail_shows_how_many_runs_it_took() -> None:
    # the JSON lists the runs before the last one (--retries, or shards merged by merge-reports)
    trail = {"id": "t", "title": "T", "path": "t.trail.yaml", "status": "flaky", "steps": []}
    document = {"version": 1, "summary": {}, "exit_code": 0, "trails": [trail]}
    assert "attempts</span>" not in render(document)
    trail["attempts"] = [{"status": "failed", "error": "boom", "duration_ms": 1.0}]
    assert '<span class="attempts">2 attempts</span>' in render(document)


def test_a_trail_run_at_a_device_cloud_names_its_session_and_links_its_page() -> None:
    trail = {"id": "t", "title": "T", "path": "t.trail.yaml", "status": "passed", "steps": [], "driver": "appium"}
    session = {"id": "abc123", "service": "browserstack", "hub": "https://hub.browserstack.com/wd/hub"}
    trail["remote_session"] = {**session, "url": "https://app-automate.browserstack.com/sessions/abc123"}
    document = {"version": 1, "summary": {}, "exit_code": 0, "trails": [trail]}
    page = render(document)
    assert '<a href="https://app-automate.browserstack.com/sessions/abc123" target="_blank"' in page
    assert ">browserstack session abc123</a>" in page
    trail["remote_session"] = {**session, "url": "javascript:alert(1)"}  # a merged shard's JSON says anything
    page = render(document)
    assert "browserstack session abc123" in page and "javascript:" not in page


def test_each_earlier_attempt_shows_where_it_failed_its_error_and_evidence_folded() -> None:
    """As Playwright Test's report keeps a test's retries: under the final run, folded, each run
    before it with its status, the step it failed at, its message (not the evidence line the
    runner adds to it: the evidence is linked there) and its evidence, the trace in the viewer."""
    first = {
        "status": "failed",
        "error": "trails/t.trail.yaml:9: step 2 (Press <b>Submit</b>): web_click: no button\n"
        "evidence: .trailblaze/artifacts/run/t/step-2.png",
        "duration_ms": 1250.0,
        "artifacts": [
            {"kind": "screenshot", "path": "data/run/t/step-2.png"},
            {"kind": "hierarchy", "path": "data/run/t/step-2.aria.yaml"},
        ],
        "failing_step": {"index": 1, "kind": "step", "text": "Press <b>Submit</b>"},
    }
    second = {
        "status": "error",
        "error": "the browser went away",
        "duration_ms": 10.0,
        "artifacts": [{"kind": "trace", "path": "data/run/t-retry1/trace.zip"}],
        "failing_step": None,
    }
    trail = {"id": "t", "status": "flaky", "steps": [], "attempts": [first, second]}
    page = render({"version": 1, "summary": {}, "trails": [trail]}, viewer="data/trace-viewer/index.html")
    folded = page[page.index('<details class="attempts">') :]
    assert folded.startswith('<details class="attempts"><summary>2 earlier attempts</summary>')  # closed
    one, two = folded.split('<section class="attempt ')[1:]
    assert 'id="trail-1-attempt-1"' in one and "attempt 1 of 3" in one and "1.25s" in one
    assert '<p class="failed-at">failed at trails/t.trail.yaml:9: step 2 (Press &lt;b&gt;Submit&lt;/b&gt;)</p>' in one
    assert '<pre class="error">web_click: no button</pre>' in one and "evidence: " not in one
    assert '<img class="shot" alt="screenshot" src="data/run/t/step-2.png">' in one  # no file: linked, not inlined
    assert '<a class="evidence-link" href="data/run/t/step-2.aria.yaml">hierarchy</a>' in one
    assert "attempt 2 of 3" in two and '<pre class="error">the browser went away</pre>' in two
    assert "failed-at" not in two
    viewer = "data/trace-viewer/index.html?trace=../run/t-retry1/trace.zip"
    assert f'<a class="evidence-link trace-link" href="{viewer}">trace</a>' in two


def test_a_failure_s_message_shows_once_at_its_step(project: Project, cli: CliRunner, page: Any) -> None:
    """The trail's, the step's and the call's messages are one message quoted three times:
    the step shows it, the trail's header says where it failed."""
    report = _report(project, cli)
    failing = next(t for t in report["trails"] if t["status"] == "failed")
    message = failing["steps"][1]["error"]
    assert message in failing["error"] and failing["steps"][1]["tools"][0]["error"] in message
    out = project.root / "report.html"
    out.write_text(render(report, base=project.root), encoding="utf-8")
    page.goto(out.as_uri())
    failed = page.locator("details.trail.failed")
    assert failed.inner_text().count(message) == 1
    assert failed.locator(".step.failed pre.error").inner_text() == message
    place = failed.locator(".failed-at").inner_text()
    assert place == f"failed at {failing['error'].split(message)[0].rstrip(': ')}"
    assert place.startswith("failed at trails/fail.trail.yaml:") and "(The page says hello)" in place


def test_an_error_of_the_trail_s_own_shows_in_its_header() -> None:
    trail = {"id": "t", "status": "error", "error": "web server: `npm start` exited with code 1", "steps": []}
    page = render({"version": 1, "summary": {}, "trails": [trail]})
    assert page.count("exited with code 1") == 1 and '<pre class="error">web server' in page


def test_steps_that_ran_link_the_trail_s_trace_in_the_viewer() -> None:
    steps = [
        {"index": -1, "kind": "trailhead", "text": "Sign in", "status": "passed"},
        {"index": 0, "kind": "verify", "text": "It says\nhello", "status": "failed", "error": "no"},
        {"index": 1, "kind": "step", "text": "Never reached", "status": "skipped"},
    ]
    trail = {
        "id": "t",
        "status": "failed",
        "steps": steps,
        "artifacts": [{"kind": "trace", "path": "data/my run/t/trace.zip"}],
    }
    document = {"version": 1, "summary": {}, "trails": [trail]}
    address = "data/trace-viewer/index.html?trace=../my%2520run/t/trace.zip"  # the path's %20, in a query
    page = render(document, viewer="data/trace-viewer/index.html")
    assert page.count(f'<a class="trace-link" href="{address}"') == 2  # not from the step that never ran
    assert 'data-group="trailhead: Sign in"' in page and ">trace › trailhead</a>" in page
    assert 'data-group="step 1: It says\\nhello"' in page and ">trace › step 1</a>" in page  # as the trace names it
    assert f'href="{address}">trace</a> · <a class="evidence-link" href="data/my run/t/trace.zip">trace.zip</a>' in page
    without = render(document)  # no viewer in the report: the trace file is linked, from the trail
    assert (
        "trace-link" not in without.split("</style>")[1]
        and '<a class="evidence-link" href="data/my run/t/trace.zip">trace</a>' in without
    )
