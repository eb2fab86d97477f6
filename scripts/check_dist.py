"""Check what a release would publish (`make dist`, the release workflow): the wheel and the
sdist in a folder hold what users need and nothing of the repository's own.

The wheel must hold the package, every file `[tool.setuptools.package-data]` of pyproject.toml
names (each pattern must match at least one file), the LICENSE among its metadata, and the
`trailblaze` command; it must hold no tests, scripts or docs. The sdist must hold the LICENSE,
pyproject.toml and the README. Prints each problem and exits 1 when there is one.
"""

from __future__ import annotations

import fnmatch
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wheel_problems(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        dist_info = next((n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")), "")
        metadata = archive.read(f"{dist_info}/METADATA").decode() if dist_info else ""
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode() if dist_info else ""
    required = ("trailblaze/__init__.py", "trailblaze/py.typed")
    problems = [f"{wheel.name}: no {name}" for name in required if name not in names]
    if f"{dist_info}/licenses/LICENSE" not in names:
        problems.append(f"{wheel.name}: no LICENSE in {dist_info}/licenses/")
    if "License-Expression: Apache-2.0" not in metadata:
        problems.append(f"{wheel.name}: METADATA has no License-Expression: Apache-2.0")
    if "trailblaze = trailblaze.cli:main" not in entry_points:
        problems.append(f"{wheel.name}: no `trailblaze` command among its entry points")
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    for package, patterns in package_data.get("package-data", {}).items():
        for pattern in patterns:
            full = f"{package.replace('.', '/')}/{pattern}"
            if not fnmatch.filter(names, full):
                problems.append(f"{wheel.name}: no file matches package data {full}")
    stray = sorted({n.split("/")[0] for n in names} & {"tests", "scripts", "docs", "benchmarks", "plugins-examples"})
    problems += [f"{wheel.name}: holds the repository's {folder}/" for folder in stray]
    return problems


def sdist_problems(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    return [f"{sdist.name}: no {name}" for name in ("LICENSE", "pyproject.toml", "README.md") if name not in names]


def main(folder: Path) -> int:
    wheels, sdists = sorted(folder.glob("trailblaze-*.whl")), sorted(folder.glob("trailblaze-*.tar.gz"))
    problems = [] if len(wheels) == 1 and len(sdists) == 1 else [f"{folder}: expected one wheel and one sdist"]
    for wheel in wheels:
        problems += wheel_problems(wheel)
    for sdist in sdists:
        problems += sdist_problems(sdist)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{folder}: {', '.join(p.name for p in [*wheels, *sdists])} hold what a release needs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "dist"))
