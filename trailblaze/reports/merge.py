"""``trailblaze merge-reports``: the results JSON of CI shards (:mod:`trailblaze.reports.inputs`)
joined into one, as if one run had run every trail, and handed to the reporters as that run's
result (``trailblaze_run_finish``: ``--json``, ``--junit``, ``--html`` and any plugin's report).

Evidence paths in a shard's report are relative to that shard's artifacts folder (its
``artifacts_dir``). The merged report names each file by a path from the working directory: the
shard's folder is looked for beside its JSON by name (where CI's download puts a
``--artifacts-dir reports/shard-1`` uploaded with ``reports/``), then as the folder the JSON is
in (a report written inside its artifacts folder), then where the shard's report says it is.
A folder found none of these ways keeps the paths as the shard wrote them, with a warning.
Error messages that name evidence files are rewritten the same way. The HTML report copies
the files checked here (:attr:`~trailblaze.api.results.RunResult.evidence_files`) under ``data/``
next to itself.

A shard's report may come from a job nobody reviewed, so it names nothing else on this
machine: its folder must be its own (a recorded ``artifacts_dir`` of ``/``, ``..`` or the
working directory is refused), an evidence entry is kept only when it resolves, links followed,
to a regular file inside that folder, and every other entry is left out of every merged report
with one warning naming it.

A trail is one (id, driver, device). When several shards ran the same one (a job retried
elsewhere, overlapping selections), its entries are reconciled rather than counted twice: a
trail that both failed and passed is ``flaky`` (it passed; the runs that failed are its
``attempts``), otherwise the last entry stands, with the other runs that failed as its
``attempts``; one that passed everywhere is a plain passed trail. The
merged exit code is the one that single run would have had: the worst of its trails', 130
when any shard was interrupted.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.api.results import RESULTS_VERSION, RunResult, exit_code_of
from trailblaze.core.errors import ExitCode
from trailblaze.reports.inputs import Shard

#: the statuses the merged summary counts, in the order the results JSON lists them
SUMMARY_STATUSES = ("passed", "failed", "error", "skipped", "healed", "incomplete", "flaky")
_PASSING = frozenset({"passed", "healed", "flaky"})


@dataclass(slots=True)
class Merged:
    document: dict[str, Any]
    shards: list[Shard]
    warnings: list[str] = field(default_factory=list)
    #: the evidence files found here, by the path the merged document names them with: the
    #: real file, checked to be a regular file inside its shard's evidence folder
    evidence: dict[str, Path] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return int(self.document["exit_code"])

    def result(self) -> RunResult:
        """The merged document as the result reporters take in ``trailblaze_run_finish``, with
        the evidence files checked here as the only ones a reporter may read."""
        result = RunResult.from_dict(self.document)
        result.evidence_files = dict(self.evidence)
        return result


def merge(shards: Sequence[Shard]) -> Merged:
    """One results document from ``shards`` (see the module's docstring)."""
    groups: dict[tuple[str, str | None, str | None], list[dict[str, Any]]] = {}
    warnings: list[str] = []
    evidence: dict[str, Path] = {}
    for shard in shards:
        found = _evidence_root(shard)
        if found.problem is not None:
            warnings.append(found.problem)
        recorded = shard.document.get("artifacts_dir")
        checker = _EvidenceCheck(shard, found, evidence, warnings)
        for trail in shard.document["trails"]:
            trail = _relocated(trail, checker, recorded if isinstance(recorded, str) else None)
            groups.setdefault((trail["id"], trail.get("driver"), trail.get("device")), []).append(trail)
    trails = sorted((_reconcile(entries) for entries in groups.values()), key=lambda t: str(t.get("path", "")))
    interrupted = any(bool(s.document.get("interrupted")) for s in shards)
    worst = max((exit_code_of(t) for t in trails), default=ExitCode.OK)
    durations = [float(s.document.get("summary", {}).get("duration_ms") or 0) for s in shards]
    summary: dict[str, Any] = {status: sum(1 for t in trails if t["status"] == status) for status in SUMMARY_STATUSES}
    # selection (-k, tags) happens before sharding, so every shard left out the same trails
    summary["deselected"] = max((int(s.document.get("summary", {}).get("deselected") or 0) for s in shards), default=0)
    summary["duration_ms"] = round(max(durations, default=0.0), 3)  # the shards ran side by side
    document = {
        "version": RESULTS_VERSION,
        "summary": summary,
        "exit_code": int(ExitCode.INTERRUPTED if interrupted else worst),
        "interrupted": interrupted,
        "artifacts_dir": None,
        "merged_from": [_shard_entry(s) for s in shards],
        "trails": trails,
    }
    return Merged(document, list(shards), warnings + _missing_shards(shards), evidence)


@dataclass(frozen=True, slots=True)
class _EvidenceRoot:
    """Where a shard's evidence is: as the merged report names it (a path from the working
    directory; None: its evidence is left out), the real folder (None when it is not here: the
    names are kept, never read), and a warning when it is not here or not the shard's own."""

    shown: str | None
    real: Path | None = None
    problem: str | None = None


def _evidence_root(shard: Shard) -> _EvidenceRoot:
    """Where ``shard``'s evidence paths start. Only a folder of the shard's own is taken: the
    one beside its JSON named as its ``artifacts_dir`` ends, the JSON's own folder of that name,
    or the ``artifacts_dir`` as recorded when that is inside the working directory — never one
    a report names to reach other files (``/``, ``/proc/self``, ``..``)."""
    recorded = shard.document.get("artifacts_dir")
    if not isinstance(recorded, str) or not recorded or not _has_evidence(shard.document):
        return _EvidenceRoot(None)
    given = Path(recorded)
    here = shard.path.parent
    candidates: list[Path] = []
    if given.name not in ("", ".", ".."):
        # beside the report by name; the report's own folder when it was written inside its
        # artifacts (`--json reports/shard-1/results.json --artifacts-dir reports/shard-1`)
        candidates.append(here / given.name)
        if here.name == given.name:
            candidates.append(here)
    candidates.append(given)
    for candidate in candidates:
        if not candidate.is_dir():
            continue
        inside = Path.cwd() if candidate is given else here
        if _within(candidate.resolve(), inside.resolve(), strictly=candidate is given):
            return _EvidenceRoot(_shown(candidate), candidate.resolve())
        return _EvidenceRoot(
            None,
            problem=f"{shard.path}: its evidence folder {recorded} is not a folder of the shard's own (it is the "
            "working directory or outside it, and not beside the report); its evidence is left out",
        )
    return _EvidenceRoot(
        recorded if _plain_relative(recorded) else None,
        problem=f"{shard.path}: its evidence folder {recorded} is not here (looked beside the report too); "
        "evidence paths are as the shard wrote them",
    )


def _within(path: Path, folder: Path, *, strictly: bool = False) -> bool:
    return path.is_relative_to(folder) and not (strictly and path == folder)


def _plain_relative(path: str) -> bool:
    """A relative path that stays below where it starts (no ``..``, no NUL)."""
    pure = Path(path)
    return bool(path) and "\0" not in path and not pure.is_absolute() and ".." not in pure.parts


class _EvidenceCheck:
    """Each evidence entry of one shard made a path from the working directory — when it names
    a regular file inside the shard's evidence folder (links resolved), which the HTML report
    may then copy — or left out, with one warning per entry."""

    def __init__(self, shard: Shard, root: _EvidenceRoot, evidence: dict[str, Path], warnings: list[str]) -> None:
        self.shard = shard
        self.root = root
        self.evidence = evidence
        self.warnings = warnings
        self.warned: set[str] = set()

    def moved(self, artifact: Mapping[str, Any]) -> dict[str, Any] | None:
        path = artifact["path"]
        problem = self._problem(path)
        if problem is not None:
            if path not in self.warned:
                self.warned.add(path)
                self.warnings.append(f"{self.shard.path}: evidence {path!r} left out: {problem}")
            return None
        return {**artifact, "path": Path(self.root.shown or "", path).as_posix()}

    def _problem(self, path: str) -> str | None:
        """Why ``path`` is left out; None when it is kept (and, when here, remembered as checked)."""
        if self.root.shown is None:
            return "no evidence folder of the shard's own"
        if not _plain_relative(path):
            return "not a path inside the shard's evidence folder"
        if self.root.real is None:
            return None  # the folder is not here (one warning says so): named, never read
        real = (self.root.real / path).resolve()
        if not _within(real, self.root.real, strictly=True):
            return f"it leads out of the shard's evidence folder {self.root.shown}"
        try:
            regular = stat.S_ISREG(real.stat().st_mode)
        except OSError:
            return f"no such file in {self.root.shown}"
        if not regular:
            return "not a regular file"
        self.evidence[Path(self.root.shown or "", path).as_posix()] = real
        return None


def _has_evidence(document: Mapping[str, Any]) -> bool:
    return any(entry.get("artifacts") for trail in document["trails"] for entry in _evidence_holders(trail))


def _evidence_holders(trail: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The parts of a trail's results that list ``artifacts``: itself, its steps, its attempts."""
    parts = [trail, *(trail.get("steps") or []), *(trail.get("attempts") or [])]
    return [p for p in parts if isinstance(p, Mapping)]


def _relocated(trail: Mapping[str, Any], check: _EvidenceCheck, recorded: str | None = None) -> dict[str, Any]:
    """``trail`` with every evidence path made a path from the working directory (or left out,
    :class:`_EvidenceCheck`), also where an error message names the files from ``recorded``
    (the shard's folder as it wrote it); a copy."""
    root = check.root.shown

    def moved(entry: Mapping[str, Any]) -> dict[str, Any]:
        copy = dict(entry)
        error = copy.get("error")
        if root is not None and recorded and isinstance(error, str) and "\n" in error:
            # the lines after the message name files (`evidence: a, b`, `trace: c`) in the folder
            message, _, files = error.partition("\n")
            prefix = re.escape(recorded.rstrip("/\\") + os.sep)
            copy["error"] = message + "\n" + re.sub(rf"(?<=[\s,:]){prefix}", root.rstrip("/") + "/", files)
        found = entry.get("artifacts")
        if isinstance(found, list):
            kept = (check.moved(a) for a in found)
            copy["artifacts"] = [a for a in kept if a is not None]
        return copy

    copy = moved(trail)
    for key in ("steps", "attempts"):
        if isinstance(copy.get(key), list):
            copy[key] = [moved(part) if isinstance(part, Mapping) else part for part in copy[key]]
    return copy


def _shown(path: Path) -> str:
    """``path`` as the merged report names it: from the working directory when it is inside it."""
    try:
        return path.resolve().relative_to(Path.cwd()).as_posix()
    except (ValueError, OSError):
        return path.resolve().as_posix()


def _reconcile(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """One trail from several shards' entries: every run of it (each entry's earlier attempts,
    then the entry itself) in input order; passed in one and failed in another is ``flaky``. The
    merged ``attempts`` are the runs that did not pass, as a run's retries are: a trail that
    passed everywhere is one passed trail."""
    if len(entries) == 1:
        return entries[0]
    passing = [e for e in entries if e["status"] in _PASSING]
    runs = [(index, own, run) for index, entry in enumerate(entries) for own, run in _runs_of(entry)]
    failed = [run for _, _, run in runs if run["status"] not in _PASSING]
    if passing and failed:
        chosen_at = max(i for i, e in enumerate(entries) if e["status"] in _PASSING)
        chosen = {**entries[chosen_at], "status": "flaky", "error": None, "exit_code": int(ExitCode.OK)}
    else:
        chosen_at = len(entries) - 1
        chosen = dict(entries[chosen_at])
    chosen["attempts"] = [
        run for index, own, run in runs if run["status"] not in _PASSING and not (own and index == chosen_at)
    ]
    own_duration = float(entries[chosen_at].get("duration_ms") or 0)
    chosen["duration_ms"] = round(own_duration + sum(float(a.get("duration_ms") or 0) for a in chosen["attempts"]), 3)
    return chosen


def _runs_of(entry: Mapping[str, Any]) -> list[tuple[bool, dict[str, Any]]]:
    """The entry's earlier attempts, then its own final run (True), as attempts are written."""
    earlier = entry.get("attempts")
    runs = [(False, dict(a)) for a in earlier if isinstance(a, dict)] if isinstance(earlier, list) else []
    steps = [p for p in entry.get("steps") or [] if isinstance(p, Mapping)]
    evidence = [dict(a) for part in (entry, *steps) for a in part.get("artifacts") or [] if isinstance(a, Mapping)]
    failing = next((s for s in steps if s.get("status") in ("failed", "error")), None)
    final = {
        "status": entry["status"],
        "error": entry.get("error"),
        "duration_ms": entry.get("duration_ms", 0),
        "artifacts": evidence,
        "failing_step": {k: failing.get(k) for k in ("index", "kind", "text")} if failing is not None else None,
    }
    return [*runs, (True, final)]


def _shard_entry(shard: Shard) -> dict[str, Any]:
    found = shard.shard
    return {"path": str(shard.path), "shard": {"index": found[0], "total": found[1]} if found else None}


def _missing_shards(shards: Iterable[Shard]) -> list[str]:
    """Shards of an ``i/n`` set that are not among the inputs (a CI job that wrote no report)."""
    by_total: dict[int, set[int]] = {}
    for shard in shards:
        if shard.shard is not None:
            by_total.setdefault(shard.shard[1], set()).add(shard.shard[0])
    warnings = []
    for total, seen in sorted(by_total.items()):
        missing = [str(i) for i in range(1, total + 1) if i not in seen]
        if missing:
            warnings.append(
                f"shard {', '.join(f'{i}/{total}' for i in missing)} missing: its trails are not in the report"
            )
    return warnings
