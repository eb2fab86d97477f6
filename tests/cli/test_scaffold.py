"""``trailblaze init``'s ``.gitignore``: what is there is kept, what runs leave is added once."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

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
