"""Which of the collected trails a run keeps: ``-k``, ``--include-tags``/``--exclude-tags``,
``--last-failed``.

``-k`` takes pytest's expressions: words joined with ``and``, ``or``, ``not`` and parentheses,
each word matching (case-insensitively, as a substring) a trail's id, title or path. The parser
is a small recursive descent one with bounds on the expression's length and nesting, so a
hostile expression costs nothing. Tags follow Maestro: a trail is kept when it has one of the
included tags (when any are given) and none of the excluded ones.

The last run's failures are kept in ``.trailblaze/lastfailed.json`` next to trailblaze.yaml, as
pytest's cache keeps ``lastfailed``: trails that failed are added, trails that ran and passed are
removed, trails that did not run keep their state.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.core import jsonsource
from trailblaze.core.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.api.results import RunResult
    from trailblaze.api.session import Run, RunOptions
    from trailblaze.trail.model import Trail

#: an expression longer than this, or nested deeper, is refused
MAX_EXPRESSION = 1000
MAX_DEPTH = 50
LAST_FAILED_FILE = Path(".trailblaze") / "lastfailed.json"
_TOKEN = re.compile(r"\s*(?:(\()|(\))|([^\s()]+))")
_KEYWORDS = frozenset({"and", "or", "not"})

Matcher = Callable[[str], bool]
Predicate = Callable[[Matcher], bool]


class _Parser:
    """``expr := and ('or' and)*; and := not ('and' not)*; not := 'not' not | '(' expr ')' | word``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, int]] = []
        position = 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:  # only whitespace is left
                break
            value = next(g for g in match.groups() if g is not None)
            self.tokens.append((value, match.start(match.lastindex or 0) + 1))
            position = match.end()
        self.index = 0

    def error(self, expected: str) -> UsageError:
        if self.index < len(self.tokens):
            token, column = self.tokens[self.index]
            found = f"{token!r} at column {column}"
        else:
            found = "the end"
        return UsageError(f"-k {self.text!r}: expected {expected}, found {found}")

    def peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def parse(self) -> Predicate:
        if not self.tokens:
            return lambda matches: True
        predicate = self.expression(0)
        if self.index < len(self.tokens):
            raise self.error("'and', 'or' or the end")
        return predicate

    def expression(self, depth: int) -> Predicate:
        terms = [self.conjunction(depth)]
        while self.peek() == "or":
            self.index += 1
            terms.append(self.conjunction(depth))
        return terms[0] if len(terms) == 1 else (lambda matches: any(t(matches) for t in terms))

    def conjunction(self, depth: int) -> Predicate:
        terms = [self.negation(depth)]
        while self.peek() == "and":
            self.index += 1
            terms.append(self.negation(depth))
        return terms[0] if len(terms) == 1 else (lambda matches: all(t(matches) for t in terms))

    def negation(self, depth: int) -> Predicate:
        if depth > MAX_DEPTH:
            raise UsageError(f"-k: the expression is nested more than {MAX_DEPTH} deep")
        token = self.peek()
        if token == "not":
            self.index += 1
            inner = self.negation(depth + 1)
            return lambda matches: not inner(matches)
        if token == "(":
            self.index += 1
            inner = self.expression(depth + 1)
            if self.peek() != ")":
                raise self.error("')'")
            self.index += 1
            return inner
        if token is None or token == ")" or token in _KEYWORDS:
            raise self.error("a word, 'not' or '('")
        self.index += 1
        word = token.lower()
        return lambda matches: matches(word)


def keyword_matcher(expression: str) -> Callable[[Iterable[str]], bool]:
    """A test of a trail's names against ``-k expression``; a malformed one is a UsageError."""
    if len(expression) > MAX_EXPRESSION:
        raise UsageError(f"-k: the expression is longer than {MAX_EXPRESSION} characters")
    predicate = _Parser(expression).parse()

    def test(names: Iterable[str]) -> bool:
        lowered = [n.lower() for n in names]
        return predicate(lambda word: any(word in name for name in lowered))

    return test


def split_tags(values: Sequence[str]) -> list[str]:
    """``--include-tags a,b --include-tags c`` → ``[a, b, c]``."""
    return [tag.strip() for value in values for tag in value.split(",") if tag.strip()]


@dataclass(slots=True)
class Selection:
    trails: list[Trail]
    deselected: int
    note: str | None = None


def select(trails: list[Trail], options: RunOptions, root: Path) -> Selection:
    """The trails ``options`` select, how many were left out, and what to tell the user about
    ``--last-failed``."""
    keep = list(trails)
    note = None
    if options.last_failed:
        failed, problem = read_last_failed(root)
        previously = [t for t in keep if t.id in failed]
        if previously:
            note = f"last-failed: running the {len(previously)} trail(s) that failed last time"
            keep = previously
        else:
            if problem is not None:
                why = f"cannot use the record of the previous run ({problem})"
            elif not os.path.lexists(root / LAST_FAILED_FILE):
                why = "no record of a previous run"
            else:
                why = "none failed"
            note = f"last-failed: {why}; running all trails"
    if options.keyword:
        matches = keyword_matcher(options.keyword)
        keep = [t for t in keep if matches((t.id, t.title, str(t.path)))]
    if options.include_tags:
        wanted = set(options.include_tags)
        keep = [t for t in keep if wanted & set(t.config.tags)]
    if options.exclude_tags:
        unwanted = set(options.exclude_tags)
        keep = [t for t in keep if not unwanted & set(t.config.tags)]
    return Selection(keep, len(trails) - len(keep), note)


def read_last_failed(root: Path) -> tuple[set[str], str | None]:
    """Ids of the trails that failed when they last ran, and what is wrong with the record of
    them when it cannot be used (it is a cache: a damaged one is a warning, never a failed run).
    No record at all is no problem: nothing failed before."""
    path = root / LAST_FAILED_FILE
    if not os.path.lexists(path):
        return set(), None
    try:
        data = jsonsource.load_path(path)
    except UsageError as exc:
        return set(), str(exc)
    failed = data.get("failed") if isinstance(data, dict) else None
    if not isinstance(failed, list):
        return set(), f'{path}: expected {{"failed": [trail ids]}}'
    return {i for i in failed if isinstance(i, str)}, None


def write_last_failed(root: Path, result: RunResult) -> None:
    """Record which trails failed in this run (and forget those that passed now)."""
    from trailblaze.core.fileio import write_atomic

    failed, problem = read_last_failed(root)
    if problem is not None:
        print(f"warning: {problem}; it is written afresh", file=sys.stderr, flush=True)
    for trail in result.trails:
        if trail.status in ("failed", "error"):
            failed.add(trail.id)
    for trail in result.trails:
        if trail.status in ("passed", "flaky", "healed") and not any(
            t.id == trail.id and t.status in ("failed", "error") for t in result.trails
        ):
            failed.discard(trail.id)
    try:
        (root / LAST_FAILED_FILE).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(root / LAST_FAILED_FILE, json.dumps({"version": 1, "failed": sorted(failed)}, indent=2) + "\n")
    except OSError as exc:
        print(f"warning: cannot write {root / LAST_FAILED_FILE}: {exc.strerror or exc}", file=sys.stderr, flush=True)


def print_listing(run: Run) -> None:
    """``run --list``: what the run would replay, one trail a line (a table on a terminal)."""
    from rich.console import Console

    from trailblaze.core.limits import inert_line, one_line

    rows = [  # one line each, whatever ids and tags hold; none a CI log takes for a command
        (
            inert_line(one_line(p.trail.id)),
            one_line(",".join(p.trail.config.tags)) or "-",
            p.driver_key,
            one_line(_shown(p.trail.path) + (f"  (skipped: {p.skip_reason})" if p.skip_reason else "")),
        )
        for p in run.planned
    ]
    header = ("id", "tags", "driver", "path")
    console = Console(soft_wrap=True, markup=False, emoji=False, highlight=False)
    if console.is_terminal:
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, pad_edge=False)
        for column in header:
            table.add_column(column)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
    else:
        widths = [max(len(r[i]) for r in (header, *rows)) for i in range(3)]
        for row in (header, *rows):
            print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3])
    noun = "trail" if len(rows) == 1 else "trails"
    deselected = f", {run.result.deselected} deselected" if run.result.deselected else ""
    shard = f" (shard {run.result.shard[0]}/{run.result.shard[1]})" if run.result.shard else ""
    print(f"{len(rows)} {noun}{shard}{deselected}", flush=True)


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(path)
