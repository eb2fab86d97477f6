"""Every `trailblaze …` command line a reader copies from the docs, the README and
CONTRIBUTING.md parses: its command exists and takes those options, in that form. Each is
given to the real command line with `--help` added, which click answers only once the options
before it parsed (an unknown option or a missing value is a usage error, exit 2 in click, 3 in
trailblaze); the plugins' options are the ones a user's `trailblaze` has."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import trailblaze.cli
from tests.docs.snippets import PAGES, ROOT, blocks

#: a GitHub Actions expression in a workflow's command (``${{ matrix.shard }}``), a value to the shell
EXPRESSION = re.compile(r"\$\{\{[^}]*\}\}")
#: inline code that is a whole command line, not a synopsis (``trailblaze run [PATHS…]``)
INLINE = re.compile(r"`(trailblaze [^`\[…|<]+)`")


def commands_in(text: str, console: bool = False) -> Iterator[list[str]]:
    """The ``trailblaze`` commands of shell text (in a console session, only the lines after a
    ``$`` prompt; the rest is output): also after a pipe, ``&&`` or ``;``, with comments dropped
    and continued lines joined."""
    text = EXPRESSION.sub("1", text.replace("\\\n", " "))
    for line in text.splitlines():
        if console and not line.startswith("$ "):
            continue
        lexer = shlex.shlex(line.removeprefix("$ "), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for word in [*lexer, ";"]:
            if word in {";", "&&", "||", "|", "&"}:
                if words[:1] == ["trailblaze"]:
                    yield words[1:]
                words = []
            else:
                words.append(word)


def strings_in(document: Any) -> Iterator[str]:
    if isinstance(document, str):
        yield document
    elif isinstance(document, dict):
        for value in document.values():
            yield from strings_in(value)
    elif isinstance(document, list):
        for value in document:
            yield from strings_in(value)


def steps_in(document: Any) -> Iterator[str]:
    """The shell of a CI workflow's ``run:`` and ``script:`` steps (a trail's texts are no shell:
    "the app's name" is not an open quote)."""
    if isinstance(document, dict):
        for key, value in document.items():
            yield from strings_in(value) if key in ("run", "script") else steps_in(value)
    elif isinstance(document, list):
        for value in document:
            yield from steps_in(value)


def command_lines() -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for block in blocks("sh", "console", "bash", "shell"):
        found += [(block.where, args) for args in commands_in(block.text, console=block.lang == "console")]
    for block in blocks("yaml"):  # CI workflows: `run:` and `script:` steps
        for text in steps_in(yaml.safe_load(block.text)):
            found += [(block.where, args) for args in commands_in(text)]
    for path in PAGES:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in INLINE.finditer(line):
                found += [(f"{path.relative_to(ROOT)}:{number}", args) for args in commands_in(match[1])]
    return found


COMMAND_LINES = command_lines()
#: pages whose command lines use the example plugin they show how to write, installed as their
#: reader would have it: its module and the folder it is in
PLUGINS = {"docs/plugins.md": ("trailblaze_markdown_report", ROOT / "plugins-examples" / "trailblaze-markdown-report")}


def test_the_docs_have_command_lines_of_every_kind() -> None:
    commands = {args[0] for _, args in COMMAND_LINES if args}
    assert len(COMMAND_LINES) >= 60
    assert {"run", "record", "mcp", "validate", "merge-reports", "show-report", "schema", "init"} <= commands


@pytest.mark.parametrize(("where", "args"), COMMAND_LINES, ids=[f"{w} {' '.join(a)}"[:90] for w, a in COMMAND_LINES])
def test_every_command_line_parses(
    where: str, args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no project of this repository around: a reader's empty folder
    monkeypatch.setenv("TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD", "1")
    plugin = PLUGINS.get(where.split(":")[0])
    if plugin is not None:
        monkeypatch.syspath_prepend(str(plugin[1]))
        args = ["-p", plugin[0], *args]
    with pytest.raises(SystemExit) as exited:
        trailblaze.cli.main([*args, "--help"])
    output = capsys.readouterr()
    assert exited.value.code == 0, f"{where}: trailblaze {shlex.join(args)}\n{output.err}"
    expected = "trailblaze " if {"-V", "--version"} & set(args) else "Usage: trailblaze"
    assert output.out.startswith(expected), where


def test_a_misspelt_option_does_not_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail."""
    monkeypatch.chdir(tmp_path)
    for args in (["run", "--retires", "2"], ["nosuchcommand"], ["merge-reports", "--json"]):
        with pytest.raises(SystemExit) as exited:
            trailblaze.cli.main([*args, "--help"])
        assert exited.value.code != 0, args
