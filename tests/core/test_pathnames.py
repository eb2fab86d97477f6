"""Names from trails and devices made into file names: whatever the text, one name inside its
folder, short enough for any file system, and two long names stay apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailblaze.core.pathnames import MAX_NAME_BYTES, path_component, relative_path

#: any text a trail's id or a tool argument can hold, lone surrogates (a non-UTF-8 file name) too
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=400)


@given(ANY_TEXT)
def test_any_text_is_one_safe_name(text: str) -> None:
    name = path_component(text)
    assert name and name not in (".", "..")
    assert not name.startswith(".")
    assert "/" not in name and "\\" not in name and "\0" not in name
    assert all(c.isprintable() and not c.isspace() for c in name)
    assert len(name.encode("utf-8")) <= MAX_NAME_BYTES


@given(ANY_TEXT)
def test_a_name_is_a_single_path_component_inside_its_folder(text: str) -> None:
    folder = Path("/artifacts/run")
    joined = folder / path_component(text)
    assert joined.parent == folder and len(joined.parts) == len(folder.parts) + 1


@given(st.text(st.sampled_from("ab-_.0é"), min_size=1, max_size=60).filter(lambda t: not t.startswith(".")))
def test_a_plain_short_name_is_kept_as_it_is(text: str) -> None:
    assert path_component(text) == text


@given(st.text(min_size=MAX_NAME_BYTES + 1, max_size=300), st.text(min_size=1, max_size=5))
def test_two_long_names_that_differ_only_at_the_end_stay_two_names(stem: str, tail: str) -> None:
    first, second = stem + "x", stem + "x" + tail
    assert path_component(first) != path_component(second)


@pytest.mark.parametrize(
    ("text", "name"),
    [("..", "__"), (".", "_"), ("", "_"), (".hidden", "_hidden"), ("a/../b", "a_.._b"), ("a\0b", "a_b")],
)
def test_names_that_would_climb_hide_or_cut_are_changed(text: str, name: str) -> None:
    assert path_component(text) == name


def test_a_long_name_is_cut_with_a_hash_and_keeps_its_start() -> None:
    name = path_component("checkout-" + "é" * 300)
    assert name.startswith("checkout-éé") and len(name.encode("utf-8")) <= MAX_NAME_BYTES
    assert name[-11] == "-" and all(c in "0123456789abcdef" for c in name[-10:])


@given(ANY_TEXT)
def test_a_relative_path_stays_below_its_folder(text: str) -> None:
    folder = Path("/artifacts/run")
    joined = folder.joinpath(*relative_path(text))
    assert joined.is_relative_to(folder) and joined != folder
    assert ".." not in joined.parts


def test_a_relative_path_keeps_its_folders() -> None:
    assert relative_path("screens/login") == ("screens", "login")
    assert relative_path("/etc/../../passwd") == ("etc", "passwd")
    assert relative_path("..", fallback="shot") == ("shot",)
