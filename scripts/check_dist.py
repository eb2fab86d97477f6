"""Check what a release would publish (`make dist`, the release workflow): the wheel and the
sdist in a folder hold what users need and nothing of the repository's own.

The wheel must be one for every platform (`py3-none-any`) and hold the package, every file
`[tool.setuptools.package-data]` of pyproject.toml names (each pattern must match at least one
file), the @trailblaze/scripting SDK built (its command line, module hooks, declarations and the
TypeScript compiler it runs on), the LICENSE among its metadata, and the `trailblaze` command; it
must hold no tests, scripts or docs, and no native code (no shared library or executable of any
platform). The sdist must hold the LICENSE, pyproject.toml, the README, the build backend and the
SDK's sources, and build the same wheel — without Node.js, from the SDK bundle it carries.
Prints each problem and exits 1 when there is one.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the SDK as a user of the wheel runs it
SDK = "trailblaze/scripting-sdk"
SDK_FILES = (
    f"{SDK}/package.json",
    f"{SDK}/build-info.json",
    f"{SDK}/dist/cli.js",
    f"{SDK}/dist/index.js",
    f"{SDK}/dist/index.d.ts",
    f"{SDK}/dist/hooks.js",
    f"{SDK}/dist/register.js",
    f"{SDK}/dist/describe.js",
    f"{SDK}/node_modules/typescript/lib/typescript.js",
    f"{SDK}/node_modules/typescript/lib/lib.es2022.d.ts",
    f"{SDK}/node_modules/zod/index.d.ts",
)
#: the first bytes of native code: ELF, Mach-O (both byte orders, fat), PE, WebAssembly
NATIVE_MAGIC = (
    b"\x7fELF",
    b"\xfe\xed\xfa",
    b"\xcf\xfa\xed\xfe",
    b"\xce\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
    b"MZ",
    b"\0asm",
)


def wheel_problems(wheel: Path) -> list[str]:
    problems = [] if wheel.name.endswith("-py3-none-any.whl") else [f"{wheel.name}: not a py3-none-any wheel"]
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        for name in names:
            with archive.open(name) as member:
                if member.read(4).startswith(NATIVE_MAGIC):
                    problems.append(f"{wheel.name}: {name} is native code")
        dist_info = next((n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")), "")
        metadata = archive.read(f"{dist_info}/METADATA").decode() if dist_info else ""
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode() if dist_info else ""
    required = ("trailblaze/__init__.py", "trailblaze/py.typed", *SDK_FILES)
    problems += [f"{wheel.name}: no {name}" for name in required if name not in names]
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
    required = (
        "LICENSE",
        "pyproject.toml",
        "README.md",
        "build_support/trailblaze_build.py",
        "sdks/typescript/package-lock.json",
        "sdks/typescript/src/index.ts",
        "sdks/typescript/scripts/bundle.mjs",
        *SDK_FILES,
    )
    return [f"{sdist.name}: no {name}" for name in required if name not in names]


def rebuilt_problems(sdist: Path, wheel: Path) -> list[str]:
    """The wheel the sdist builds, with no node or npm on PATH, against ``wheel``: the same files."""
    with tempfile.TemporaryDirectory(prefix="check-dist-") as tmp:
        no_node = Path(tmp, "bin")
        no_node.mkdir()
        with tarfile.open(sdist) as archive:
            archive.extractall(tmp, filter="data")
        source = next(p for p in Path(tmp).iterdir() if p.is_dir() and p.name != "bin")
        done = subprocess.run(
            [sys.executable, "-m", "build", "--wheel", "--outdir", str(Path(tmp, "out")), str(source)],
            env={**os.environ, "PATH": str(no_node)},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            return [f"{sdist.name} does not build a wheel without Node.js:\n{done.stderr.strip()[-2000:]}"]
        rebuilt = next(Path(tmp, "out").glob("*.whl"))
        ours, theirs = _contents(wheel), _contents(rebuilt)
    if rebuilt.name != wheel.name:
        return [f"{sdist.name} builds {rebuilt.name}, not {wheel.name}"]
    differ = sorted(name for name in ours.keys() | theirs.keys() if ours.get(name) != theirs.get(name))
    return [f"{sdist.name} builds a different {wheel.name}: {', '.join(differ[:10])}"] if differ else []


def _contents(wheel: Path) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: hashlib.sha256(archive.read(name)).hexdigest() for name in archive.namelist()}


def main(folder: Path, *, rebuild: bool = True) -> int:
    wheels, sdists = sorted(folder.glob("trailblaze-*.whl")), sorted(folder.glob("trailblaze-*.tar.gz"))
    problems = [] if len(wheels) == 1 and len(sdists) == 1 else [f"{folder}: expected one wheel and one sdist"]
    for wheel in wheels:
        problems += wheel_problems(wheel)
    for sdist in sdists:
        problems += sdist_problems(sdist)
    if rebuild and len(wheels) == 1 and len(sdists) == 1 and not problems:
        problems += rebuilt_problems(sdists[0], wheels[0])
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{folder}: {', '.join(p.name for p in [*wheels, *sdists])} hold what a release needs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "dist"))
