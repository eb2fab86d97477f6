"""Run the web screen and locator tests on the oldest and the newest Playwright that
pyproject.toml allows (`make test-playwright-range`).

The lock file pins one Playwright; users get any release the dependency range allows, and
what the screen is built from (``aria_snapshot(mode="ai")``, its ``[ref=…]`` handles and
``aria-ref=``) changed between releases. Each end of the range gets a scratch environment
under .venv-playwright/ holding only Playwright and what it needs; the rest (trailblaze,
pytest, the other dependencies) comes from .venv, which `make setup` built.

``--skip-locked`` (what `make test` passes) leaves out an end that is the version .venv has
from the lock file: the suite's own run has just tested that one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / ".venv-playwright"
PIP = [sys.executable, "-m", "pip", "--quiet", "--quiet", "--disable-pip-version-check"]
#: what reads Playwright's snapshots and turns refs and selectors into locators
TESTS = (
    "tests/drivers/web/test_aria.py",
    "tests/drivers/web/test_elements.py",
    "tests/drivers/web/test_locators.py",
    "tests/drivers/web/test_stable.py",
)


def playwright_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for line in project["dependencies"]:
        requirement = Requirement(line)
        if requirement.name == "playwright":
            return requirement
    raise SystemExit("pyproject.toml does not depend on playwright")


def lowest_allowed(requirement: Requirement) -> str:
    bounds = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==", "~=")]
    if not bounds:
        raise SystemExit(f"{requirement} has no lower bound to test: give it one (>=)")
    return max(bounds, key=Version)


def newest_allowed(requirement: Requirement) -> str:
    """The newest release the package index has that ``requirement`` allows (pip resolves it,
    without installing anything)."""
    report = subprocess.run(
        [*PIP, "install", "--dry-run", "--ignore-installed", "--no-deps", "--report", "-", str(requirement)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    version: str = json.loads(report)["install"][0]["metadata"]["version"]
    return version


def environment(name: str, version: str) -> Path:
    """A scratch environment with Playwright ``version`` installed on its own (kept from the
    last run when it is already that version); .venv's packages are visible behind it."""
    folder = SCRATCH / name
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    elif _same(installed_playwright(python), version):
        return python
    # pip runs from .venv, installing into the scratch folder: Playwright and its own
    # dependencies land there, whatever .venv holds
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    subprocess.run([*PIP, "install", "--upgrade", "--target", str(purelib), f"playwright=={version}"], check=True)
    # after the scratch folder's own packages on sys.path: .venv's, with their .pth files
    # (trailblaze's editable install is one)
    (purelib / "zz_dev_environment.pth").write_text(
        f"import site; site.addsitedir({sysconfig.get_path('purelib')!r})\n", encoding="utf-8"
    )
    return python


def _same(one: str, other: str) -> bool:
    """Whether two version strings name one release (``1.59`` is ``1.59.0``)."""
    return bool(one and other) and Version(one) == Version(other)


def installed_playwright(python: Path) -> str:
    """The Playwright version ``python`` imports ("" when it imports none)."""
    script = (
        "import importlib.metadata as m\ntry: print(m.version('playwright'))\nexcept m.PackageNotFoundError: print()"
    )
    return subprocess.run([str(python), "-c", script], check=True, capture_output=True, text=True).stdout.strip()


def main() -> int:
    skip_locked = "--skip-locked" in sys.argv[1:]
    requirement = playwright_requirement()
    locked = installed_playwright(Path(sys.executable))
    failed = []
    for name, version in (("lowest", lowest_allowed(requirement)), ("newest", newest_allowed(requirement))):
        what = f"Playwright {version} ({name} that {requirement} allows)"
        if skip_locked and _same(version, locked):
            print(f"-- {what} is the locked one: tested by the suite")
            continue
        print(f"-- {what}", flush=True)
        python = environment(name, version)
        pytest = [str(python), "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *TESTS]
        if subprocess.run(pytest, cwd=ROOT).returncode:
            failed.append(version)
    if failed:
        print(f"the web screen and locator tests fail on Playwright {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
