"""Run the test suite against the newest release of every dependency (`make test-latest`).

`make test` runs against requirements/dev.txt, the lock file, so a release on PyPI cannot turn
main red. This script is the other half: it installs the newest releases that pyproject.toml
allows into .venv-latest and runs the same suite there. When it fails, the packages it lists
as newer than the lock are the suspects: if `make test` passes on the same commit, one of those
releases broke something (fix it, then `make lock`); if both fail, the regression is ours.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-latest"
PINNED = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)", re.MULTILINE)


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_versions(lock: Path) -> dict[str, str]:
    return {normalized(name): version for name, version in PINNED.findall(lock.read_text(encoding="utf-8"))}


def installed_versions(python: Path) -> dict[str, str]:
    script = "import importlib.metadata as m\nfor d in m.distributions(): print(d.metadata['Name'], d.version)"
    listing = subprocess.run(
        [str(python), "-c", script],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {normalized(name): version for name, version in (line.split(" ", 1) for line in listing.splitlines())}


def main() -> int:
    lock = ROOT / (sys.argv[1] if len(sys.argv) > 1 else "requirements/dev.txt")
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "--quiet", "--quiet"]
    subprocess.run([*pip, "install", "--upgrade", "pip"], check=True)
    upgrade = [*pip, "install", "--upgrade", "--upgrade-strategy", "eager"]
    subprocess.run([*upgrade, "-e", f"{ROOT}[all,dev,docs]"], check=True)
    moved = {
        name: (locked, version)
        for name, version in installed_versions(python).items()
        if (locked := locked_versions(lock).get(name)) is not None and locked != version
    }
    print("newer than the lock file:" if moved else "the newest releases are the locked ones")
    for name, (locked, version) in sorted(moved.items()):
        print(f"  {name} {locked} -> {version}")
    env = {**os.environ, "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    code = subprocess.run([str(python), "-m", "pytest", "-n", "2", "--dist", "loadfile"], cwd=ROOT, env=env).returncode
    if code and moved:
        print(
            "\nthe suite fails on the newest releases. If `make test` (the lock file) passes on this commit, "
            "one of the releases above broke it: fix that, then `make lock`.",
            file=sys.stderr,
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
