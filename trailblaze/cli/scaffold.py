"""``trailblaze init``: a minimal project that runs green against the bundled sample app."""

from __future__ import annotations

import stat
from pathlib import Path

from trailblaze.core.errors import UsageError
from trailblaze.core.fileio import write_atomic

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
    existing = [p for p in files if p.exists() or p.is_symlink()]
    if existing and not force:
        names = ", ".join(str(p) for p in existing)
        raise UsageError(f"{names} already exists; use --force to overwrite")
    for path, text in files.items():
        write_atomic(path, text)  # a link there is replaced, never written through
    return list(files)


def ignore_what_runs_leave(directory: Path) -> tuple[Path, list[str]] | None:
    """Have ``directory``'s ``.gitignore`` name what runs leave behind (:data:`IGNORED`):
    written when there is none, else the lines it lacks are added — never replaced. Returns
    the file and the lines added, or None when it had them all. A ``.gitignore`` that is a link,
    or anything but a regular file, is not read nor written: the error names the lines to add."""
    path = directory / ".gitignore"
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it to add {', '.join(IGNORED)}: {exc.strerror}") from None
    if mode is not None and not stat.S_ISREG(mode):
        what = "a link" if stat.S_ISLNK(mode) else "not a regular file"
        raise UsageError(
            f"{path} is {what}, which trailblaze does not write through: add these lines to the file "
            f"yourself: {', '.join(IGNORED)}"
        )
    try:
        text = path.read_bytes().decode("utf-8") if mode is not None else ""  # as it is: CRLF stays CRLF
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
    write_atomic(path, text + separator + blank + added)
    return path, missing
