"""``run --shard I/N``: CI shards, each a deterministic share of the trails — on the null driver,
through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import CliRunner

NULL = ("-p", "tests.support.null_driver")


def null_project(root: Path, count: int, *, fail: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    (root / "trailblaze.yaml").write_text("driver: null-test\n", encoding="utf-8")
    for i in range(count):
        text = "Nowhere" if i in fail else "Home"
        path = root / "trails" / f"t{i:02}.trail.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"config: {{id: t{i:02}}}\ntrail:\n  - step: tap\n    recording:\n"
            f"      test:\n        - null_tap: {{text: {text}}}\n",
            encoding="utf-8",
        )


def ids(document: dict) -> list[str]:
    return [t["id"] for t in document["trails"]]


def test_the_shards_run_every_trail_once_and_say_which_shard_they_are(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 7)
    seen: list[str] = []
    for index in (1, 2, 3):
        result = cli("run", *NULL, "--shard", f"{index}/3", "--json", f"s{index}.json")
        assert result.returncode == 0, result.output
        document = result.json(f"s{index}.json")
        assert document["shard"] == {"index": index, "total": 3}
        assert 2 <= len(document["trails"]) <= 3
        seen += ids(document)
    assert sorted(seen) == [f"t{i:02}" for i in range(7)]
    again = cli("run", *NULL, "--shard", "2/3", "--json", "again.json")
    assert ids(again.json("again.json")) == ids(json.loads((tmp_path / "s2.json").read_text()))
    listed = cli("run", *NULL, "--shard", "2/3", "--list")  # --list shows the shard's share
    assert listed.returncode == 0, listed.output
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:-1]] == ids(again.json("again.json"))
    assert listed.stdout.splitlines()[-1].startswith(f"{len(ids(again.json('again.json')))} trails (shard 2/3)")
    plain = cli("run", *NULL, "--json", "all.json").json("all.json")
    assert "shard" not in plain
    assert {t["exit_code"] for t in plain["trails"]} == {0}


def test_a_shard_exits_with_its_own_trails_code(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 4, fail={0})  # t00 goes to shard 1 of 2 (ids in order, dealt in turn)
    first = cli("run", *NULL, "--shard", "1/2", "--json", "s1.json")
    second = cli("run", *NULL, "--shard", "2/2", "--json", "s2.json")
    assert (first.returncode, second.returncode) == (1, 0), first.output + second.output
    failing = next(t for t in first.json("s1.json")["trails"] if t["id"] == "t00")
    assert (failing["status"], failing["exit_code"]) == ("failed", 1)


def test_durations_balance_the_shards(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 4)
    previous = {
        "version": 1,
        "trails": [{"id": "t00", "duration_ms": 9000}] + [{"id": f"t0{i}", "duration_ms": 100} for i in (1, 2, 3)],
    }
    (tmp_path / "previous.json").write_text(json.dumps(previous), encoding="utf-8")
    first = cli("run", *NULL, "--shard", "1/2", "--shard-durations", "previous.json", "--json", "s1.json")
    assert first.returncode == 0, first.output
    assert ids(first.json("s1.json")) == ["t00"]  # the slow one alone; the three quick ones together


def test_more_shards_than_trails_leaves_an_empty_shard_that_passes(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 2)
    result = cli("run", *NULL, "--shard", "3/3", "--json", "s3.json")
    assert result.returncode == 0, result.output
    assert result.json("s3.json")["trails"] == []


def test_shard_split_still_spreads_one_shard_over_devices(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 6)
    result = cli("run", *NULL, "--shard", "1/2", "--shard-split", "3", "--json", "s.json")
    assert result.returncode == 0, result.output
    trails = result.json("s.json")["trails"]
    assert len(trails) == 3 and len({t["device"] for t in trails}) > 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--shard", "0/2"), "--shard 0/2: INDEX must be from 1 to COUNT"),
        (("--shard", "two"), "--shard 'two': expected INDEX/COUNT"),
        (("--shard-durations", "x.json"), "--shard-durations goes with --shard I/N"),
        (("--shard", "1/2", "--shard-durations", "missing.json"), "missing.json: --shard-durations: file not found"),
    ],
)
def test_bad_shard_options_are_misuse(cli: CliRunner, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    null_project(tmp_path, 2)
    result = cli("run", *NULL, *args, "--json", "out.json")
    assert result.returncode == 3, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "out.json").exists()
    listed = cli("run", *NULL, *args, "--list")  # what --list says of them is what the run says
    assert listed.returncode == 3 and message in listed.stderr, listed.output
