"""Where reports go: never over a file that is not a report of ours, never two reports to one file.

``--json``, ``--junit`` and ``--html`` (and ``merge-reports``'s) name files written when the run
is over. ``trailblaze run --json trails/login.trail.yaml`` must not replace the trail with a
results document, so every report path is claimed here before anything runs
(:meth:`ReportPaths.claim`), and a claim is refused — a usage error, exit 3 — when:

* two report options name one file: the same path, or two paths that reach one file through
  symbolic or hard links (the second report would silently replace the first);
* the file exists and is not a report of ours. Ours are recognised by how they begin (their
  first :data:`HEAD_BYTES`): a results JSON document starts ``{"version": N, "summary": …``,
  our JUnit XML has the root ``<testsuites name="trailblaze"``, our HTML page carries
  ``<meta name="generator" content="trailblaze">``. An empty file (a ``mktemp`` placeholder)
  may be written over too. Anything else — a trail, a flow, ``trailblaze.yaml``, a file of
  someone else's — is left as it is, and the message says so;
* the path is a folder.

What is not a regular file (``/dev/stdout``, ``/dev/null``, a FIFO a CI step reads) is written
into, as :func:`trailblaze.core.fileio.write_atomic` does, and ``-`` means stdout: neither is claimed.
A plugin's reporter claims its file the same way, with a :class:`ReportKind` of its own.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from trailblaze.core.errors import UsageError

#: bytes read from the start of an existing file to recognise a report of ours
HEAD_BYTES = 4096
#: what our HTML report's ``<head>`` says about who wrote it
HTML_GENERATOR = '<meta name="generator" content="trailblaze">'

_RESULTS_JSON = re.compile(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"summary"\s*:')
_JUNIT_XML = re.compile(rb'\A(?:<\?xml[^>]*\?>\s*)?<testsuites name="trailblaze"')


@dataclass(frozen=True, slots=True)
class ReportKind:
    """A kind of report, and how to tell one of ours from the first bytes of a file."""

    name: str
    recognise: Callable[[bytes], bool]
    #: what the end of a run calls it, where it says which reports it wrote
    label: str = "report"


RESULTS_JSON = ReportKind("a results JSON document", lambda head: _RESULTS_JSON.match(head) is not None, "JSON")
JUNIT_XML = ReportKind("JUnit XML", lambda head: _JUNIT_XML.match(head) is not None, "JUnit")
HTML_PAGE = ReportKind("an HTML report", lambda head: HTML_GENERATOR.encode() in head, "HTML")


@dataclass(frozen=True, slots=True)
class Claim:
    """A report file a command will write: the option that names it, its path, its kind."""

    option: str
    path: Path
    kind: ReportKind


class ReportPaths:
    """The report files one command will write, claimed before it runs."""

    def __init__(self) -> None:
        self._claimed: dict[object, str] = {}
        self._claims: list[Claim] = []
        #: the option whose report goes to stdout (``--json -``: claimed as the path ``-``), None
        #: when none does; then the terminal reporter and the command print to stderr instead
        self.stdout: str | None = None

    def claims(self) -> list[Claim]:
        """Every report file claimed, in the order they were (stdout's ``-`` is none)."""
        return list(self._claims)

    def claim(self, option: str, path: Path, kind: ReportKind) -> None:
        """Take ``path`` for the report of ``kind`` that ``option`` writes (``--json``); a
        :class:`~trailblaze.core.errors.UsageError` when it is another report's file, a folder or an
        existing file that is not a report of this kind written by trailblaze."""
        if str(path) == "-":
            if self.stdout is not None:
                raise UsageError(f"{self.stdout} - and {option} -: only one report can go to stdout")
            self.stdout = option
            return
        shown = f"{option} {path}"
        try:
            found = os.stat(path)
        except OSError:  # not there, or not reachable (a file where a folder should be): the writer says so
            found = None
        if found is not None and stat.S_ISDIR(found.st_mode):
            raise UsageError(f"{shown}: that is a folder; name the report's file")
        if found is not None and not stat.S_ISREG(found.st_mode):
            return  # a device or a FIFO: written into, never replaced
        if found is not None and found.st_size and not kind.recognise(_head(path)):
            raise UsageError(
                f"{shown}: the file exists and is not {kind.name} trailblaze wrote, so it is not written over; "
                f"choose another path{_hint(option, path)}"
            )
        identity: object = (found.st_dev, found.st_ino) if found is not None else os.path.realpath(path)
        earlier = self._claimed.get(identity)
        if earlier is not None:
            raise UsageError(f"{earlier} and {shown} are one file; give each report a file of its own")
        self._claimed[identity] = shown
        self._claims.append(Claim(option, path, kind))

    def refuse_inputs(self, inputs: Iterable[Path]) -> None:
        """A :class:`~trailblaze.core.errors.UsageError` when a claimed report file is one of
        ``inputs`` (``merge-reports a.json b.json --json a.json``): written, it would replace
        what the command read."""
        read = {_identity(path): path for path in inputs}
        for claim in self._claims:
            found = read.get(_identity(claim.path))
            if found is not None:
                raise UsageError(
                    f"{claim.option} {claim.path}: that is one of the inputs ({found}), which the report would "
                    "replace; write the report to another file"
                )


def _identity(path: Path) -> object:
    """What tells files apart, links and other spellings of a path included."""
    try:
        found = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return (found.st_dev, found.st_ino)


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError:
        return b""


def _hint(option: str, path: Path) -> str:
    """For a report option given before a trail (``run --html trails/x.trail.yaml``)."""
    if path.name.endswith((".yaml", ".yml")):
        return f" ({option} takes the report's file first: {option} FILE, then the trails)"
    return ""
