"""Tables written for GitHub, shown the same on the site.

GitHub's tables split a row at every unescaped pipe, code spans included, so a pipe inside a
cell's code is written ``\\|`` (```trail\\|config```) and shown without the backslash.
Python-Markdown's tables leave code spans whole and show what is inside as written: the site
showed ``trail\\|config``. The pages keep GitHub's form; the build unescapes those pipes.
"""

from __future__ import annotations

import re

#: a fence that opens or closes a code block: its marker (```, ~~~ or longer)
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
#: a code span: its backticks, its text, the same backticks again
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def unescape_code_pipes(markdown: str) -> str:
    """``markdown`` with ``\\|`` made ``|`` inside the code spans of table rows (lines that start
    with a pipe, outside code blocks); everything else as it was."""
    lines = markdown.split("\n")
    fence: str | None = None
    for number, line in enumerate(lines):
        opened = FENCE.match(line)
        if opened is not None:
            marker = opened[1]
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence is None and line.lstrip().startswith("|") and "\\|" in line:
            lines[number] = CODE_SPAN.sub(lambda span: span[1] + span[2].replace("\\|", "|") + span[1], line)
    return "\n".join(lines)
