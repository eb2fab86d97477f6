"""Make docs/images/html-report.png, the README's picture of the HTML report: run the bundled
trails and one that fails with --html in a throwaway project, then photograph the page in
headless Chromium.

    .venv/bin/python scripts/report_screenshot.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAILING = """config: {id: forms/sign-up-typo, title: Submit with a typo in the button's name, tags: [forms]}
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Press Sumbit
    recording:
      web:
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Sumbit}}, timeoutMs: 500}
"""


def main() -> int:
    from playwright.sync_api import sync_playwright

    from trailblaze.drivers.web.browser import CHROMIUM_ARGS, system_chromium

    with tempfile.TemporaryDirectory(prefix="tb-report-") as tmp:
        project = Path(tmp)
        shutil.copytree(ROOT / "trails", project / "trails")
        (project / "trailblaze.yaml").write_text("base_url: sample-app\n")
        (project / "trails" / "forms" / "sign-up-typo.trail.yaml").write_text(FAILING)
        env = {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "trailblaze", "run", "-q", "trails/", "--html"], cwd=project, env=env)
        report = project / "trailblaze-report" / "index.html"
        target = ROOT / "docs" / "images" / "html-report.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=system_chromium(), args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(report.as_uri())
            page.screenshot(path=str(target))
            browser.close()
    print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
