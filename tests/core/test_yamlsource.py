from __future__ import annotations

import gc
import math
import os
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from trailblaze.core import yamlsource
from trailblaze.core.errors import UsageError
from trailblaze.core.yamlsource import load_path, load_text


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
    doc = load_text("trailsDir: x\nmcp_servers: []\nouter:\n  innerKey:   1\n", "c.yaml")
    assert doc.location(("trails_dir",)).line == 1
    assert doc.location(("mcpServers",)).line == 2
    assert str(doc.key_location(("outer", "inner_key"))) == "c.yaml:4:3"  # the key's place, not its value's
    assert str(doc.location(("outer", "inner_key"))) == "c.yaml:4:15"


def test_duplicate_keys_are_an_error_with_their_line() -> None:
    with pytest.raises(UsageError, match=r"duplicate key 'a'") as info:
        load_text("a: 1\nb: 2\na: 3\n", "d.yaml")
    assert str(info.value).startswith("d.yaml:3:1:")


def test_malformed_yaml_reports_line_and_column() -> None:
    with pytest.raises(UsageError) as info:
        load_text("trail:\n  - step: x\n   bad: [\n", "m.yaml")
    assert str(info.value).startswith("m.yaml:3:4: invalid YAML")


@pytest.mark.usefixtures("parser")
def test_merge_keys_are_supported() -> None:
    # the pure-Python parser (deep flow nesting) marks a plain scalar's style None, libyaml ""
    doc = load_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n")
    assert doc.data["other"] == {"x": 1, "y": 3}


def test_aliases_inside_an_anchor_point_at_the_anchor() -> None:
    doc = load_text("base: &b\n  x: [1, 2]\nuse: *b\nmore: [*b, *b]\n", "a.yaml")
    assert doc.data["use"] == {"x": [1, 2]}
    assert doc.data["more"] == [{"x": [1, 2]}, {"x": [1, 2]}]
    assert doc.data["use"] is not doc.data["base"]  # copies: nothing downstream shares state
    assert str(doc.location(("use", "x", 1))) == "a.yaml:2:10"
    assert str(doc.key_location(("more", 1, "x"))) == "a.yaml:2:3"


def _billion_laughs() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]")
    return "\n".join(lines) + "\n"


BILLION_LAUGHS = _billion_laughs()


def test_an_alias_bomb_stops_at_the_alias_that_goes_over_the_bound() -> None:
    start = time.monotonic()
    with pytest.raises(UsageError, match=r"YAML aliases \(\*name\) expand to more than 1000000") as info:
        load_text(BILLION_LAUGHS + "trail: []\n", "bomb.yaml")
    assert time.monotonic() - start < 60  # a bound on a hang: unbounded, it grows to gigabytes for minutes
    assert str(info.value).startswith("bomb.yaml:6:")
    assert "TRAILBLAZE_MAX_YAML_EXPANSION" in str(info.value)


def test_alias_uses_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_MAX_YAML_ALIASES", "3")
    load_text("a: &a 1\nb: [*a, *a, *a]\n")
    with pytest.raises(UsageError, match="more than 3 YAML aliases") as info:
        load_text("a: &a 1\nb: [*a, *a, *a, *a]\n", "n.yaml")
    assert str(info.value).startswith("n.yaml:2:17:")


@pytest.fixture(params=["installed", "pure-python"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each nesting test runs with the parser PyYAML was installed with (libyaml's, with a limit
    and a read-ahead of its own) and with the pure-Python one."""
    if request.param == "pure-python":
        monkeypatch.setattr(yamlsource, "_Loader", yaml.SafeLoader)
    return str(request.param)


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("a: " + "[" * 200_000, 103),  # the C composer segfaulted on this; libyaml 0.2.6 answers at 1000
        ("[" * 2_000, 101),
        ("a: " + "[ " * 2_000, 202),
        ("- " + "{a: " * 2_000, 399),
    ],
)
@pytest.mark.usefixtures("parser")
def test_nesting_is_bounded_before_the_parser_recurses(text: str, column: int) -> None:
    with pytest.raises(UsageError) as info:
        load_text(text, "deep.yaml")
    assert str(info.value) == (
        f"deep.yaml:1:{column}: YAML nested more than 100 levels deep (TRAILBLAZE_MAX_YAML_DEPTH raises the limit)"
    )


@pytest.mark.usefixtures("parser")
def test_a_raised_nesting_bound_holds_beyond_the_parsers_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # past libyaml's own 1,000 levels and Python's recursion limit, and no deeper: PyYAML's
    # scanner takes time quadratic in the depth of flow collections (2,500 levels took 20 s)
    monkeypatch.setenv("TRAILBLAZE_MAX_YAML_DEPTH", "1200")
    value, depth = load_text("a: " + "[" * 1_100 + "]" * 1_100).data["a"], 1
    while value:
        value, depth = value[0], depth + 1
    assert (value, depth) == ([], 1_100)
    with pytest.raises(UsageError, match="nested more than 1200 levels"):
        load_text("[" * 1_300)


@given(depth=st.integers(1, 130), spaced=st.booleans(), kind=st.sampled_from(["[", "{k: "]))
@settings(max_examples=60, deadline=None)
def test_any_flow_nesting_loads_or_names_our_bound(depth: int, spaced: bool, kind: str) -> None:
    opener = kind + (" " if spaced else "")
    closer = {"[": "]", "{k: ": "}"}[kind]
    text = "x: " + opener * depth + "1" + closer * depth + "\n"
    if depth <= 99:  # the mapping at the top is one level
        value = load_text(text).data["x"]
        for _ in range(depth):
            value = value[0] if isinstance(value, list) else value["k"]
        assert value == 1
    else:
        with pytest.raises(UsageError, match=r"^f\.yaml:1:\d+: YAML nested more than 100 levels deep"):
            load_text(text, "f.yaml")


def test_brackets_in_quotes_and_comments_do_not_count_as_nesting() -> None:
    quoted = 'a: "' + "[" * 600 + "\"\nb: '" + "{" * 600 + "'\n# " + "[" * 600 + "\nc: see [1]\n"
    assert not yamlsource._may_nest_deeply(quoted)
    assert load_text(quoted).data["c"] == "see [1]"


def test_a_bad_limit_setting_is_misuse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_MAX_YAML_DEPTH", "nan")
    with pytest.raises(UsageError, match="TRAILBLAZE_MAX_YAML_DEPTH='nan': expected a number > 0"):
        load_text("a: 1\n")


def test_the_cycle_collector_is_on_again_after_a_file_is_read() -> None:
    assert gc.isenabled()
    load_text("a: [1, {b: 2}]\n")
    assert gc.isenabled()
    with pytest.raises(UsageError):
        load_text("a: 1\na: 2\n")
    assert gc.isenabled()
    gc.disable()
    try:
        load_text("a: 1\n")
        assert not gc.isenabled()  # off as it was: not turned on behind the caller's back
    finally:
        gc.enable()


def test_undefined_aliases_and_several_documents_are_errors() -> None:
    with pytest.raises(UsageError, match="undefined alias 'nope'"):
        load_text("a: *nope\n")
    with pytest.raises(UsageError, match="expected a single document") as info:
        load_text("a: 1\n---\nb: 2\n", "two.yaml")
    assert str(info.value).startswith("two.yaml:2:")


# -- reading files -------------------------------------------------------------------------------


def test_not_utf8_says_where_the_first_bad_byte_is(tmp_path: Path) -> None:
    path = tmp_path / "latin1.trail.yaml"
    path.write_bytes(b"trail:\n  - step: caf" + b"\xe9 au lait\n")
    with pytest.raises(UsageError) as info:
        load_path(path)
    assert str(info.value) == (
        f"{path}:2:14: not UTF-8 text: byte 0xe9 (byte 20 of the file) is not valid UTF-8; save the file as UTF-8"
    )


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.trail.yaml"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match=r"not a regular file \(a FIFO\)"):
        load_path(fifo)  # opening it for reading used to wait for a writer for ever
    zero = tmp_path / "zero.trail.yaml"
    zero.symlink_to("/dev/zero")
    with pytest.raises(UsageError, match=r"not a regular file \(a character device\)"):
        load_path(zero)  # reading it used to end in a MemoryError


def test_file_size_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.trail.yaml"
    path.write_text("trail:\n" + "  - step: padding\n" * 100, encoding="utf-8")
    monkeypatch.setenv("TRAILBLAZE_MAX_FILE_BYTES", "1000")
    with pytest.raises(UsageError, match=r"larger than 1000 bytes \(TRAILBLAZE_MAX_FILE_BYTES raises the limit\)"):
        load_path(path)
    monkeypatch.setenv("TRAILBLAZE_MAX_FILE_BYTES", "2000")
    assert len(load_path(path).data["trail"]) == 100


def test_what_a_big_files_text_took_is_given_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    given_back: list[bool] = []
    monkeypatch.setattr(yamlsource, "_give_back_freed_memory", lambda: given_back.append(True))
    small, big = tmp_path / "small.yaml", tmp_path / "big.yaml"
    small.write_text("a: 1\n", encoding="utf-8")
    big.write_text("a:\n" + "  - x\n" * (yamlsource._BIG_TEXT // 6 + 1), encoding="utf-8")
    load_path(small)
    assert given_back == []
    assert len(load_path(big).data["a"]) == yamlsource._BIG_TEXT // 6 + 1
    assert given_back == [True]
    monkeypatch.undo()
    yamlsource._give_back_freed_memory()  # the real one, wherever this runs: no error


def test_a_symlink_loop_is_named(tmp_path: Path) -> None:
    loop = tmp_path / "loop.trail.yaml"
    loop.symlink_to(loop.name)
    with pytest.raises(UsageError, match="symlink loop"):
        load_path(loop)
