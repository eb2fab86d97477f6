"""A results document read back for merge-reports: whatever run wrote it passes, and whatever a
number JSON cannot hold or a wrong type is, wherever it is, is found and named — properties
checked with Hypothesis."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.core.test_reportfiles import RUNS
from trailblaze.api.results import RunResult
from trailblaze.core.errors import UsageError
from trailblaze.reports.resultsdoc import MAX_PROBLEMS, check

WHERE = Path("shard.json")


def places(value: Any, where: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path in ``value`` (its mappings' keys, its lists' indexes)."""
    found = [where]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += places(item, (*where, index))
    return found


def put(document: Any, where: tuple[Any, ...], value: Any) -> None:
    parent = document
    for part in where[:-1]:
        parent = parent[part]
    parent[where[-1]] = value


@given(RUNS)
def test_every_document_a_run_writes_is_merged_as_it_is(run: RunResult) -> None:
    document = json.loads(json.dumps(run.to_dict()))
    check(document, WHERE)


@given(RUNS, st.data(), st.sampled_from([math.nan, math.inf, -math.inf]))
def test_a_number_json_cannot_hold_is_found_wherever_it_is(run: RunResult, data: st.DataObject, bad: float) -> None:
    document = json.loads(json.dumps(run.to_dict()))
    where = data.draw(st.sampled_from([p for p in places(document) if p]))
    put(document, where, bad)
    with pytest.raises(UsageError) as info:
        check(document, WHERE)
    assert str(info.value).startswith("shard.json: not a results JSON document (")
    assert ".".join(map(str, where)) + ": expected a finite number" in str(info.value)


@given(RUNS, st.data())
def test_a_wrong_type_in_a_field_the_merge_reads_is_named(run: RunResult, data: st.DataObject) -> None:
    document = json.loads(json.dumps(run.to_dict()))
    typed = [p for p in places(document) if p and p[-1] in ("duration_ms", "status", "recording_saved", "tags")]
    where = data.draw(st.sampled_from(typed))
    put(document, where, {"not": "this"})
    with pytest.raises(UsageError, match=rf"shard\.json: not a results JSON document \({'.'.join(map(str, where))}"):
        check(document, WHERE)


def test_many_problems_are_listed_up_to_a_bound() -> None:
    document = RunResult().to_dict()
    document["trails"] = [{"id": str(i), "status": "passed", "duration_ms": -1} for i in range(50)]
    with pytest.raises(UsageError) as info:
        check(copy.deepcopy(document), WHERE)
    lines = str(info.value).splitlines()
    assert len(lines) == MAX_PROBLEMS + 1 and lines[-1] == f"shard.json: … and {50 - MAX_PROBLEMS} more"
