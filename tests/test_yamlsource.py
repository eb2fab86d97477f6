from __future__ import annotations

import math

import pytest

from trailblaze.errors import UsageError
from trailblaze.yamlsource import load_text


def test_plain_scalars_follow_yaml_1_2_core_schema() -> None:
    doc = load_text(
        "a: ON\nb: yes\nc: true\nd: 7:30\ne: 2024-01-01\nf: 0x1f\ng: 1.5\nh: ~\ni: .inf\nj: 'true'\nk: 010\n"
    )
    assert doc.data == {
        "a": "ON",
        "b": "yes",
        "c": True,
        "d": "7:30",
        "e": "2024-01-01",
        "f": 31,
        "g": 1.5,
        "h": None,
        "i": math.inf,
        "j": "true",
        "k": 10,
    }


def test_locations_are_one_based_and_fall_back_to_the_nearest_parent() -> None:
    doc = load_text("top:\n  - name: x\n    args: {a: 1}\n", "f.yaml")
    assert str(doc.location(("top", 0, "args", "a"))) == "f.yaml:3:15"
    assert str(doc.location(("top", 0, "missing"))) == "f.yaml:2:5"


def test_location_finds_the_spelling_used_in_the_file() -> None:
    doc = load_text("trailsDir: x\nmcp_servers: []\n", "c.yaml")
    assert doc.location(("trails_dir",)).line == 1
    assert doc.location(("mcpServers",)).line == 2


def test_duplicate_keys_are_an_error_with_their_line() -> None:
    with pytest.raises(UsageError, match=r"duplicate key 'a'") as info:
        load_text("a: 1\nb: 2\na: 3\n", "d.yaml")
    assert str(info.value).startswith("d.yaml:3:1:")


def test_malformed_yaml_reports_line_and_column() -> None:
    with pytest.raises(UsageError) as info:
        load_text("trail:\n  - step: x\n   bad: [\n", "m.yaml")
    assert str(info.value).startswith("m.yaml:3:4: invalid YAML")


def test_merge_keys_are_supported() -> None:
    doc = load_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n")
    assert doc.data["other"] == {"x": 1, "y": 3}
