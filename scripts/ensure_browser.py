"""Make sure the web driver has a browser: Playwright's own, or a system Chromium.

Run by `make setup`. Prefers what is already there; otherwise installs Debian's/Ubuntu's
`chromium` package when it can (root or passwordless sudo), else Playwright's download.
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


def run(cmd: list[str]) -> bool:
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd) == 0


def main() -> int:
    found = have_browser()
    if found:
        print(f"browser: {found}")
        return 0
    if shutil.which("apt-get"):
        sudo: list[str] = [] if os.geteuid() == 0 else (["sudo", "-n"] if shutil.which("sudo") else [])
        if os.geteuid() == 0 or sudo:
            env_prefix = ["env", "DEBIAN_FRONTEND=noninteractive"]
            if run([*sudo, *env_prefix, "apt-get", "update", "-qq"]) and run(
                [*sudo, *env_prefix, "apt-get", "install", "-y", "-qq", "chromium"]
            ):
                found = have_browser()
    if not found and run([sys.executable, "-m", "playwright", "install", "chromium"]):
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
