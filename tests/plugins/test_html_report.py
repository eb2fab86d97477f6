"""``--html`` (the html_report plugin) loaded in a real headless Chromium, and ``trailblaze
show-report`` serving it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.ci_project import ci_project
from tests.support.cli import CliProcess, CliRunner, Project
from trailblaze.drivers.web.browser import CHROMIUM_ARGS

pytestmark = pytest.mark.browser

PASSING = """
config: {id: passes, tags: [smoke]}
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
"""
FAILING = """
config: {id: fails, tags: [forms]}
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Press Sumbit
    recording:
      web:
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Sumbit}}, timeoutMs: 300}
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


def test_the_report_shows_the_failure_with_its_screenshot_and_filters(
    project: Project, cli: CliRunner, page: Any
) -> None:
    project.trail("passes", PASSING)
    project.trail("fails", FAILING)
    result = cli("run", "trails/", "--html", "--trace", "retain-on-failure", cwd=project.root)
    assert result.returncode == 1, result.output
    report = project.root / "trailblaze-report" / "index.html"
    assert report.is_file()
    assert result.stdout.endswith(
        "reports: HTML trailblaze-report/index.html\nopen the HTML report: trailblaze show-report\n"
    )
    page.goto(report.as_uri())
    failed = page.locator("details.trail.failed")
    assert failed.locator(".title").inner_text() == "fails"
    assert "nearest on screen: button 'Submit'" in failed.locator("pre.error").first.inner_text()
    step = failed.locator("li.step.failed")
    assert "step 2" in step.locator(".label").inner_text()
    shot = step.locator("img.shot")
    assert shot.get_attribute("src").startswith("data:image/png;base64,")
    assert shot.evaluate("img => img.naturalWidth") == 1280  # the screenshot itself, rendered
    trace = failed.locator("a.evidence-link", has_text="trace.zip")
    href = trace.get_attribute("href")
    assert re.fullmatch(r"data/[^/]+/fails/trace\.zip", href), href
    assert (report.parent / href).is_file()  # copied next to the report: the folder is all CI keeps
    passed = page.locator("details.trail.passed")
    assert passed.is_visible()
    page.locator("input[name=status][value=passed]").uncheck()
    assert passed.is_hidden() and failed.is_visible()
    page.locator("input[name=status][value=passed]").check()
    page.locator("select[name=tag]").select_option("smoke")
    assert passed.is_visible() and failed.is_hidden()


def test_each_step_links_the_trace_which_opens_in_the_served_report(
    project: Project, cli: CliRunner, cli_process: CliProcess, page: Any
) -> None:
    """A step's link opens Playwright's trace viewer, copied into the report, on the trail's
    trace, which shows the step's group (the link names it) — followed through `show-report`."""
    project.trail("fails", FAILING)
    result = cli("run", "--html", "--trace", "on", cwd=project.root)
    assert result.returncode == 1, result.output
    folder = project.root / "trailblaze-report"
    assert (folder / "data" / "trace-viewer" / "index.html").is_file()
    proc = cli_process("show-report", "--no-open", cwd=project.root)
    assert proc.stdout is not None
    match = re.search(r"at (http://127\.0\.0\.1:\d+/)index\.html", proc.stdout.readline())
    assert match is not None
    page.goto(match.group(1) + "index.html")
    steps = page.locator("details.trail.failed li.step")
    links = [steps.nth(i).locator("a.trace-link") for i in range(steps.count())]
    assert [link.inner_text() for link in links] == ["trace › step 1", "trace › step 2"]
    groups = [link.get_attribute("data-group") for link in links]
    assert groups == ["step 1: Open the forms page", "step 2: Press Sumbit"]
    assert links[0].get_attribute("href") == links[1].get_attribute("href")  # one trace per trail

    links[1].click()  # the failed step's
    assert page.url.startswith(match.group(1) + "data/trace-viewer/index.html?trace=")
    for group in groups:  # the trace loaded, grouped as the report names it (a bound on a hang)
        page.get_by_text(group, exact=True).wait_for(timeout=60_000)
    page.goto("about:blank")  # the viewer's service worker stays with the server, not the next test


def test_a_flaky_trail_shows_its_failed_first_attempt_with_its_evidence(
    project: Project, cli: CliRunner, page: Any
) -> None:
    """A trail that fails, then passes on its retry: the report shows the passing run, and under
    it, folded, the first run — where it failed, its error, its screenshot and the rest of its
    evidence, copied into the report's folder as the final run's is."""
    ci_project(project, "flaky")
    result = cli("run", "-p", "flaky_tools", "--retries", "1", "--html", "--json", "r.json", cwd=project.root)
    assert result.returncode == 0, result.output
    [attempt] = result.json("r.json")["trails"][0]["attempts"]
    assert "first call fails" in attempt["error"]
    folder = project.root / "trailblaze-report"
    page.goto((folder / "index.html").as_uri())
    trail = page.locator("details.trail.flaky")
    earlier = trail.locator("details.attempts")
    assert earlier.locator("summary").inner_text() == "1 earlier attempt"
    shown = earlier.locator("section.attempt.failed")
    assert shown.is_hidden()  # folded under the final result
    earlier.locator("summary").click()
    assert shown.locator(".label").inner_text() == "attempt 1 of 2"
    assert shown.locator(".failed-at").inner_text() == (
        "failed at trails/flaky.trail.yaml:10: step 2 (Call the tool that fails once)"
    )
    assert shown.locator("pre.error").inner_text() == "fail_first_time: first call fails (flaky.marker)"
    shot = shown.locator("img.shot")
    assert shot.get_attribute("src").startswith("data:image/png;base64,")
    assert shot.evaluate("img => img.naturalWidth") == 1280  # the first run's screenshot, rendered
    links = shown.locator("a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    kinds = {Path(href).name for href in hrefs}
    assert kinds == {"step-2.png", "step-2.aria.yaml", "step-2.console.log"}, hrefs
    for href in hrefs:
        assert re.fullmatch(r"data/[^/]+/flaky/step-2\.[a-z.]+", href), href
        assert (folder / href).is_file(), href  # copied: the report's folder is all CI keeps


def test_a_report_without_a_trace_carries_no_trace_viewer(project: Project, cli: CliRunner, page: Any) -> None:
    project.trail("fails", FAILING)
    result = cli("run", "--html", "--trace", "off", cwd=project.root)
    assert result.returncode == 1, result.output
    folder = project.root / "trailblaze-report"
    assert not (folder / "data" / "trace-viewer").exists()
    page.goto((folder / "index.html").as_uri())
    assert page.locator("a.trace-link").count() == 0


def test_html_in_config_writes_the_report_with_its_title(project: Project, cli: CliRunner) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\nhtml: {path: out/report.html, title: Nightly}\n")
    project.trail("passes", PASSING)
    result = cli("run", cwd=project.root)
    assert result.returncode == 0, result.output
    assert "<title>Nightly</title>" in (project.root / "out" / "report.html").read_text()
    assert result.stdout.endswith(
        "reports: HTML out/report.html\nopen the HTML report: trailblaze show-report out/report.html\n"
    )


def test_a_misspelt_html_key_is_misuse(project: Project, cli: CliRunner) -> None:
    project.write("trailblaze.yaml", "html: {titel: Nightly}\n")
    result = cli("run", cwd=project.root)
    assert result.returncode == 3, result.output
    assert "trailblaze.yaml:1" in result.output and "titel" in result.output
    assert "Traceback" not in result.output


def test_show_report_serves_the_report(project: Project, cli_process: CliProcess) -> None:
    folder = project.root / "trailblaze-report"
    folder.mkdir()
    (folder / "index.html").write_text("<title>the report</title>")
    proc = cli_process("show-report", cwd=project.root)  # no terminal: prints the address, opens nothing
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"at (http://127\.0\.0\.1:\d+/index\.html) \(Ctrl-C to stop\)", line)
    assert match is not None, line
    try:
        response = httpx.get(match.group(1), timeout=10)
        assert response.status_code == 200
        assert "<title>the report</title>" in response.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_show_report_without_a_report_says_how_to_make_one(cli: CliRunner, tmp_path: Path) -> None:
    result = cli("show-report", "nowhere", cwd=tmp_path)
    assert result.returncode == 3
    assert "no report at nowhere: write one with `trailblaze run --html`" in result.output
