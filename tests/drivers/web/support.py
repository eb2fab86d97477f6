"""Helpers shared by the web tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

from trailblaze.device.commands import ViewNode
from trailblaze.trail.model import Trail, TrailConfig


def a_trail(path: Path | None = None) -> Trail:
    """An empty trail, for starting a device's per-trail state."""
    return Trail(path=path or Path("t.trail.yaml"), id="t", config=TrailConfig(), steps=[])


def shown_ref(root: ViewNode, role: str, name: str) -> str:
    """The ref the screen shows for ``role "name"``."""
    refs = [n.ref for n in root.walk() if n.class_name == role and n.text == name and n.ref]
    if len(refs) != 1:
        raise AssertionError(f'{len(refs)} {role} "{name}" with a ref in:\n{root.outline()}')
    return refs[0]


def ref_of(snapshot: str, role: str, name: str) -> str:
    """The ``eN`` ref of ``role "name"`` in an ARIA snapshot as trailblaze writes it (web_snapshot)."""
    m = re.search(rf"- {role} {re.escape(json.dumps(name))}(?: \[[^\]]*\])* \[ref=((?:f\d+)?e\d+)\]", snapshot)
    if m is None:
        raise AssertionError(f'no {role} "{name}" with a ref in:\n{snapshot}')
    return m.group(1)
