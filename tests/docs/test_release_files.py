"""What a release gives users beside the code: the LICENSE inside the wheel;
`scripts/check_dist.py` (run by `make dist` and the release workflow) telling a wheel or an
sdist that lacks what users need, or holds the repository's own folders, from a good one; and
CI workflows that test the Python versions pyproject.toml claims, with make targets that exist."""

from __future__ import annotations

import io
import re
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.docs.snippets import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import check_dist  # the release's check, a script of the repository

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DIST_INFO = "trailblaze-0.1.0.dist-info"
#: the first data file pyproject.toml names, as a file of the wheel and as its pattern
PACKAGE, PATTERNS = next(iter(PYPROJECT["tool"]["setuptools"]["package-data"].items()))
DATA_PATTERN = f"{PACKAGE.replace('.', '/')}/{PATTERNS[0]}"
DATA_FILE = DATA_PATTERN.replace("*", "x")


def wheel_files() -> dict[str, str]:
    """The files of a wheel that holds what it must: one file for each package-data pattern."""
    files = {
        "trailblaze/__init__.py": "",
        "trailblaze/py.typed": "",
        f"{DIST_INFO}/licenses/LICENSE": "Apache License",
        f"{DIST_INFO}/METADATA": "Name: trailblaze\nLicense-Expression: Apache-2.0\n",
        f"{DIST_INFO}/entry_points.txt": "[console_scripts]\ntrailblaze = trailblaze.cli:main\n",
        **dict.fromkeys(check_dist.SDK_FILES, "export {};\n"),
    }
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        for pattern in patterns:
            files[f"{package.replace('.', '/')}/{pattern.replace('*', 'x')}"] = ""
    return files


def write_dist(folder: Path, wheel: dict[str, str], sdist: tuple[str, ...]) -> Path:
    with zipfile.ZipFile(folder / "trailblaze-0.1.0-py3-none-any.whl", "w") as archive:
        for name, text in wheel.items():
            archive.writestr(name, text)
    with tarfile.open(folder / "trailblaze-0.1.0.tar.gz", "w:gz") as archive:
        for name in sdist:
            info = tarfile.TarInfo(f"trailblaze-0.1.0/{name}")
            archive.addfile(info, io.BytesIO(b""))
    return folder


SDIST = (
    "LICENSE",
    "pyproject.toml",
    "README.md",
    "trailblaze/__init__.py",
    "build_support/trailblaze_build.py",
    "sdks/typescript/package-lock.json",
    "sdks/typescript/src/index.ts",
    "sdks/typescript/scripts/bundle.mjs",
    *check_dist.SDK_FILES,
)


def test_the_license_is_the_apache_text_and_the_wheel_carries_it() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_a_release_that_holds_what_users_need_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # (building the wheel again from the sdist is checked on real ones: `make dist`, the release)
    assert check_dist.main(write_dist(tmp_path, wheel_files(), SDIST), rebuild=False) == 0
    assert "hold what a release needs" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda files: files.pop(f"{DIST_INFO}/licenses/LICENSE"), "no LICENSE in"),
        (lambda files: files.pop("trailblaze/py.typed"), "no trailblaze/py.typed"),
        (lambda files: files.pop(DATA_FILE), f"no file matches package data {DATA_PATTERN}"),
        (lambda files: files.update({"tests/conftest.py": ""}), "holds the repository's tests/"),
        (lambda files: files.update({f"{DIST_INFO}/entry_points.txt": ""}), "no `trailblaze` command"),
        (lambda files: files.pop(check_dist.SDK_FILES[2]), f"no {check_dist.SDK_FILES[2]}"),
        (
            lambda files: files.update({"trailblaze/scripting-sdk/node_modules/@esbuild/bin/esbuild": "\x7fELF..."}),
            "trailblaze/scripting-sdk/node_modules/@esbuild/bin/esbuild is native code",
        ),
    ],
    ids=["no-license", "no-py-typed", "no-package-data", "stray-tests", "no-command", "no-sdk", "native-code"],
)
def test_a_wheel_missing_a_part_or_holding_the_repository_fails(
    change: Callable[[dict[str, str]], object], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = wheel_files()
    change(files)
    assert check_dist.main(write_dist(tmp_path, files, SDIST), rebuild=False) == 1
    assert problem in capsys.readouterr().err


def test_an_sdist_without_the_license_or_the_sdk_sources_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_dist.main(write_dist(tmp_path, wheel_files(), SDIST[1:]), rebuild=False) == 1
    assert "trailblaze-0.1.0.tar.gz: no LICENSE" in capsys.readouterr().err
    (tmp_path / "trailblaze-0.1.0.tar.gz").unlink()
    without = tuple(name for name in SDIST if not name.startswith("sdks/"))
    assert check_dist.main(write_dist(tmp_path, wheel_files(), without), rebuild=False) == 1
    assert "trailblaze-0.1.0.tar.gz: no sdks/typescript/src/index.ts" in capsys.readouterr().err


WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def steps_of(workflow: Path) -> list[dict[str, Any]]:
    document = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    return [step for job in document["jobs"].values() for step in job["steps"]]


def test_ci_tests_the_python_versions_pyproject_claims() -> None:
    classifiers = PYPROJECT["project"]["classifiers"]
    claimed = {c.rsplit(" :: ", 1)[1] for c in classifiers if re.match(r".*Python :: 3\.\d+$", c)}
    tested = {
        str(step["with"]["python-version"])
        for workflow in WORKFLOWS
        for step in steps_of(workflow)
        if step.get("uses", "").startswith("actions/setup-python")
    }
    assert claimed and tested == claimed


def test_the_workflows_run_make_targets_that_exist() -> None:
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE))
    used = {
        target
        for workflow in WORKFLOWS
        for step in steps_of(workflow)
        for command in re.findall(r"\bmake ((?:[\w-]+ ?)+)", step.get("run", ""))
        for target in command.split()
    }
    assert {"test", "setup", "peers", "test-latest"} <= used
    assert used <= targets
