from __future__ import annotations

import os
from pathlib import Path

import pytest

from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.trail.discovery import discover
from trailblaze.trail.loader import load_trail


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


def test_a_fifo_or_device_named_on_the_command_line_is_taken_for_loading_to_name(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.trail.yaml")  # it was "no such file or directory"
    (tmp_path / "zero.trail.yaml").symlink_to("/dev/zero")
    given = [tmp_path / "pipe.trail.yaml", tmp_path / "zero.trail.yaml"]
    assert discover(given) == given
    with pytest.raises(UsageError, match=r"pipe.trail.yaml: not a regular file \(a FIFO\)"):
        load_trail(given[0])


def _trail(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("trail: []\n")
    return path


def test_a_symlinked_folder_is_followed_once_and_a_loop_is_a_problem_of_its_link(tmp_path: Path) -> None:
    _trail(tmp_path / "shared/login.trail.yaml")
    (tmp_path / "web").mkdir()
    (tmp_path / "web/shared").symlink_to("../shared")  # followed
    (tmp_path / "again").symlink_to("shared")  # the same folder: searched once
    (tmp_path / "shared/up").symlink_to("..")  # a loop
    problems: list[TrailblazeError] = []
    found = [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], problems)]
    assert len(found) == 1
    assert found[0] in ("shared/login.trail.yaml", "web/shared/login.trail.yaml", "again/login.trail.yaml")
    assert [str(p) for p in problems] == [
        f"{tmp_path}/shared/up: symlink loop: the link leads back to {tmp_path}; not followed"
    ]
    with pytest.raises(UsageError, match="symlink loop"):  # without a list: the first problem is raised
        discover([tmp_path])


def test_a_trail_file_that_links_to_itself_is_found_and_loading_says_why(tmp_path: Path) -> None:
    loop = tmp_path / "loop.trail.yaml"
    loop.symlink_to("loop.trail.yaml")
    assert discover([tmp_path]) == [loop]  # used to be a RuntimeError traceback from resolve()
    problems: list[TrailblazeError] = []
    assert discover([loop], problems) == []
    assert [str(p) for p in problems] == [f"{loop}: symlink loop: the link leads back to itself"]
