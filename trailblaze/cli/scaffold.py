"""``trailblaze init``: a minimal project that runs green against the bundled sample app."""

from __future__ import annotations

from pathlib import Path

from trailblaze.errors import UsageError

CONFIG = """\
# trailblaze.yaml: project settings (README, "Configuration").
trails_dir: trails
driver: playwright-native   # web, through Playwright and Chromium
base_url: sample-app        # serve the bundled sample app; use your app's URL instead
timeout: 10                 # seconds actions and checks wait for the UI
"""

EXAMPLE = """\
config:
  title: Submit the contact form
  args:
    name: {type: string, default: Ada Lovelace}

trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Fill in the name "{{args.name}}" and submit
    recording:
      web:
        - web_type:
            text: "{{args.name}}"
            nodeSelector: {web: {dataTestId: name-input}}
        - web_click:
            nodeSelector: {web: {ariaRole: button, ariaNameRegex: Submit}}
  - verify: The submission shows the name
    recording:
      web:
        - web_verifyTextVisible: {text: "Name: {{args.name}}"}
"""


def scaffold(directory: Path, *, force: bool = False) -> list[Path]:
    """Write the example project; refuse to overwrite anything unless ``force``."""
    files = {
        directory / "trailblaze.yaml": CONFIG,
        directory / "trails" / "example.trail.yaml": EXAMPLE,
    }
    existing = [p for p in files if p.exists()]
    if existing and not force:
        names = ", ".join(str(p) for p in existing)
        raise UsageError(f"{names} already exists; use --force to overwrite")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)
