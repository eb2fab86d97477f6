"""An unexpected exception, kept for the bug report: its traceback goes into a log file.

The terminal gets one line naming the exception and the file (exit 4); the file gets the
traceback, the command line and the versions, so a report can be filed with it. The file is
under ``.trailblaze/logs/`` next to ``trailblaze.yaml`` (or in the working directory), and in
the system's temporary folder when that cannot be written.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path


def write_crash_log(exc: BaseException, argv: Sequence[str], root: Path | None = None) -> Path | None:
    """Write ``exc``'s traceback to a new log file and return its path (None if no folder could
    take it)."""
    from trailblaze import __version__
    from trailblaze.core.fileio import write_atomic

    stamp = dt.datetime.now().strftime("%Y-%m-%dT%H-%M-%S")
    text = "".join(
        [
            f"trailblaze {__version__} internal error at {dt.datetime.now().isoformat(timespec='seconds')}\n",
            f"command: trailblaze {' '.join(argv)}\n",
            f"python {platform.python_version()} on {platform.platform()}\n\n",
            *traceback.format_exception(exc),
        ]
    )
    for folder in ((root or Path.cwd()) / ".trailblaze" / "logs", Path(tempfile.gettempdir())):
        path = folder / f"internal-error-{stamp}-{os.getpid()}.log"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            # a file of its own (never through a link someone left in a shared folder); bytes
            # that were not UTF-8 are written escaped (\udcff), so the log is always written
            write_atomic(path, text)
        except OSError:
            continue
        return path
    return None
