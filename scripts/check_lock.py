"""Check that the installed environment satisfies pyproject.toml: run by `make` after installing
the lock file, so a dependency added to pyproject.toml without `make lock` fails at once, by name,
instead of as an ImportError somewhere in the test suite."""

from __future__ import annotations

import sys
from importlib import metadata

from packaging.requirements import Requirement

EXTRAS = ("all", "dev", "docs", "android", "ios", "appium")


def unmet() -> list[str]:
    problems = []
    for line in metadata.requires("trailblaze") or []:
        requirement = Requirement(line)
        if requirement.marker and not any(requirement.marker.evaluate({"extra": extra}) for extra in ("", *EXTRAS)):
            continue
        if requirement.name == "trailblaze":  # an extra naming other extras: `all = ["trailblaze[android,ios]"]`
            continue
        try:
            installed = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            problems.append(f"{requirement} is not in the lock file")
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            problems.append(f"{requirement} is pinned at {installed}")
    return problems


def main() -> int:
    lock = sys.argv[1] if len(sys.argv) > 1 else "the lock file"
    problems = unmet()
    for problem in problems:
        print(f"{lock}: {problem}", file=sys.stderr)
    if problems:
        print(f"{lock} is out of date with pyproject.toml: run `make lock`", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
