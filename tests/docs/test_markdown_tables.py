"""Tables written for GitHub (a pipe in a cell's code escaped) read the same on the site: the
docs build unescapes those pipes, and nothing else."""

from __future__ import annotations

import sys

from tests.docs.snippets import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "docs"))
from markdown_tables import unescape_code_pipes  # a script of the docs build


def test_a_pipe_in_a_cells_code_loses_its_backslash() -> None:
    table = "| command | what |\n| --- | --- |\n| `schema [trail\\|config]` | ``a\\|b`` |\n"
    assert unescape_code_pipes(table) == "| command | what |\n| --- | --- |\n| `schema [trail|config]` | ``a|b`` |\n"


def test_a_pipe_outside_code_or_outside_tables_keeps_it() -> None:
    text = "| a \\| b | `x` |\nprose `p\\|q`\n```\n| `in\\|block` |\n```\n"
    assert unescape_code_pipes(text) == text
