"""Ask the installed trailblaze about itself, as a user would: through its command line.

The reference pages are made from what ``trailblaze`` prints (``tools --json``, ``schema``,
``--help``), so they show what the installed version does. It runs in an empty folder (no
project's ``trailblaze.yaml`` or tools leak in) with entry-point plugins off (an installed
third-party plugin would add its tools and options to the pages), at a fixed width.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

#: how long one command may take before the build stops with an error
TIMEOUT_S = 120


class TrailblazeCommandFailed(RuntimeError):
    """``trailblaze …`` exited with an error while a page was made from it."""


def output(*args: str) -> str:
    """What ``trailblaze ARGS`` prints on stdout; raises with its stderr when it fails."""
    env = {
        **os.environ,
        "COLUMNS": "100",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    with tempfile.TemporaryDirectory(prefix="trailblaze-docs-") as empty:
        result = subprocess.run(
            [sys.executable, "-m", "trailblaze", *args],
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    if result.returncode != 0:
        raise TrailblazeCommandFailed(
            f"trailblaze {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}"
        )
    return result.stdout


def json_output(*args: str) -> Any:
    """``trailblaze ARGS`` printing JSON, parsed."""
    return json.loads(output(*args))
