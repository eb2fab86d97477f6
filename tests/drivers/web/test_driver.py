"""The ``playwright-native`` driver and its device, in process against real Chromium.

End-to-end behaviour (browser discovery errors, exit codes) is in test_tools.py and
tests/test_cli.py; here are the parts a tool author relies on through ``ctx.commands`` and
``ctx.driver``.
"""

from __future__ import annotations

import asyncio
import http.server
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import CliProcess, Project, cli_env, processes_with
from trailblaze.core.errors import InfrastructureError, ToolFailure, UsageError
from trailblaze.drivers.web.browser import compile_cache_dir, headless_shell, node_compile_cache, system_chromium
from trailblaze.drivers.web.device import WebDevice
from trailblaze.drivers.web.driver import PlaywrightDriver

from .support import a_trail, shown_ref

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


def test_system_chromium_is_found(browser: str) -> None:
    found = system_chromium()
    assert found is not None
    assert Path(found).is_file()


def test_a_headless_launch_prefers_the_headless_shell_and_a_window_the_full_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trailblaze.drivers.web.browser as module

    full, shell = tmp_path / "chromium", tmp_path / "chromium-headless-shell"
    monkeypatch.setattr(module, "SYSTEM_CHROMIUMS", (str(tmp_path / "missing"), str(full)))
    monkeypatch.setattr(module, "HEADLESS_SHELLS", (str(shell),))
    assert (system_chromium(headless=True), system_chromium(headless=False)) == (None, None)
    full.touch()
    assert (system_chromium(headless=True), system_chromium(headless=False)) == (str(full), str(full))
    shell.touch()
    assert (system_chromium(headless=True), system_chromium(headless=False)) == (str(shell), str(full))
    full.unlink()
    assert (system_chromium(headless=True), system_chromium(headless=False)) == (str(shell), None)


async def test_a_window_with_only_the_headless_shell_installed_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.async_api import async_playwright

    import trailblaze.drivers.web.browser as module

    shell = tmp_path / "chromium-headless-shell"
    shell.touch()
    monkeypatch.setattr(module, "SYSTEM_CHROMIUMS", (str(tmp_path / "missing"),))
    monkeypatch.setattr(module, "HEADLESS_SHELLS", (str(shell),))
    async with async_playwright() as playwright:
        monkeypatch.setattr(type(playwright.chromium), "executable_path", str(tmp_path / "no-playwright-build"))
        with pytest.raises(InfrastructureError) as raised:
            await module.launch(playwright.chromium, None, headless=False)
    assert str(raised.value) == (
        f"no browser for a visible window (--headed, headless: false): Chromium's headless shell ({shell}) "
        "cannot show one; install a full Chromium (Debian/Ubuntu: `apt-get install chromium`) or "
        "Playwright's (`python -m playwright install chromium`); `trailblaze doctor` checks the install"
    )


@pytest.mark.skipif(headless_shell() is None, reason="Chromium's headless shell is not installed (make setup adds it)")
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to see the process tree")
def test_a_headless_run_launches_the_headless_shell(cli_process: CliProcess, project: Project) -> None:
    """What the user gets from `trailblaze run`: the browser process is the shell's binary."""
    project.trail(
        "waits",
        """
        trail:
          - step: Open the forms page and wait a moment
            recording:
              web:
                - web_navigate: {url: /forms.html}
                - web_evaluate: {script: "new Promise(done => setTimeout(done, 1500))"}
        """,
    )
    marker = uuid.uuid4().hex
    # the browsers a run could start (not Chromium's helpers, such as its crash handler)
    binaries = {headless_shell(), system_chromium(headless=False)} - {None}
    browsers: set[str] = set()
    # in a group of its own, with its driver and browser, for the kill below
    proc = cli_process("run", cwd=project.root, env={"TRAILBLAZE_TEST_MARKER": marker}, session=True)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        browsers |= {c.split()[0] for c in processes_with(marker) if c.split()[0] in binaries}
        time.sleep(0.05)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert browsers == {headless_shell()}


def test_nodes_compile_cache_is_set_only_while_the_driver_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    assert compile_cache_dir() == tmp_path / "trailblaze" / "node-compile-cache"
    with node_compile_cache():
        assert os.environ["NODE_COMPILE_CACHE"] == str(tmp_path / "trailblaze" / "node-compile-cache")
    assert "NODE_COMPILE_CACHE" not in os.environ  # servers and tools the run starts do not get it
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert compile_cache_dir() == tmp_path / "home" / ".cache" / "trailblaze" / "node-compile-cache"
    monkeypatch.setenv("NODE_COMPILE_CACHE", str(tmp_path / "theirs"))  # the user's own wins
    with node_compile_cache():
        assert os.environ["NODE_COMPILE_CACHE"] == str(tmp_path / "theirs")
    assert os.environ["NODE_COMPILE_CACHE"] == str(tmp_path / "theirs")


def bundled_node_version() -> tuple[int, ...]:
    """The version of the Node.js that Playwright bundles (found through Playwright's own,
    private, helper: a release that moves it skips the test rather than failing it)."""
    try:
        from playwright._impl._driver import compute_driver_executable
    except ImportError:
        pytest.skip("this Playwright does not say where its Node.js is")
    node = compute_driver_executable()[0]
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=True).stdout
    return tuple(int(part) for part in out.strip().lstrip("v").split(".")[:2])


def test_a_run_keeps_the_drivers_compiled_code_in_the_users_cache(project: Project, tmp_path: Path) -> None:
    """The second start of Playwright's driver reads V8's compiled code (Node 22.1 and later)."""
    if bundled_node_version() < (22, 1):
        pytest.skip("this Playwright's Node.js has no compile cache")
    project.trail(
        "about",
        """
        trail:
          - step: Open the about page
            recording:
              web:
                - web_navigate: {url: /about.html}
        """,
    )
    cache = tmp_path / "cache"
    env = {**cli_env(), "XDG_CACHE_HOME": str(cache)}
    env.pop("NODE_COMPILE_CACHE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", "-q"],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    written = [p for p in (cache / "trailblaze" / "node-compile-cache").rglob("*") if p.is_file()]
    assert written, "the driver wrote no compile cache"


# -- URLs ------------------------------------------------------------------------------------------


async def test_url_rules(device: WebDevice, tmp_path: Path) -> None:
    assert device.base_url is not None
    assert device.base_url.startswith("http://127.0.0.1:")
    assert device.absolute_url("https://example.org/x") == "https://example.org/x"
    for kept in ("about:blank", "data:text/html,hi", "file:///tmp/a.html"):
        assert device.absolute_url(kept) == kept
    assert device.absolute_url("/forms.html") == f"{device.base_url}/forms.html"
    trail = tmp_path / "deep" / "t.trail.yaml"
    assert device.absolute_url("page.html", trail) == (tmp_path / "deep" / "page.html").as_uri()
    assert device.absolute_url("../up.html", trail) == (tmp_path / "up.html").as_uri()


async def test_a_relative_path_not_beside_the_trail_is_taken_from_the_working_directory(
    device: WebDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As upstream: its scripted tools pass paths from the repository's root."""
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "both.html").write_text("beside")
    (tmp_path / "both.html").write_text("root")
    (tmp_path / "root-only.html").write_text("root")
    monkeypatch.chdir(tmp_path)
    trail = tmp_path / "deep" / "t.trail.yaml"
    assert device.absolute_url("./both.html", trail) == (tmp_path / "deep" / "both.html").as_uri()
    assert device.absolute_url("./root-only.html", trail) == (tmp_path / "root-only.html").as_uri()
    assert device.absolute_url("./nowhere.html", trail) == (tmp_path / "deep" / "nowhere.html").as_uri()


async def test_base_url_with_a_path_keeps_it(device: WebDevice) -> None:
    device.base_url = "http://127.0.0.1:9/app/"
    assert device.absolute_url("/forms.html") == "http://127.0.0.1:9/app/forms.html"
    device.base_url = None
    with pytest.raises(UsageError, match="no base_url is configured"):  # misuse, not a failed check
        device.absolute_url("/forms.html")


# -- isolation ------------------------------------------------------------------------------------------


async def test_each_trail_gets_a_fresh_context(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    await device.page.evaluate("localStorage.setItem('who', 'first trail'); document.cookie = 'c=1'")
    await device.navigate("/lists.html")
    first_page = device.page
    await device.start_trail(a_trail())
    assert device.page is not first_page
    if not first_page.is_closed():  # the last trail's context closes while the next one starts
        await first_page.wait_for_event("close")
    assert device.page.url == "about:blank"
    await device.navigate("/forms.html")
    state = "[localStorage.getItem('who'), document.cookie, history.length]"
    assert await device.page.evaluate(state) == [None, "", 2]  # history: about:blank, then this page


async def test_from_its_second_trail_a_device_opens_the_next_context_ahead_and_each_trail_sees_only_its_own(
    web_driver: PlaywrightDriver,
) -> None:
    device = await web_driver.open(None)
    contexts_before = len(device.browser.contexts)
    seen = []
    try:
        for trail in range(3):
            await device.start_trail(a_trail())
            assert (device.page.url, device.requests, list(device.console)) == ("about:blank", [], [])
            await device.navigate(f"/forms.html?trail={trail}")
            await device.page.evaluate(f"console.log('trail {trail}')")
            assert device.requests[0][0].endswith(f"/forms.html?trail={trail}")
            assert [line for line in device.console if "trail" in line] == [f"[log] trail {trail}"]
            seen.append(device.page.context)
            await device.end_trail(a_trail())
    finally:
        await device.close()
    assert len(set(map(id, seen))) == 3
    assert len(device.browser.contexts) == contexts_before  # the last one made ahead is closed too


async def test_beside_another_trail_in_its_browser_a_device_opens_no_context_ahead(
    web_driver: PlaywrightDriver,
) -> None:
    """``run --workers 4``: the cores are busy with the other trails, and the context opened for
    a next trail that never comes would be work for nothing."""
    first, second = await web_driver.open(None), await web_driver.open(None)
    try:
        await second.start_trail(a_trail())
        for _ in range(3):
            await first.start_trail(a_trail())
            assert first._spare is None
            await first.end_trail(a_trail())
        await second.end_trail(a_trail())
        await first.start_trail(a_trail())  # alone in the browser now
        assert first._spare is not None
    finally:
        await first.close()
        await second.close()


async def test_the_web_device_has_one_device(web_driver: PlaywrightDriver) -> None:
    (info,) = await web_driver.devices()
    assert (info.id, info.platform, info.driver) == ("chromium", "web", "playwright-native")
    with pytest.raises(UsageError, match="unknown web device 'phone'"):
        await web_driver.open("phone")


# -- refs from snapshots ------------------------------------------------------------------------------


async def test_selector_for_ref_gives_a_stable_selector(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    root = await device.view_hierarchy()
    assert await device.selector_for_ref(shown_ref(root, "textbox", "Name")) == {"web": {"dataTestId": "name-input"}}
    assert await device.selector_for_ref(shown_ref(root, "button", "Clear All")) == {
        "web": {"ariaRole": "button", "ariaNameRegex": "Clear All"}
    }
    assert await device.selector_for_ref("e999") is None


async def test_the_screen_numbers_elements_as_upstream_and_a_ref_names_one_of_the_current_page(
    device: WebDevice,
) -> None:
    await device.navigate("/forms.html")
    forms = await device.view_hierarchy()
    assert shown_ref(forms, "textbox", "Name") == "e7"  # after the nav (e1-e5) and the heading
    assert shown_ref(forms, "option", "Team") == "e13"  # an option has no handle of Playwright's: still listed
    assert await device.selector_for_ref("e13") == {"web": {"ariaRole": "option", "ariaNameRegex": "Team"}}
    await device.navigate("/lists.html")
    lists = await device.view_hierarchy()  # what an agent sees now
    assert shown_ref(lists, "searchbox", "Filter items") == "e7"
    assert await device.selector_for_ref("e7") == {"web": {"dataTestId": "filter-input"}}


async def test_a_ref_of_the_page_elements_list_works_before_any_snapshot_of_the_page(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    locator = await device.locate(None, "e10", timeout=2)  # combobox "Plan", as upstream numbers it
    assert await locator.get_attribute("id") == "plan"
    with pytest.raises(ToolFailure, match=r"no element e99 on the page \(waited 0\.3s\); the page lists 17 elements"):
        await device.locate(None, "e99", timeout=0.3)


async def test_a_handle_inside_a_frame_is_a_ref_too(device: WebDevice) -> None:
    await device.page.set_content(
        '<button>Go</button><iframe srcdoc="<button>Go</button><button>Stay</button>"></iframe>'
    )
    frame = device.page.frame_locator("iframe")
    await frame.get_by_role("button", name="Stay").wait_for()
    root = await device.view_hierarchy()
    (stay,) = [n for n in root.walk() if n.text == "Stay"]
    assert stay.ref is not None and stay.ref.startswith("f")  # upstream lists no element inside a frame
    assert await (await device.locate(None, stay.ref, timeout=2)).inner_text() == "Stay"


# -- Commands, as ctx.commands exposes them ---------------------------------------------------------------


async def test_actions_and_queries(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    await device.tap(id="name-input")
    await device.input_text("Grace")
    await device.tap(selector={"web": {"cssSelector": "#plan"}})
    await device.press_key("Escape")
    assert await device.get_element_text(selector={"web": {"dataTestId": "name-input"}}) == "Grace"
    assert await device.get_element_text(id="plan") == "free"
    late = "Object.assign(document.createElement('p'), {id: 'late', innerText: ' Late '})"
    await device.page.evaluate(f"setTimeout(() => document.body.append({late}), 300)")
    assert await device.get_element_text(id="late") == "Late"  # not there yet: waited for
    assert await device.is_visible(text="Forms")
    assert not await device.is_visible(text="Name is required")  # hidden
    assert await device.get_element_count(selector={"web": {"ariaRole": "button"}}) == 2
    await device.tap(text="Submit")
    assert await device.has_text("Name: Grace")
    await device.press_back()  # the submit did not navigate: back leaves the app
    assert device.page.url == "about:blank"


async def test_tap_with_index_and_scrolling(device: WebDevice) -> None:
    await device.navigate("/lists.html")
    await device.page.set_viewport_size({"width": 800, "height": 300})
    await device.scroll("DOWN", 200)
    assert await device.page.evaluate("window.scrollY") == 200
    await device.swipe("DOWN")  # content moves down: the page scrolls up
    assert await device.page.evaluate("window.scrollY") == 0
    await device.tap(selector={"web": {"ariaRole": "link"}, "childOf": {"web": {"dataTestId": "item-list"}}}, index=3)
    await device.page.wait_for_url("**/detail.html?item=4")


async def test_capture_screen_and_queries_that_find_nothing(device: WebDevice) -> None:
    await device.navigate("/about.html")
    screen = await device.capture_screen()
    assert screen.screenshot is not None
    assert screen.screenshot.startswith(b"\x89PNG")
    assert screen.url is not None
    assert screen.url.endswith("/about.html")
    assert "heading 'About'" in screen.hierarchy.outline()
    device.default_timeout = 0.3
    assert await device.get_element_text(selector={"web": {"cssSelector": "#missing"}}) is None
    assert await device.get_element_count(text="Nothing like this") == 0
    assert not await device.is_visible(selector={"web": {"cssSelector": "#missing"}})


async def test_launch_app_opens_a_url_and_reinstall_starts_fresh(device: WebDevice) -> None:
    await device.launch_app("/forms.html")
    await device.page.evaluate("localStorage.setItem('k', 'v')")
    await device.launch_app("/forms.html", mode="REINSTALL")
    assert await device.page.evaluate("localStorage.getItem('k')") is None


async def test_fill_evaluate_js_and_wait_for_selector(device: WebDevice) -> None:
    """The commands a Playwright user expects, for tools that call back (the TypeScript SDK's
    ``ctx.client.fill`` and the like): Playwright selector strings, JSON results."""
    await device.navigate("/forms.html")
    await device.fill("#name", "Ada")
    await device.fill("css=#email", "ada@example.org")
    assert await device.evaluate_js("document.querySelector('#name').value") == "Ada"
    assert await device.evaluate_js("([a, b]) => a + b", [2, 3]) == 5
    assert await device.evaluate_js("({n: 1, list: [true, null]})") == {"n": 1, "list": [True, None]}
    assert await device.evaluate_js("new Date(0)") != ""  # not JSON: its Python form
    await device.wait_for_selector("#email")
    await device.wait_for_selector("#result", state="hidden")

    await device.navigate("/delayed.html")
    await device.wait_for_selector("#welcome", timeout_ms=5000)  # inserted 800 ms after load


async def test_fill_evaluate_js_and_wait_for_selector_fail_clearly(device: WebDevice) -> None:
    await device.navigate("/forms.html")
    with pytest.raises(ToolFailure, match=r"'#nothing' visible: not within 0.2s; on screen: navigation 'Main'; "):
        await device.wait_for_selector("#nothing", timeout_ms=200)
    with pytest.raises(ToolFailure, match=r"fill 'h1': .*"):
        await device.fill("h1", "x", timeout_ms=500)  # not a field
    with pytest.raises(ToolFailure, match="fill 'input': the selector matches several elements; make it unique"):
        await device.fill("input", "x")
    with pytest.raises(ValueError, match=r"'###' visible: "):
        await device.wait_for_selector("###")
    with pytest.raises(ValueError, match="state must be one of attached, detached, visible, hidden, got 'shown'"):
        await device.wait_for_selector("#name", state="shown")
    for endless in (10**15, -1):  # 1e15 ms was Infinity in Playwright's JSON
        with pytest.raises(ValueError, match=r"timeout_ms must be from 0 to 3600000"):
            await device.wait_for_selector("#nothing", timeout_ms=endless)
    with pytest.raises(ToolFailure, match=r"not within 0.001s"):  # 0 looks once: Playwright's 0 waits for ever
        await asyncio.wait_for(device.wait_for_selector("#nothing", timeout_ms=0), 30)
    with pytest.raises(ToolFailure, match=r"evaluate_js: .*boom"):
        await device.evaluate_js("(() => { throw new Error('boom') })()")
    device.default_timeout = 0.3
    with pytest.raises(ToolFailure, match=r"evaluate_js: the script did not finish within 0.3s"):
        await device.evaluate_js("new Promise(() => {})")


class _SlowPage(http.server.BaseHTTPRequestHandler):
    """``/`` links to ``/slow``, whose headers come at once and whose body a second later: the
    click's navigation commits on the headers, before the new page has any content."""

    def do_GET(self) -> None:
        if self.path == "/apply":
            self.send_response(302)
            self.send_header("Location", "/slow")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        if self.path == "/slow":
            self.wfile.write(b"<!doctype html><title>Results</title>" + b" " * 2048)
            self.wfile.flush()
            time.sleep(1)
            self.wfile.write(b"<h1>Results</h1><p>3 rows</p>")
        else:
            self.wfile.write(b'<title>Start</title><a href="/apply">Apply</a>')

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def slow_site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowPage)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_the_screen_after_a_click_that_navigates_is_the_new_page(device: WebDevice, slow_site: str) -> None:
    """An agent reads the screen right after its click: it sees the page the click led to,
    not the empty document of a navigation that has only just begun."""
    await device.navigate(slow_site)
    await device.tap(text="Apply")
    outline = (await device.view_hierarchy()).outline()
    assert "heading 'Results'" in outline, outline


async def test_a_failure_message_that_cannot_read_the_page_says_why(
    device: WebDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen in a failure message is read within its own bound; when it cannot be, the
    message says which way it failed instead of a bare "could not read the page"."""
    from trailblaze.drivers.web import calls, tools
    from trailblaze.tools.authoring import spec_of
    from trailblaze.tools.model import ToolCall, ToolContext

    context = ToolContext(
        commands=device,
        driver=device,
        device=device.device,
        memory={},
        session_id="sess",
        invocation_id="inv",
        tool=spec_of(tools.WEB_TOOLS[0]),
        call=ToolCall("web_click"),
    )
    await device.navigate("/forms.html")
    read = await calls.on_screen(context)
    assert read.startswith("on screen: ") and "link 'Forms'" in read, read
    monkeypatch.setattr(calls, "OUTLINE_S", 0)
    assert await calls.on_screen(context) == "on screen: (could not read the page within 0s)"
    monkeypatch.undo()
    await device.page.close()
    gone = await calls.on_screen(context)
    # Playwright's own words follow: not asserted
    assert gone.startswith("on screen: (could not read the page: ") and "within" not in gone, gone
