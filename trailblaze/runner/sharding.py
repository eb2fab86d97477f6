"""Which trails a CI shard runs (``--shard i/n``): the same answer on every machine.

A CI matrix runs ``trailblaze run --shard 1/4`` … ``--shard 4/4`` on four machines that know
nothing of each other; together they must run every selected trail exactly once. So the split
depends only on what every machine has: the trail ids, and, when given, the durations a
previous run recorded (``--shard-durations FILE``, a results JSON document; a trail that ran
on several devices counts with their sum).

* Without durations: the items sorted by id are dealt round-robin, so shards differ by one
  item at most.
* With durations: longest first, each to the shard with the least total so far (ties: the
  lower shard number), which keeps the slowest shard close to the average. An item the file
  does not know counts as the median of those it does.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

from trailblaze.core import jsonsource
from trailblaze.core.errors import Location, UsageError
from trailblaze.core.limits import MAX_SHARDS

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_spec(text: str) -> tuple[int, int]:
    """``"2/4"`` → ``(2, 4)`` (1-based, as Playwright writes it)."""
    found = _SPEC.match(text)
    if found is None:
        raise UsageError(f"--shard {text!r}: expected INDEX/COUNT, e.g. 1/4")
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or not 1 <= index <= count:
        raise UsageError(f"--shard {text}: INDEX must be from 1 to COUNT (COUNT at least 1)")
    if count > MAX_SHARDS:
        raise UsageError(f"--shard {text}: COUNT is at most {MAX_SHARDS}")
    return index, count


def assign(keys: Sequence[str], count: int, durations: Mapping[str, float] | None = None) -> dict[str, int]:
    """The shard (1-based) of each key."""
    ordered = sorted(set(keys))
    if not durations:
        return {key: i % count + 1 for i, key in enumerate(ordered)}
    known = [durations[k] for k in ordered if k in durations]
    fallback = statistics.median(known) if known else 1.0
    weight = {k: float(durations.get(k, fallback)) for k in ordered}
    loads = [0.0] * count
    out: dict[str, int] = {}
    for key in sorted(ordered, key=lambda k: (-weight[k], k)):
        shard = min(range(count), key=lambda s: (loads[s], s))
        loads[shard] += weight[key]
        out[key] = shard + 1
    return out


def durations_from(path: Path) -> dict[str, float]:
    """Trail durations (ms) by trail id from a results JSON document."""
    try:
        data = jsonsource.load_path(path)
    except UsageError as exc:
        raise UsageError(f"--shard-durations: {exc.message}", exc.location) from None
    trails = data.get("trails") if isinstance(data, dict) else None
    if not isinstance(trails, list):
        raise UsageError("--shard-durations: not a results JSON document (no trails)", Location(str(path)))
    found: dict[str, float] = {}
    for trail in trails:
        if isinstance(trail, dict) and isinstance(trail.get("id"), str):
            ms = trail.get("duration_ms")
            if isinstance(ms, int | float) and math.isfinite(ms) and ms >= 0:  # not NaN, 1e999 or negative
                found[trail["id"]] = found.get(trail["id"], 0.0) + float(ms)
    return found
