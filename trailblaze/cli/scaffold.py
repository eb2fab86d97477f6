"""``trailblaze init``: a minimal project that runs green against the bundled sample app."""

from __future__ import annotations

from pathlib import Path

from trailblaze.core.errors import UsageError

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


#: what a run leaves in the project that is no source: its artifacts and state, the HTML report
IGNORED = (".trailblaze/", "trailblaze-report/")
GITIGNORE_HEADER = "# trailblaze: each run's artifacts and state, and the HTML report"


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


def ignore_what_runs_leave(directory: Path) -> tuple[Path, list[str]] | None:
    """Have ``directory``'s ``.gitignore`` name what runs leave behind (:data:`IGNORED`):
    written when there is none, else the lines it lacks are added — never replaced. Returns
    the file and the lines added, or None when it had them all."""
    path = directory / ".gitignore"
    try:
        text = path.read_bytes().decode("utf-8") if path.exists() else ""  # as it is: CRLF stays CRLF
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read it to add {', '.join(IGNORED)}: {exc}") from None
    present = {line.strip().rstrip("/") for line in text.splitlines()}
    missing = [
        entry for entry in IGNORED if entry.rstrip("/") not in present and "/" + entry.rstrip("/") not in present
    ]
    if not missing:
        return None
    separator = "" if not text or text.endswith("\n") else "\n"
    blank = "\n" if text else ""
    added = "\n".join([GITIGNORE_HEADER, *missing]) + "\n"
    path.write_bytes((text + separator + blank + added).encode("utf-8"))
    return path, missing
