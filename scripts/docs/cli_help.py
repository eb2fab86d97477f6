"""The command line's own help, for the CLI page: ``trailblaze --help`` and each command's
``--help`` as the installed trailblaze prints them, plugins' options included."""

from __future__ import annotations

import re

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
    """``markdown`` with each marker replaced by that help, and the commands it showed."""
    shown: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        shown.add(match[1] or "")
        return help_block(match[1])

    return MARKER.sub(replace, markdown), shown
