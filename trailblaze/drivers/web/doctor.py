"""What ``trailblaze doctor`` says of the web driver: Playwright, the browser a headless run
launches, and whether a window (``--headed``) can open here.

The browser is not only looked for but started, headless, the way a run starts it
(:func:`~trailblaze.drivers.web.browser.launch_which`: ``browser:``, else Playwright's own build,
else the system's headless shell or Chromium) and closed again: a Chromium that is there but
cannot start (a missing shared library, a sandbox a container forbids) is the common way a web
run fails, and finding that out costs about half a second (Playwright's Node.js driver
starting, then the browser). A browser for a window is only looked for: doctor opens no window.

What is missing fails the check when the project has web trails (or ``headless: false`` for
the window), and is a warning otherwise.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.api.doctor import DoctorCheck
from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.drivers.web.browser import (
    DOCTOR_HINT,
    NO_BROWSER,
    display_problem,
    launch_which,
    node_compile_cache,
    system_chromium,
)
from trailblaze.drivers.web.settings import WebSettings

if TYPE_CHECKING:
    from playwright.async_api import BrowserType

    from trailblaze.api.session import Run

#: the web driver's key (its module imports Playwright's, which doctor does not need before it runs)
WEB_DRIVER = "playwright-native"
#: how long Playwright's driver and the browser may take to start before the check gives up
LAUNCH_TIMEOUT_S = 30.0
INSTALL_BROWSER = (
    "`python -m playwright install chromium`, or the system's (Debian/Ubuntu: "
    "`apt-get install chromium chromium-headless-shell`)"
)


def needs_web(run: Run) -> bool:
    """Whether some trail of the project runs on the web driver."""
    return any(p.driver_key == WEB_DRIVER and p.skip_reason is None for p in run.planned)


async def web_checks(run: Run) -> list[DoctorCheck]:
    """Playwright, the headless browser (started and closed) and the browser for a window."""
    needed = needs_web(run)
    try:
        from importlib.metadata import version

        playwright_version = version("playwright")
    except Exception as exc:  # not installed, or installed without its metadata
        return [
            DoctorCheck.missing(
                "playwright",
                f"the playwright package is not installed ({type(exc).__name__}: {exc})",
                "pip install --force-reinstall trailblaze (it depends on playwright)",
                needed=needed,
            )
        ]
    checks = [DoctorCheck("playwright", "ok", f"Playwright {playwright_version}")]
    settings = WebSettings.from_config(run.config)
    remote = settings.connect or settings.cdp
    if remote:
        how = "--connect/web: connect:" if settings.connect else "--cdp/web: cdp:"
        skipped = f"web trails use the browser at {remote} ({how}); none is started here"
        return [*checks, DoctorCheck("browser", "skip", skipped)]
    try:
        return [*checks, *await asyncio.wait_for(_browser_checks(run, settings, needed), LAUNCH_TIMEOUT_S)]
    except TimeoutError:
        detail = f"Playwright's driver and the browser did not start within {LAUNCH_TIMEOUT_S:.0f} s"
        return [
            *checks,
            DoctorCheck.missing("browser", detail, f"install a Chromium: {INSTALL_BROWSER}", needed=needed),
        ]


async def _browser_checks(run: Run, settings: WebSettings, needed: bool) -> list[DoctorCheck]:
    from playwright.async_api import async_playwright

    manager = async_playwright()
    try:
        with node_compile_cache():
            playwright = await manager.start()
    except Exception as exc:
        detail = f"Playwright's Node.js driver did not start: {type(exc).__name__}: {exc}"
        fix = "pip install --force-reinstall playwright"
        return [DoctorCheck.missing("browser", detail, fix, needed=needed)]
    try:
        chromium = playwright.chromium
        return [await _headless(chromium, settings, needed), _window(chromium, settings, needed)]
    finally:
        await playwright.stop()


async def _headless(chromium: BrowserType, settings: WebSettings, needed: bool) -> DoctorCheck:
    """The browser a headless run launches, started and closed."""
    began = time.perf_counter()
    try:
        browser, which = await launch_which(chromium, settings.browser, headless=True)
    except UsageError as exc:  # browser: names no file
        fix = "correct `browser:` in trailblaze.yaml, or remove it to use Playwright's or the system's Chromium"
        return DoctorCheck.missing("browser", exc.message, fix, needed=needed)
    except TrailblazeError as exc:
        if exc.message == NO_BROWSER:
            detail = "no browser for the web driver: neither Playwright's Chromium nor a system Chromium is installed"
            fix = f"install one: {INSTALL_BROWSER}; or name one with `browser:` in trailblaze.yaml"
        else:  # one is there, and would not start
            detail = _without_hint(exc.message)
            fix = f"install a Chromium that starts here: {INSTALL_BROWSER}"
        return DoctorCheck.missing("browser", detail, fix, needed=needed)
    try:
        version = browser.version
    finally:
        await browser.close()
    detail = f"{which}: Chromium {version}, started headless in {time.perf_counter() - began:.1f} s"
    return DoctorCheck("browser", "ok", detail)


def _window(chromium: BrowserType, settings: WebSettings, needed: bool) -> DoctorCheck:
    """Whether ``--headed`` (or ``headless: false``) can open a window: a full browser and a
    display. Needed when trailblaze.yaml says ``headless: false``; on a machine without a
    display it is not looked at otherwise (CI runs headless)."""
    needed = needed and not settings.headless
    name = "browser window"
    display = display_problem()
    if display is not None:
        if not needed:
            return DoctorCheck(name, "skip", f"{display}: --headed cannot open a window here; headless runs can")
        fix = "run headless (`headless: true`, the default), or where there is a display"
        return DoctorCheck.missing(name, f"headless: false needs a display: {display}", fix, needed=True)
    if settings.browser:  # the same for a window: whether it starts is the headless check's answer
        return DoctorCheck(name, "skip", f"--headed opens {settings.browser} (`browser:` in trailblaze.yaml)")
    if Path(chromium.executable_path).is_file():
        return DoctorCheck(name, "ok", f"--headed opens Playwright's own Chromium at {chromium.executable_path}")
    found = system_chromium(headless=False)
    if found is None:
        detail = "no full Chromium for a window (--headed): Chromium's headless shell cannot show one"
        fix = "`apt-get install chromium` (Debian/Ubuntu) or `python -m playwright install chromium`"
        return DoctorCheck.missing(name, detail, fix, needed=needed)
    return DoctorCheck(name, "ok", f"--headed opens the system's Chromium at {found}")


def _without_hint(message: str) -> str:
    """An error message without its pointer to ``trailblaze doctor``: doctor is what is running."""
    return message.removesuffix(f"; {DOCTOR_HINT}")
