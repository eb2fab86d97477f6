"""``trailblaze init``'s ``.gitignore``: what is there is kept, what runs leave is added once."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.support.cli import CliRunner
from trailblaze.cli.scaffold import IGNORED, ignore_what_runs_leave

LINES = st.lists(
    st.one_of(
        st.sampled_from([*IGNORED, "/.trailblaze", "trailblaze-report", "node_modules/", "# comment", ""]),
        st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=20),
    ),
    max_size=8,
)


@given(lines=LINES, final_newline=st.booleans())
def test_an_existing_gitignore_is_kept_and_gets_each_entry_once(lines: list[str], final_newline: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        before = "\n".join(lines) + ("\n" if final_newline and lines else "")
        (root / ".gitignore").write_bytes(before.encode("utf-8"))
        ignore_what_runs_leave(root)
        after = (root / ".gitignore").read_bytes().decode("utf-8")
        assert after.startswith(before)  # nothing of the user's is changed or reordered
        entries = {line.strip().strip("/") for line in after.splitlines()}
        assert {entry.strip("/") for entry in IGNORED} <= entries
        assert ignore_what_runs_leave(root) is None  # a second time: nothing to add
        assert (root / ".gitignore").read_bytes().decode("utf-8") == after


def test_a_missing_gitignore_is_written(tmp_path: Path) -> None:
    written = ignore_what_runs_leave(tmp_path)
    assert written == (tmp_path / ".gitignore", list(IGNORED))
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8").splitlines()[1:] == list(IGNORED)


def test_init_never_writes_through_a_link_and_never_waits_on_a_fifo(cli: CliRunner, tmp_path: Path) -> None:
    """A cloned repository can hold links (and git can't hold a FIFO, but a folder can): init
    refuses to append to a .gitignore that is not a regular file, naming the lines to add, and
    its own files replace a link left where they go."""
    users = tmp_path / "precious.txt"
    users.write_text("the user's\n")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".gitignore").symlink_to(users)
    result = cli("init", str(linked))
    assert result.returncode == 3
    assert f"{linked / '.gitignore'} is a link, which trailblaze does not write through" in result.stderr
    assert "add these lines to the file yourself: .trailblaze/, trailblaze-report/" in result.stderr
    assert users.read_text() == "the user's\n"

    piped = tmp_path / "piped"
    piped.mkdir()
    os.mkfifo(piped / ".gitignore")
    result = cli("init", str(piped), timeout=60)  # used to wait forever for a writer
    assert result.returncode == 3
    assert "is not a regular file, which trailblaze does not write through" in result.stderr

    planted = tmp_path / "planted"
    (planted / "trails").mkdir(parents=True)
    (planted / "trails" / "example.trail.yaml").symlink_to(users)
    assert cli("init", str(planted)).returncode == 3  # it exists (a link): not without --force
    result = cli("init", str(planted), "--force")
    assert result.returncode == 0, result.output
    assert not (planted / "trails" / "example.trail.yaml").is_symlink()
    assert users.read_text() == "the user's\n"
