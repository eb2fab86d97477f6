"""Plugin sources tests write into a project: what a trailblaze process has started, seen from
inside it."""

from __future__ import annotations

#: the start of a plugin module with ``drivers()``: how many Playwright drivers (Node.js,
#: ``run-driver``) the trailblaze process running it has started and not reaped (reads /proc)
DRIVER_COUNTER = """
import os
from pathlib import Path

from trailblaze import hookimpl


def drivers():
    me, found = str(os.getpid()), 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z" and b"run-driver" in command:
            found += 1
    return found
"""
