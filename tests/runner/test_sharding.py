"""``--shard i/n``: every selected trail runs on exactly one shard, the same on every machine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailblaze.core.errors import UsageError
from trailblaze.runner.sharding import assign, durations_from, parse_spec

ids = st.lists(st.text(min_size=1, max_size=12), max_size=60, unique=True)


@given(ids, st.integers(min_value=1, max_value=9))
def test_every_trail_on_exactly_one_shard_whatever_the_order(keys: list[str], count: int) -> None:
    forward = assign(keys, count)
    assert forward == assign(list(reversed(keys)), count)  # machines list files in any order
    assert set(forward) == set(keys) and set(forward.values()) <= set(range(1, count + 1))
    sizes = [list(forward.values()).count(s) for s in range(1, count + 1)]
    assert max(sizes) - min(sizes) <= 1


@given(ids, st.integers(min_value=1, max_value=6), st.dictionaries(st.text(max_size=12), st.floats(0, 1e6)))
def test_durations_balance_the_load(keys: list[str], count: int, durations: dict[str, float]) -> None:
    shards = assign(keys, count, durations)
    assert set(shards) == set(keys)
    assert shards == assign(list(reversed(keys)), count, durations)


def test_the_longest_trails_are_spread_first() -> None:
    durations = {"a": 100.0, "b": 90.0, "c": 10.0, "d": 10.0}
    assert assign(list(durations), 2, durations) == {"a": 1, "b": 2, "c": 2, "d": 1}


@pytest.mark.parametrize("spec", ["0/4", "5/4", "1/0", "a/b", "2", "1/2/3", ""])
def test_bad_specs_say_what_is_expected(spec: str) -> None:
    with pytest.raises(UsageError, match="--shard"):
        parse_spec(spec)


def test_durations_come_from_a_results_document(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text(
        json.dumps({"trails": [{"id": "a", "duration_ms": 5, "device": "x"}, {"id": "a", "duration_ms": 7}]})
    )
    assert durations_from(report) == {"a": 12.0}
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(UsageError, match=r"bad.json:1:2: --shard-durations: not JSON"):
        durations_from(tmp_path / "bad.json")
    with pytest.raises(UsageError, match=r"missing.json: --shard-durations: file not found"):
        durations_from(tmp_path / "missing.json")
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    with pytest.raises(UsageError, match=r"zero.json: --shard-durations: not a regular file \(a character device\)"):
        durations_from(tmp_path / "zero.json")
    (tmp_path / "deep.json").write_text("[" * 100_000)
    with pytest.raises(UsageError, match=r"deep.json:1:101: --shard-durations: not JSON: JSON nested more than 100"):
        durations_from(tmp_path / "deep.json")
    odd = tmp_path / "odd.json"
    odd.write_text(
        '{"trails": [{"id": "a", "duration_ms": NaN}, {"id": "b", "duration_ms": 1e999},'
        ' {"id": "c", "duration_ms": -4}]}'
    )
    assert durations_from(odd) == {}  # not a duration: such a trail counts as the median of the others
