"""Finding and starting a Chromium for the web driver: Playwright's own build, a system
Chromium, or the one ``browser:`` names; the flags it runs with, and what to say when none
starts. Also what scripts and benchmarks use to launch the same browser the driver does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import InfrastructureError, UsageError

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserType

#: Chromium flags that keep it quiet on a closed network and in containers.
CHROMIUM_ARGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    # a name pattern from a trail that backtracks catastrophically ((a+)+$) is matched by V8 in
    # the page: let V8 switch to its linear-time engine instead of hanging the page
    "--js-flags=--enable-experimental-regexp-engine-on-excessive-backtracks",
)
SYSTEM_CHROMIUMS = (
    "/usr/lib/chromium/chromium",  # Debian's binary, without the wrapper script's warning
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
)
#: Chromium's headless shell (Debian: `apt install chromium-headless-shell`), preferred for a
#: headless run as Playwright prefers its own: no window means none of the full browser's UI
#: processes: a launch, a page and a close cost Chromium under a third of the CPU of the full
#: browser's `--headless`, and a run of one trail about a third less in all (docs/performance.md)
HEADLESS_SHELLS = (
    "/usr/lib/chromium/chromium-headless-shell",
    "chromium-headless-shell",
)
VIEWPORT = {"width": 1280, "height": 720}
#: what a message about a missing piece ends with (as the scripted tools' do)
DOCTOR_HINT = "`trailblaze doctor` checks the install"
NO_BROWSER = (
    "no browser for the web driver: install Playwright's Chromium (`python -m playwright install chromium`) "
    "or a system Chromium (Debian/Ubuntu: `apt-get install chromium`), or set `browser:` in trailblaze.yaml; "
    + DOCTOR_HINT
)


def display_problem() -> str | None:
    """Why a visible browser cannot open here (Linux without a display), or None."""
    import os
    import sys

    if not sys.platform.startswith("linux") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None  # macOS and Windows always have one for a logged-in user
    return "no display ($DISPLAY is unset)"


def system_chromium(*, headless: bool = True) -> str | None:
    """The system Chromium a launch uses: for a headless one, the headless shell when it is
    installed, else the first browser of :data:`SYSTEM_CHROMIUMS` there is (a visible window
    needs the full browser)."""
    return (headless_shell() if headless else None) or _first(SYSTEM_CHROMIUMS)


def headless_shell() -> str | None:
    """Chromium's headless shell, if the system has it (:data:`HEADLESS_SHELLS`)."""
    return _first(HEADLESS_SHELLS)


def _first(candidates: Sequence[str]) -> str | None:
    for candidate in candidates:
        path = candidate if candidate.startswith("/") else shutil.which(candidate)
        if path and Path(path).is_file():
            return path
    return None


async def launch(chromium: BrowserType, browser: str | None, *, headless: bool, args: Sequence[str] = ()) -> Browser:
    """Start a Chromium with :data:`CHROMIUM_ARGS` and ``args``: the one at ``browser`` (from
    ``browser:`` in trailblaze.yaml) when given, else Playwright's own build (Playwright picks
    its headless shell for a headless launch), else a system Chromium (its headless shell for
    a headless launch, when installed); an error saying how to get one when there is none."""
    started, _ = await launch_which(chromium, browser, headless=headless, args=args)
    return started


async def launch_which(
    chromium: BrowserType, browser: str | None, *, headless: bool, args: Sequence[str] = ()
) -> tuple[Browser, str]:
    """:func:`launch`, also saying which browser started (``trailblaze doctor`` reports it):
    the path of the executable, with where it came from."""
    from playwright.async_api import Error

    options: dict[str, Any] = {"headless": headless, "args": [*CHROMIUM_ARGS, *args]}
    if browser:
        if not Path(browser).is_file():
            raise UsageError(f"browser not found: {browser} (from `browser:` in trailblaze.yaml)")
        try:
            started = await chromium.launch(executable_path=browser, **options)
        except Error as exc:
            raise InfrastructureError(launch_failure(browser, exc)) from None
        return started, f"{browser} (`browser:` in trailblaze.yaml)"
    if Path(chromium.executable_path).is_file():
        try:
            started = await chromium.launch(**options)
            # Playwright picks its headless shell for a headless launch
            kind = "headless shell, beside its Chromium at" if headless else "Chromium at"
            return started, f"Playwright's own {kind} {chromium.executable_path}"
        except Error:
            pass  # Playwright's build is there but cannot start here; try the system's
    path = system_chromium(headless=headless)
    if path is None:
        shell = None if headless else headless_shell()
        if shell is not None:
            raise InfrastructureError(
                f"no browser for a visible window (--headed, headless: false): Chromium's headless shell ({shell}) "
                "cannot show one; install a full Chromium (Debian/Ubuntu: `apt-get install chromium`) or "
                f"Playwright's (`python -m playwright install chromium`); {DOCTOR_HINT}"
            )
        raise InfrastructureError(NO_BROWSER)
    try:
        started = await chromium.launch(executable_path=path, **options)
    except Error as exc:
        raise InfrastructureError(launch_failure(path, exc)) from None
    kind = "the system's headless shell" if path == headless_shell() else "the system's Chromium"
    return started, f"{kind} at {path}"


def launch_failure(path: str, exc: Exception) -> str:
    """One line for a browser that would not start: what the browser itself last said on
    stderr if anything, else Playwright's reason — not Playwright's whole launch log."""
    text = str(exc).strip()
    said = re.findall(r"\[pid=[^\]]*\]\[err\] *(.+)", text)
    if said:
        reason = said[-1].strip()
    else:
        reason = text.splitlines()[0] if text else type(exc).__name__
        reason = re.sub(r"^BrowserType\.launch: (Failed to launch: )?", "", reason)
    return f"cannot start the browser at {path}: {reason}"


#: Node's switch for its compile cache (``NODE_DISABLE_COMPILE_CACHE=1`` turns it off, as Node has it)
NODE_COMPILE_CACHE = "NODE_COMPILE_CACHE"


def compile_cache_dir() -> Path | None:
    """Where Playwright's Node.js driver keeps its compiled code between runs: the user's cache
    folder (``$XDG_CACHE_HOME``, else ``~/.cache``), not Node's default in the shared temp folder,
    where another user could leave compiled code for our driver to load. None without a home."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no HOME and no entry in the password database
            return None
    return Path(base) / "trailblaze" / "node-compile-cache"


@contextlib.contextmanager
def node_compile_cache() -> Iterator[None]:
    """Start Playwright's driver with Node's compile cache (``NODE_COMPILE_CACHE``, Node 22.1+).

    The driver loads the whole of Playwright's JavaScript at every start: about 0.5 s of CPU,
    on the path of every run. With the cache, a start after the first reads V8's compiled code
    instead: about 0.1 s less (docs/performance.md). Node validates the cache against each
    file's contents and skips it quietly when the folder cannot be written; a ``NODE_COMPILE_CACHE``
    of the user's own wins. The variable is set only while the driver is spawned (Playwright
    copies the environment then), so servers and tools the run starts are not affected."""
    folder = compile_cache_dir()
    if NODE_COMPILE_CACHE in os.environ or folder is None:
        yield
        return
    os.environ[NODE_COMPILE_CACHE] = str(folder)
    try:
        yield
    finally:
        os.environ.pop(NODE_COMPILE_CACHE, None)


def quiet_driver_exit(manager: Any) -> None:
    """Ctrl-C in a terminal reaches Playwright's Node.js driver too, and it exits. Playwright then
    sets an error on a future nobody awaits, and asyncio prints "Future exception was never
    retrieved" after our clean interrupt report. Reading the error marks it as seen; the
    interruption itself is reported by the run. (Playwright internals: skipped if they change.)"""
    transport = getattr(getattr(manager, "_client", None), "_transport", None)
    future = getattr(transport, "on_error_future", None)
    if isinstance(future, asyncio.Future):
        future.add_done_callback(lambda f: None if f.cancelled() else f.exception())
