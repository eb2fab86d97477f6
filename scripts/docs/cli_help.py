"""The command line's own help, for the CLI page: ``trailblaze --help`` and each command's
``--help`` as the installed trailblaze prints them, plugins' options included."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import trailblaze_cli

#: where a page wants a command's help: ``<!-- trailblaze-help: run -->`` (no name: the top level)
MARKER = re.compile(r"<!-- trailblaze-help(?:: ([\w-]+))? -->")


def commands() -> list[str]:
    """The commands ``trailblaze --help`` lists."""
    text = trailblaze_cli.output("--help")
    listing = text.split("\nCommands:\n", 1)[1]
    return [m[1] for m in re.finditer(r"^  ([\w-]+)\s", listing, re.MULTILINE)]


def help_block(command: str | None) -> str:
    args = [command, "--help"] if command else ["--help"]
    text = trailblaze_cli.output(*args).rstrip()
    return f"```text\n$ trailblaze {' '.join(args)}\n{text}\n```"


def fill(markdown: str) -> tuple[str, set[str]]:
    """``markdown`` with each marker replaced by that help, and the commands it showed. The
    commands run side by side: each is a Python start-up that mostly waits."""
    wanted = list(dict.fromkeys(match[1] for match in MARKER.finditer(markdown)))
    with ThreadPoolExecutor(max_workers=4) as pool:
        blocks = dict(zip(wanted, pool.map(help_block, wanted), strict=True))
    filled = MARKER.sub(lambda match: blocks[match[1]], markdown)
    return filled, {name or "" for name in wanted}
