"""What the tests share besides fixtures: the CLI's result and environment, a throwaway
project folder, the processes a test started. Tests import these from here; conftest.py holds
only fixtures and hooks."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str
    cwd: Path

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def json(self, name: str = "results.json") -> Any:
        return json.loads((self.cwd / name).read_text(encoding="utf-8"))


CliRunner = Callable[..., CliResult]
#: the ``cli_process`` fixture: start ``python -m trailblaze ARGS``, get the Popen
CliProcess = Callable[..., subprocess.Popen[str]]


def cli_env(autoload: bool = False, **extra: str) -> dict[str, str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("FORCE_COLOR", None)
    if not autoload:
        env["TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.update(extra)
    return env


class Project:
    """A throwaway trailblaze project in a temporary folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\n")

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def trail(self, name: str, text: str) -> Path:
        return self.write(f"trails/{name}.trail.yaml", text)


def processes_with(marker: str) -> list[str]:
    """Command lines of live processes whose environment carries ``marker`` (our descendants:
    Playwright's driver and Chromium inherit the environment, whatever their process group)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"TRAILBLAZE_TEST_MARKER={marker}".encode() not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if state != "Z" and command:  # an empty command line: past exit's point of no return
            found.append(command)
    return found
