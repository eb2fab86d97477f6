"""JSON that trailblaze did not write: read as trail files are, nesting bounded before parsing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailblaze.core import jsonsource
from trailblaze.core.errors import UsageError
from trailblaze.core.jsonsource import JsonError

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@given(JSON_VALUES)
def test_any_json_within_the_bound_reads_back_equal(value: object) -> None:
    text = json.dumps(value)
    assert jsonsource.parse(text) == value
    assert jsonsource.parse(text.encode("utf-16")) == value  # bytes as json.loads takes them


@given(st.text(alphabet='[]{}"\\:,1 \n', max_size=400))
def test_any_text_is_a_value_or_our_error(text: str) -> None:
    try:
        jsonsource.parse(text)
    except JsonError as exc:
        where = (exc.line, exc.column)
    else:
        return
    assert where >= (1, 1)


@given(st.integers(min_value=101, max_value=100_000), st.sampled_from(["[", '{"a":']))
def test_nesting_beyond_the_bound_is_refused_before_parsing(depth: int, opener: str) -> None:
    with pytest.raises(JsonError, match=r"JSON nested more than 100 levels deep \(TRAILBLAZE_MAX_YAML_DEPTH"):
        jsonsource.parse(opener * depth)  # json.loads recursed: RecursionError at ~1000 levels


def test_the_message_points_at_the_bracket_that_goes_over() -> None:
    text = '{"a": "[[[[[[",\n "b": ' + "[" * 101 + "]" * 101 + "}"
    with pytest.raises(JsonError) as refused:
        jsonsource.parse(text)
    assert (refused.value.line, refused.value.column) == (
        2,
        6 + 100,
    )  # the object is level 1; brackets in strings do not count


def test_exactly_the_bound_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    assert jsonsource.parse("[" * 100 + "]" * 100) == json.loads("[" * 100 + "]" * 100)
    monkeypatch.setenv("TRAILBLAZE_MAX_YAML_DEPTH", "5")
    assert jsonsource.parse("[[[[[1]]]]]") == [[[[[1]]]]]
    with pytest.raises(JsonError, match="more than 5 levels"):
        jsonsource.parse("[[[[[[1]]]]]]")


def test_an_unclosed_string_costs_linear_time() -> None:
    text = '["' + '\\"' * 200_000 + "[" * 200  # each escaped quote used to restart the string scan
    with pytest.raises(JsonError):
        jsonsource.parse(text)


def test_files_are_read_as_trail_files_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "lastfailed.json"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match=r"lastfailed.json: not a regular file \(a FIFO\); JSON is only read"):
        jsonsource.load_path(fifo)  # opening it used to wait for a writer for ever
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    with pytest.raises(UsageError, match=r"zero.json: not a regular file \(a character device\)"):
        jsonsource.load_path(zero)  # reading it grew the process to 24 GB
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(UsageError, match=r"folder.json: is a directory, expected a JSON file"):
        jsonsource.load_path(tmp_path / "folder.json")
    big = tmp_path / "big.json"
    big.write_text(json.dumps(["x" * 100] * 20), encoding="utf-8")
    monkeypatch.setenv("TRAILBLAZE_MAX_FILE_BYTES", "1000")
    with pytest.raises(UsageError, match=r"big.json: the file is larger than 1000 bytes"):
        jsonsource.load_path(big)
    monkeypatch.delenv("TRAILBLAZE_MAX_FILE_BYTES")
    deep = tmp_path / "deep.json"
    deep.write_text("\n" + "[" * 100_000, encoding="utf-8")
    with pytest.raises(UsageError, match=r"deep.json:2:101: not JSON: JSON nested more than 100 levels deep"):
        jsonsource.load_path(deep)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"caf\xe9": 1}')
    with pytest.raises(UsageError, match=r"latin.json:1:6: not UTF-8 text: byte 0xe9"):
        jsonsource.load_path(latin)
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "a": }', encoding="utf-8")
    with pytest.raises(UsageError, match=r"broken.json:2:8: not JSON: "):
        jsonsource.load_path(broken)
