"""The ``browser`` agent: a trail recorded by clicking and typing in headless Chromium.

The recorder runs as the user would run it (``trailblaze record --agent browser``), headless,
with its browser open to CDP; the test plays the person: it connects to that browser, clicks
and types in the page, and types ``done`` into the recorder's stdin.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.cli import ROOT, CliProcess, CliRunner, Project
from trailblaze.drivers.web.sample_server import SampleAppServer
from trailblaze.trail.loader import load_trail

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


class Demonstration:
    """The recorder process, its output as it comes, and the page it records."""

    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc = proc
        self.port = port
        self.output: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            self._lines.put(line)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if text in self._lines.get(timeout=0.2):
                    return
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
        raise AssertionError(f"{text!r} never came; output:\n{''.join(self.output)}")

    def say(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def finish(self) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(60)
        self._reader.join(10)
        return "".join(self.output)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def app() -> Iterator[str]:
    server = SampleAppServer().start()
    try:
        yield server.url
    finally:
        server.stop()


def _record(start: CliProcess, project: Project, app: str, trail: str) -> Demonstration:
    project.write("trailblaze.yaml", f"base_url: {app}\ntimeout: 5\n")
    port = _free_port()
    proc = start(
        "record", trail, "--agent", "browser", "--headless", "--remote-debugging-port", str(port), merge_stderr=True
    )
    demo = Demonstration(proc, port)
    demo.wait_for("── step 1")
    return demo


@contextlib.contextmanager
def _demo_page(demo: Demonstration) -> Iterator[Page]:
    """The page the demonstration's browser shows, reached over its DevTools port as a person's
    browser would be driven."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{demo.port}")
        (page,) = [p for context in chromium.contexts for p in context.pages]
        yield page
        chromium.close()  # the connection, not the browser: the demonstration goes on to its end


FORM = """\
# recorded by demonstration
trail:
  - step: Open the forms page
  - step: Type the name and the email
  - step: Choose the Pro plan and subscribe
  - step: Submit
  - verify: The result shows the name
"""


def test_a_demonstrated_trail_replays_green(
    cli_process: CliProcess, cli: CliRunner, project: Project, app: str, browser: str
) -> None:
    trail = project.trail("form", FORM)
    demo = _record(cli_process, project, app, "trails/form.trail.yaml")
    with _demo_page(demo) as page:
        page.goto(f"{app}/forms.html")
        demo.say("done")
        demo.wait_for("── step 2")
        page.click("#name")
        page.keyboard.type("Ada")
        page.click("#email")
        page.keyboard.type("ada@example.com")
        demo.say("done")
        demo.wait_for("── step 3")
        page.focus("#plan")
        page.keyboard.press("ArrowDown")  # Free → Pro, as a person would with the keyboard
        page.click("label[for=newsletter]")
        demo.say("done")
        demo.wait_for("── step 4")
        page.click("#submit")
        demo.say("done")
        demo.wait_for("── verify 5")
        page.click("#result-name")  # on a verify step a click checks instead of acting
        demo.say("done")
        demo.wait_for("recording saved to")
    out = demo.finish()
    assert demo.proc.returncode == 0, out
    assert "replaying the new recording of trails/form.trail.yaml once before saving it" in out
    assert "scripted" not in out  # a person's clicks, a label's click on its control: none ignored
    assert (
        trail.read_text()
        == """\
# recorded by demonstration
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Type the name and the email
    recording:
      web:
        - web_type:
            text: Ada
            nodeSelector: {web: {dataTestId: name-input}}
        - web_type:
            text: ada@example.com
            nodeSelector: {web: {dataTestId: email-input}}
  - step: Choose the Pro plan and subscribe
    recording:
      web:
        - web_selectOption:
            values: [pro]
            nodeSelector: {web: {ariaRole: combobox, ariaNameRegex: Plan}}
        - web_click:
            nodeSelector: {web: {ariaRole: checkbox, ariaNameRegex: Subscribe to newsletter}}
  - step: Submit
    recording:
      web:
        - web_click:
            nodeSelector: {web: {ariaRole: button, ariaNameRegex: Submit}}
  - verify: The result shows the name
    recording:
      web:
        - web_verifyElementVisible:
            nodeSelector: {web: {cssSelector: '#result-name'}}
            expectedText: 'Name: Ada'
"""
    )
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\n")  # another server, another port
    replay = cli("run", "trails/form.trail.yaml")
    assert replay.returncode == 0, replay.output


LISTS = """\
trail:
  - step: Open the home page
  - step: Find item 42 from the menu
  - verify: Its detail page is shown
"""


def test_links_keys_and_undo_while_demonstrating(
    cli_process: CliProcess, cli: CliRunner, project: Project, app: str, browser: str
) -> None:
    trail = project.trail("lists", LISTS)
    demo = _record(cli_process, project, app, "trails/lists.trail.yaml")
    with _demo_page(demo) as page:
        page.goto(f"{app}/index.html")
        demo.say("done")
        demo.wait_for("── step 2")
        page.click("text=Lists")  # navigates: recorded as the click, not as a web_navigate
        page.wait_for_url("**/lists.html")
        page.click("#filter")
        page.keyboard.type("Item 4")
        page.keyboard.press("Enter")
        demo.say("undo")  # drops the Enter, keeps the typing
        demo.wait_for("undone: web_pressKey")
        page.click("text=Item 42")
        page.wait_for_url("**/detail.html?item=42")
        demo.say("done")
        demo.wait_for("── verify 3")
        page.click("h1")
        demo.say("done")
        demo.wait_for("recording saved to")
    out = demo.finish()
    assert demo.proc.returncode == 0, out
    text = trail.read_text()
    assert text.count("web_navigate") == 1, text
    recorded_step_2 = text.split("- step: Find item 42 from the menu")[1].split("- verify:")[0]
    assert [line.strip() for line in recorded_step_2.splitlines() if line.strip().startswith("- ")] == [
        "- web_click:",
        "- web_type:",
        "- web_click:",
    ], text
    assert "ariaRole: link, ariaNameRegex: Lists" in recorded_step_2
    assert "text: Item 4\n" in recorded_step_2
    assert "ariaRole: link, ariaNameRegex: Item 42" in recorded_step_2
    assert "expectedText: Item 42" in text
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\n")
    replay = cli("run", "trails/lists.trail.yaml")
    assert replay.returncode == 0, replay.output


PAGES = ROOT / "tests" / "drivers" / "web" / "pages"
#: the Add link of the admin index's Tickets row, as it is recorded: by the row that holds it
TICKETS_ADD = {
    "web": {"ariaRole": "link", "ariaNameRegex": "Add"},
    "childOf": {
        "web": {"ariaRole": "row"},
        "containsChild": {"web": {"ariaRole": "rowheader", "ariaNameRegex": "Tickets"}},
    },
}
ADMIN = """\
trail:
  - step: Open the admin
    recording:
      web:
        - web_navigate: {url: /admin.html}
  - step: Add a ticket
  - verify: The ticket form opened
    recording:
      web:
        - web_verifyTextVisible: {text: Opened tickets/ticket/add/}
"""


def test_one_of_many_equal_links_is_recorded_by_its_row_and_replays_on_a_redesign(
    cli_process: CliProcess, cli: CliRunner, project: Project, browser: str
) -> None:
    trail = project.trail("admin", ADMIN)
    project.write("trailblaze.yaml", f"base_url: {(PAGES / 'original').as_uri()}\ntimeout: 5\n")
    port = _free_port()
    proc = cli_process(
        "record",
        "trails/admin.trail.yaml",
        "--agent",
        "browser",
        "--headless",
        "--remote-debugging-port",
        str(port),
        merge_stderr=True,
    )
    demo = Demonstration(proc, port)
    demo.wait_for("── step 2")
    with _demo_page(demo) as page:
        tickets = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Tickets", exact=True))
        tickets.get_by_role("link", name="Add").click()  # one of five Add links; it leaves the page
        page.wait_for_url("**opened=tickets/ticket/add/")
        demo.say("done")
        demo.wait_for("recording saved to")
    out = demo.finish()
    assert demo.proc.returncode == 0, out
    assert "by its position" not in out
    (click,) = (load_trail(trail, environ={}).steps[1].recordings or {})["web"]
    assert click.args == {"nodeSelector": TICKETS_ADD}
    redesign = cli("run", "trails/admin.trail.yaml", "--base-url", (PAGES / "redesigned").as_uri())
    assert redesign.returncode == 0, redesign.output


def test_a_click_that_leaves_the_page_is_named_from_what_the_page_said(browser: str) -> None:
    # the page is gone before trailblaze can look: the event carries what the web driver's page
    # scripts worked out at the click, and it makes the same selector
    from playwright.sync_api import sync_playwright

    from trailblaze.agents.browser import BINDING, recorder_script
    from trailblaze.drivers.web import stable

    events: list[dict[str, Any]] = []
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=browser)
        context = chromium.new_context()
        context.expose_binding(BINDING, lambda source, event: events.append(event))
        context.add_init_script(script=recorder_script())
        page = context.new_page()
        page.goto((PAGES / "original" / "admin.html").as_uri())
        tickets = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Tickets", exact=True))
        tickets.get_by_role("link", name="Add").click()
        page.wait_for_url("**opened=tickets/ticket/add/")
        page.goto("data:text/html,<div><div>Kyoto <button>Add</button></div><div>Nara <button>Add</button></div></div>")
        page.get_by_role("button").nth(1).click()
        page.evaluate("() => 0")  # the click's event has reached the binding
        chromium.close()
    link, button = [event for event in events if event["kind"] == "click"]
    assert stable.from_page(link) == TICKETS_ADD
    # nothing around the buttons says which is which: their position, the last resort
    assert stable.from_page(button) == {"web": {"ariaRole": "button", "ariaNameRegex": "Add", "nthIndex": 1}}


INJECTED = """\
trail:
  - step: Open the forms page
  - step: Press the button a script put there
"""


def test_a_demonstration_that_does_not_replay_is_not_saved(
    cli_process: CliProcess, project: Project, app: str, browser: str
) -> None:
    """What the page's own script did is not recorded (and said so); a recording that needs
    it fails its replay, and the trail file stays as it was."""

    trail = project.trail("injected", INJECTED)
    demo = _record(cli_process, project, app, "trails/injected.trail.yaml")
    with _demo_page(demo) as page:
        page.goto(f"{app}/forms.html")
        demo.say("done")
        demo.wait_for("── step 2")
        # a script (not the person) adds a button and clicks things: a replay does neither
        page.evaluate(
            "() => { document.body.insertAdjacentHTML('beforeend', '<button id=injected>Injected</button>');"
            " document.querySelector('#injected').click(); document.querySelector('#name').click(); }"
        )
        page.click("#injected")  # the person's click: recorded
        demo.say("done")
        demo.wait_for("replaying the new recording")
    out = demo.finish()
    assert demo.proc.returncode == 1, out
    assert "ignored 2 scripted events (2 click): the page's own script made them, not a person" in out
    assert "the new recording does not replay, so trails/injected.trail.yaml is left unchanged: step 2" in out
    assert "web_click: click ariaRole='button', ariaNameRegex='Injected': 0 elements matched" in out
    assert "recording saved" not in out
    assert trail.read_text() == INJECTED


def test_the_browser_agent_records_web_pages_only(cli: CliRunner, project: Project) -> None:
    project.trail("app", "trail:\n  - step: Open the app\n")
    result = cli(
        "record",
        "-p",
        "tests.support.null_driver",
        "--driver",
        "null-test",
        "--agent",
        "browser",
        env={"PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 3, result.output
    assert "the browser agent records web pages; null-test is test" in result.stderr


def test_a_visible_browser_without_a_display_says_to_use_headless(cli: CliRunner, project: Project) -> None:
    trail = project.trail("form", FORM)
    before = trail.read_bytes()
    result = cli("record", "--agent", "browser", env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert result.returncode == 3, result.output
    assert "a visible browser needs a display" in result.stderr
    assert "--headless" in result.stderr
    assert trail.read_bytes() == before
