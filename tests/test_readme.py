"""The README is what a newcomer reads first, in two minutes: the two commands a fresh clone
runs (CI and the fresh-clone check run them from its first code block), what trailblaze is, an
example, the Node.js version the npm-based parts need, and where the documentation is. The
rest lives in docs/ (checked by tests/docs/)."""

from __future__ import annotations

import re

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_first_code_block_is_the_two_commands() -> None:
    first = re.search(r"```\w*\n(.*?)```", README, re.DOTALL)
    assert first is not None
    lines = first.group(1).splitlines()
    assert lines[0].startswith("make demo    # ")
    assert lines[1].startswith("make test    # ")


def test_a_newcomer_reads_it_in_two_minutes() -> None:
    assert len(README.splitlines()) < 150


def test_it_says_which_node_the_npm_based_parts_need() -> None:
    assert re.search(r"Node\.js 20\.6 or later", README)


def test_every_link_leads_to_a_file_of_the_repository() -> None:
    links = [target for target in re.findall(r"\]\(([^)#]+)\)", README) if not target.startswith("http")]
    assert "docs/getting-started.md" in links
    missing = [target for target in links if not (ROOT / target).exists()]
    assert missing == []
