"""trailblaze's build backend: setuptools', which first makes the @trailblaze/scripting SDK the
wheel carries.

The wheel holds the SDK built and bundled (``trailblaze/scripting-sdk``: JavaScript and the
TypeScript compiler, no native code), so that a user of the wheel runs tools in TypeScript with
Node.js alone. A checkout holds its sources (``sdks/typescript``); building a wheel or an sdist
from a checkout makes the bundle with the SDK's own build (``npm ci``, ``tsc``, esbuild), which
needs Node.js and npm, unless the bundle there was made from the same sources and version
(``build-info.json``). An sdist carries the bundle, so a wheel built from it needs no Node.js and
holds the same files. An editable install (``pip install -e``) does not build it: ``make sdk``
does, in a checkout.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  the hooks this backend does not change
    build_editable,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "sdks" / "typescript"
BUNDLE = ROOT / "trailblaze" / "scripting-sdk"
#: what the bundle is made from, as scripts/bundle.mjs hashes it
SOURCE_ITEMS = ("src", "scripts", "package.json", "package-lock.json", "tsconfig.json", "README.md")
NPM_TIMEOUT_S = 600


class SdkBuildError(RuntimeError):
    """The SDK could not be made: the message says what is missing."""


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    ensure_sdk()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    ensure_sdk()
    return _setuptools.build_sdist(sdist_directory, config_settings)


def ensure_sdk() -> None:
    """Make ``trailblaze/scripting-sdk`` unless it is there, made from these sources."""
    if not SOURCES.is_dir():
        if not (BUNDLE / "dist" / "cli.js").is_file():
            raise SdkBuildError(f"{BUNDLE} is missing and there are no SDK sources ({SOURCES}) to make it from")
        return
    if _up_to_date():
        return
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise SdkBuildError(
            "building trailblaze from a checkout makes the @trailblaze/scripting SDK it carries, which needs "
            "Node.js 20.6 or later and npm on PATH (https://nodejs.org); or build from trailblaze's sdist"
        )
    lock = SOURCES / "package-lock.json"
    stamp = SOURCES / "node_modules" / ".installed"
    if not stamp.is_file() or stamp.stat().st_mtime < lock.stat().st_mtime:
        _npm(npm, "ci", "--no-audit", "--no-fund")
        stamp.touch()
    _npm(npm, "run", "--silent", "build")
    _npm(npm, "run", "--silent", "bundle")
    if not _up_to_date():
        raise SdkBuildError(f"the SDK's build did not make {BUNDLE} from the sources in {SOURCES}")


def _npm(npm: str, *args: str) -> None:
    try:
        done = subprocess.run(
            [npm, "--prefix", str(SOURCES), *args],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise SdkBuildError(f"`npm {' '.join(args)}` in {SOURCES} took over {NPM_TIMEOUT_S}s") from None
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip().splitlines()[-20:]
        raise SdkBuildError(f"`npm {' '.join(args)}` in {SOURCES} failed:\n" + "\n".join(output))


def _up_to_date() -> bool:
    try:
        info = json.loads((BUNDLE / "build-info.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(info, dict)
        and (BUNDLE / "dist" / "cli.js").is_file()
        and info.get("sources") == sources_hash()
        and info.get("version") == _version()
    )


def sources_hash() -> str:
    """The hash scripts/bundle.mjs writes into build-info.json: each file's path and bytes."""
    digest = hashlib.sha256()
    for item in SOURCE_ITEMS:
        path = SOURCES / item
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path] if path.is_file() else []
        for file in sorted(files, key=lambda p: p.relative_to(SOURCES).parts):
            digest.update(f"{file.relative_to(SOURCES).as_posix()}\0".encode())
            digest.update(file.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def _version() -> str:
    found = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "trailblaze" / "__init__.py").read_text(), re.MULTILINE)
    return found.group(1) if found else ""
