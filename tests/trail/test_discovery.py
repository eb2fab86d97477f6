from __future__ import annotations

from pathlib import Path

import pytest

from trailblaze.errors import UsageError
from trailblaze.trail.discovery import discover


def test_finds_trail_files_recursively_sorted_and_skips_build_folders(tmp_path: Path) -> None:
    for rel in (
        "b/login.trail.yaml",
        "a/trail.yaml",
        "a/z/deep.trail.yaml",
        "a/notes.yaml",
        "node_modules/pkg/x.trail.yaml",
        ".git/y.trail.yaml",
        ".trailblaze/resume/z.trail.yaml",
        "build/w.trail.yaml",
        "pkg.egg-info/v.trail.yaml",
    ):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("trail: []\n")
    found = [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path])]
    assert found == ["a/trail.yaml", "a/z/deep.trail.yaml", "b/login.trail.yaml"]


def test_files_are_taken_as_given_and_duplicates_dropped(tmp_path: Path) -> None:
    path = tmp_path / "blaze.yaml"
    path.write_text("- prompts: []\n")
    assert discover([path, tmp_path / "blaze.yaml"]) == [path]


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file or directory"):
        discover([tmp_path / "missing"])
