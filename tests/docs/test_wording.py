"""What a user reads speaks of the product, not of how it was made: no design documents'
numbers ("seed 001"), no notes about the machine the figures were taken on, no issue numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.snippets import PAGES, ROOT

READ_BY_USERS = [*PAGES, ROOT / "CHANGELOG.md", ROOT / "SECURITY.md"]
PROCESS_WORDS = re.compile(
    r"(?<!hash )\bseeds?\b|\bdevlog|\b\d-core shared\b|\bshared machine\b|\bthis machine\b"
    r"|\bgoal (?:is )?missed\b|\(missed\)|\bissue #?\d+\b|\.\./shared\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("path", READ_BY_USERS, ids=[str(p.relative_to(ROOT)) for p in READ_BY_USERS])
def test_no_words_of_the_design_process(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m[0]}"
        for m in PROCESS_WORDS.finditer(text)
    ]
    assert found == []
