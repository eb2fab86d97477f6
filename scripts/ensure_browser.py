"""Make sure the web driver has a browser: Playwright's own, or a system Chromium.

Run by `make setup`. Prefers what is already there; otherwise installs Debian's/Ubuntu's
`chromium` package when it can (root or passwordless sudo), else Playwright's download. Where
apt knows Debian's `chromium-headless-shell` and it is not installed, it is added too (headless
runs use it: a run of one trail costs about a third less CPU); without it everything still runs,
in the full browser.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def have_browser() -> str | None:
    from trailblaze.drivers.web.browser import system_chromium

    found = system_chromium()
    if found:
        return found
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            path = p.chromium.executable_path
        return path if Path(path).is_file() else None
    except Exception:
        return None


def run(cmd: list[str], *, quiet: bool = False) -> bool:
    """``cmd``, echoed; ``quiet``: its output only when it fails."""
    print("+", " ".join(cmd), flush=True)
    if not quiet:
        return subprocess.call(cmd) == 0
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    if proc.returncode != 0:
        print(proc.stdout, end="", file=sys.stderr)
    return proc.returncode == 0


def apt() -> list[str] | None:
    """The start of an apt-get command that may install packages here (root, or sudo without a
    password), or None."""
    if not shutil.which("apt-get"):
        return None
    command = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
    if os.geteuid() == 0:
        return command
    if not shutil.which("sudo"):
        return None
    passwordless = subprocess.run(["sudo", "-n", "true"], capture_output=True, check=False).returncode == 0
    return ["sudo", "-n", *command] if passwordless else None


def apt_knows(package: str) -> bool:
    """Whether apt's package lists (as they are, without an update) hold ``package``."""
    proc = subprocess.run(["apt-cache", "show", package], capture_output=True, check=False)
    return proc.returncode == 0 and bool(proc.stdout.strip())


def add_headless_shell(apt_get: list[str]) -> None:
    """Debian's headless shell beside its Chromium, when apt has it; a failure only says so."""
    from trailblaze.drivers.web.browser import headless_shell, system_chromium

    if system_chromium(headless=False) is None or headless_shell() is not None:
        return
    if not apt_knows("chromium-headless-shell"):
        return
    if not run([*apt_get, "install", "-y", "-qq", "chromium-headless-shell"], quiet=True):
        print("note: chromium-headless-shell did not install; headless runs use the full Chromium", file=sys.stderr)


def main() -> int:
    found = have_browser()
    apt_get = apt()
    installed = (
        not found
        and apt_get is not None
        and run([*apt_get, "update", "-qq"])
        and run([*apt_get, "install", "-y", "-qq", "chromium"])
    )
    if installed:
        found = have_browser()
    if found and apt_get is not None:
        add_headless_shell(apt_get)
        found = have_browser()
    if found:
        print(f"browser: {found}")
        return 0
    if run([sys.executable, "-m", "playwright", "install", "chromium"]):
        found = have_browser()
    if not found:
        print(
            "No browser for the web driver. Install Chromium (e.g. `sudo apt-get install chromium`) "
            "or Playwright's (`python -m playwright install chromium`), then run `make setup` again.",
            file=sys.stderr,
        )
        return 1
    print(f"browser: {found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
