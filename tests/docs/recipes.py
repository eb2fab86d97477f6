"""The "How do I…" recipes of the docs (docs/recipes/): their files and console sessions, and
the project each runs in — one `trailblaze init` made, with the recipe's files written in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.docs.snippets import ROOT, Block, blocks
from tests.support.cli import cli_env

RECIPES = sorted(path for path in (ROOT / "docs" / "recipes").glob("*.md") if path.name != "index.md")
WORKFLOW = ".github/workflows/trails.yml"


def page_blocks(page: Path) -> list[Block]:
    return blocks(pages=[page])


def files_of(page: Path) -> dict[str, str]:
    return {block.title: block.text for block in page_blocks(page) if block.title}


def sessions_of(page: Path) -> list[tuple[list[str], list[str]]]:
    """Each console block's commands and the lines it shows they print."""
    found = []
    for block in page_blocks(page):
        if block.lang == "console":
            lines = block.text.splitlines()
            found.append(([line[2:] for line in lines if line.startswith("$ ")], [x for x in lines if x[:2] != "$ "]))
    return found


def recipe_project(page: Path, folder: Path) -> Path:
    """``trailblaze init`` in ``folder``, then the page's files written into the project."""
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", "init", "project"],
        cwd=folder,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    root = folder / "project"
    for name, text in files_of(page).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root
