"""The project's trails as ``trailblaze mcp`` lists them: read as every trail file is."""

from __future__ import annotations

import os
from pathlib import Path

from trailblaze.mcpserver.trails import title_of


def test_a_trail_title_is_not_read_from_a_fifo_or_a_device(tmp_path: Path) -> None:
    (tmp_path / "ok.trail.yaml").write_text("config: {title: Sign in}\ntrail: []\n")
    os.mkfifo(tmp_path / "pipe.trail.yaml")  # opening it waited for a writer for ever
    (tmp_path / "zero.trail.yaml").symlink_to("/dev/zero")
    assert title_of(tmp_path / "ok.trail.yaml") == "Sign in"
    assert title_of(tmp_path / "pipe.trail.yaml") is None
    assert title_of(tmp_path / "zero.trail.yaml") is None
