"""Helpers shared by the web tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

from trailblaze.trail.model import Trail, TrailConfig


def a_trail(path: Path | None = None) -> Trail:
    """An empty trail, for starting a device's per-trail state."""
    return Trail(path=path or Path("t.trail.yaml"), id="t", config=TrailConfig(), steps=[])


def ref_of(snapshot: str, role: str, name: str) -> str:
    """The ``eN`` ref of ``role "name"`` in an ARIA snapshot (``aria_snapshot(mode="ai")``)."""
    m = re.search(rf"- {role} {re.escape(json.dumps(name))}(?: \[[^\]]*\])* \[ref=((?:f\d+)?e\d+)\]", snapshot)
    if m is None:
        raise AssertionError(f'no {role} "{name}" with a ref in:\n{snapshot}')
    return m.group(1)
