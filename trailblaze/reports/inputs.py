"""The inputs of ``trailblaze merge-reports``: the results documents named on the command line.

Each input is a results JSON document (``--json``), or a folder holding some — a shard's
artifacts, or the folder CI downloaded every shard's artifacts into — searched recursively
for ``*.json`` files that are results documents (other JSON there, snapshots say, is left
alone). A folder with no results JSON in it is taken for a shard's artifacts folder: the
results JSON beside it whose ``artifacts_dir`` has the folder's name is the input. Each input
is checked first (:mod:`trailblaze.reports.resultsdoc`): types, finite numbers, messages cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trailblaze.api.results import RESULTS_VERSION
from trailblaze.core import jsonsource
from trailblaze.core.errors import Location, UsageError


@dataclass(slots=True)
class Shard:
    """One input results document."""

    path: Path
    document: dict[str, Any]

    @property
    def shard(self) -> tuple[int, int] | None:
        found = self.document.get("shard")
        if isinstance(found, dict) and isinstance(found.get("index"), int) and isinstance(found.get("total"), int):
            return found["index"], found["total"]
        return None


def load_inputs(paths: Sequence[Path]) -> list[Shard]:
    """The results documents named by ``paths`` (files, or folders searched for them)."""
    shards: list[Shard] = []
    for path in paths:
        if path.is_dir():
            found = [Shard(p, doc) for p in sorted(path.rglob("*.json")) if (doc := _maybe_results(p)) is not None]
            if not found:  # a shard's artifacts folder, its JSON beside it (`--json reports/shard-1.json`)
                found = [
                    Shard(p, doc)
                    for p in sorted(path.parent.glob("*.json"))
                    if (doc := _maybe_results(p)) is not None and _artifacts_folder_name(doc) == path.name
                ]
            if not found:
                raise UsageError(
                    "no results JSON in this folder or beside it for it (looked for *.json from `run --json`)",
                    Location(str(path)),
                )
            shards.extend(found)
        else:
            shards.append(Shard(path, _read_results(path)))
    from trailblaze.reports.resultsdoc import check

    for shard in shards:
        check(shard.document, shard.path)
    return shards


def _artifacts_folder_name(document: Mapping[str, Any]) -> str | None:
    recorded = document.get("artifacts_dir")
    return Path(recorded).name if isinstance(recorded, str) and recorded else None


def _read_results(path: Path) -> dict[str, Any]:
    """A shard's results JSON, read as every file trailblaze is given is (a regular file, within
    the size and nesting bounds), or a :class:`UsageError` naming it."""
    document = jsonsource.load_path(path)
    problem = _results_problem(document)
    if problem is not None:
        raise UsageError(f"not a results JSON document ({problem})", Location(str(path)))
    results: dict[str, Any] = document
    return results


def _maybe_results(path: Path) -> dict[str, Any] | None:
    """A results JSON among the other ``*.json`` of a folder: None for any that is not one
    (also a FIFO, a link to a device or a file over the bounds: they are not read)."""
    try:
        document = jsonsource.load_path(path)
    except UsageError:
        return None
    return document if _results_problem(document) is None else None


def _results_problem(document: Any) -> str | None:
    if not isinstance(document, dict) or not isinstance(document.get("trails"), list):
        return "no trails list"
    if document.get("version") != RESULTS_VERSION:
        return f"version {document.get('version')!r}; this trailblaze reads version {RESULTS_VERSION}"
    for number, trail in enumerate(document["trails"], 1):
        if (
            not isinstance(trail, dict)
            or not isinstance(trail.get("id"), str)
            or not isinstance(trail.get("status"), str)
        ):
            return f"trail {number} has no id or status"
    return None
