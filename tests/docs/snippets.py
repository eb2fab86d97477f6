"""The code blocks of what a user reads: the docs pages, the README and CONTRIBUTING.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([*(ROOT / "docs").rglob("*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md"])
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language, its text (indentation removed) and where it starts."""

    path: Path
    line: int
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(*langs: str) -> list[Block]:
    found = []
    for path in PAGES:
        source = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(source):
            if match["lang"] in langs:
                indent = len(match["indent"])
                body = "".join(line[indent:] for line in match["body"].splitlines(keepends=True))
                found.append(Block(path, source.count("\n", 0, match.start()) + 1, match["lang"], body))
    return found


def ids(items: list[Block]) -> list[str]:
    return [b.where for b in items]
