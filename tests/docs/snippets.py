"""The code blocks of what a user reads: the docs pages, the README and CONTRIBUTING.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([*(ROOT / "docs").rglob("*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md"])
FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>[\w-]*)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```", re.MULTILINE | re.DOTALL
)
#: the file a block is, as MkDocs shows it above the block: ```yaml title="trails/x.trail.yaml"
TITLE = re.compile(r'\btitle="(?P<title>[^"]+)"')


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language, its text (indentation removed), where it starts and
    the file it is, when its title names one."""

    path: Path
    line: int
    lang: str
    text: str
    title: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(*langs: str, pages: list[Path] = PAGES) -> list[Block]:
    """The blocks of ``pages`` in these languages (every language when none is named)."""
    found = []
    for path in pages:
        source = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(source):
            if match["lang"] in langs or not langs:
                indent = len(match["indent"])
                body = "".join(line[indent:] for line in match["body"].splitlines(keepends=True))
                title = TITLE.search(match["info"])
                line = source.count("\n", 0, match.start()) + 1
                found.append(Block(path, line, match["lang"], body, title["title"] if title else None))
    return found


def ids(items: list[Block]) -> list[str]:
    return [b.where for b in items]
