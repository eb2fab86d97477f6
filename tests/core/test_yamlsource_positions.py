"""Properties of where :mod:`trailblaze.core.yamlsource` says things are: for any document, the
location of every value and of every key is the start of that node as PyYAML's own composer
marks it — in block and flow style, through anchors and aliases, in mappings and lists long
enough to be indexed — and a path that goes past what the file holds is located at the nearest
ancestor it does hold.

The table of nodes is built from parser events and walked by path; PyYAML's composer builds its
node tree from the same events on its own, so the two agreeing on every path is the check that
the bookkeeping (the skips from a node to its next sibling, the index of a big collection, the
alias links) is right.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trailblaze.core import yamlsource
from trailblaze.core.yamlsource import load_text

#: keys the core schema reads as text whichever way they are written (no ``<<``: a merge key
#: is not a path of its own in PyYAML's composer)
KEYS = st.text(alphabet="abcxyzAB_-", min_size=1, max_size=6)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
)


def _values(scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=20) | st.dictionaries(KEYS, inner, max_size=20),
        max_leaves=60,
    )


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A YAML text: random data dumped in block, flow or mixed style, some of it shared (which
    ``yaml.dump`` writes as an anchor and aliases)."""
    data = draw(_values(SCALARS))
    shared = draw(st.none() | _values(SCALARS))
    if shared is not None and isinstance(data, dict | list):  # one value in two places: &id001 and *id001
        if isinstance(data, dict):
            data.update({"first": shared, "second": shared})
        else:
            data.extend([shared, shared])
    return yaml.safe_dump(
        data,
        default_flow_style=draw(st.sampled_from([False, True, None])),
        indent=draw(st.integers(2, 5)),
        width=draw(st.sampled_from([20, 80, 10**6])),
        allow_unicode=draw(st.booleans()),
        sort_keys=draw(st.booleans()),
    )


def _paths(node: yaml.Node, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """Each path of the composed tree, with its value node and its key node (None for an item)."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield (*path, key.value), value, key
            yield from _paths(value, (*path, key.value))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield (*path, index), item, None
            yield from _paths(item, (*path, index))


def _at(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


@given(documents())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_value_and_key_is_where_the_composer_marks_it(text: str) -> None:
    doc = load_text(text, "p.yaml")
    root = yaml.compose(text, Loader=yamlsource._Loader)
    assert root is not None
    assert (doc.location(()).line, doc.location(()).column) == _at(root)
    for path, value, key in _paths(root):
        where = doc.location(path)
        assert (where.path, where.line, where.column) == ("p.yaml", *_at(value)), path
        if key is not None:
            where = doc.key_location(path)
            assert (where.line, where.column) == _at(key), path
        locate = doc.locator(path[:-1])
        assert locate(path[-1:]) == doc.location(path)
    for path, value, _ in reversed(list(_paths(root))):  # asked in any order (each walk starts from the last)
        assert (doc.location(path).line, doc.location(path).column) == _at(value), path


#: keys no document has, in any spelling (``aB`` would be found as ``a_b``: walk's snake_case)
ABSENT_KEYS = st.text(alphabet="mnop", min_size=1, max_size=3)


@given(documents(), st.lists(st.one_of(ABSENT_KEYS, st.integers(-2, 30)), min_size=1, max_size=3))
@settings(max_examples=200, deadline=None)
def test_a_path_past_the_file_is_located_at_its_nearest_ancestor(text: str, beyond: list[str | int]) -> None:
    doc = load_text(text)
    root = yaml.compose(text, Loader=yamlsource._Loader)
    assert root is not None
    known = {path: value for path, value, _ in _paths(root)}
    known[()] = root
    for path in list(known)[:20]:
        extended = (*path, *beyond)
        nearest = max((p for p in known if extended[: len(p)] == p), key=len)
        located = doc.location(extended)
        assert (located.line, located.column) == _at(known[nearest]), extended
        assert doc.locator(path)(beyond) == located
        assert doc.locator(extended)(beyond) == doc.location((*extended, *beyond))  # below a path not found too


@given(st.integers(0, 40), st.integers(0, 40))
def test_long_mappings_and_lists_are_found_by_index_as_by_scan(keys: int, items: int) -> None:
    text = "".join(f"k{i}: [{', '.join(str(j) for j in range(items))}]\n" for i in range(keys)) or "{}\n"
    doc = load_text(text)
    for i in range(keys):
        assert doc.key_location((f"k{i}",)).line == i + 1
        assert doc.location((f"k{i}", items)).column == len(f"k{i}: ") + 1  # past the end: the list
        for j in range(0, items, 7):
            assert doc.location((f"k{i}", j)).column == len(f"k{i}: [") + 1 + sum(len(f"{n}, ") for n in range(j))


def test_positions_in_an_alias_are_the_anchors_and_a_merge_is_a_path_of_its_own() -> None:
    doc = load_text("base: &b\n  x: [1, 2]\nuse: *b\nother:\n  <<: *b\n  y: 3\n", "m.yaml")
    assert doc.data["other"] == {"x": [1, 2], "y": 3}
    assert str(doc.location(("use",))) == str(doc.location(("base",))) == "m.yaml:1:7"  # at the anchor
    assert str(doc.location(("other", "<<", "x", 1))) == "m.yaml:2:10"
    assert str(doc.location(("other", "x"))) == "m.yaml:5:3"  # merged in: the mapping it is in
    assert str(doc.key_location(("other", "y"))) == "m.yaml:6:3"


def test_the_data_may_change_and_positions_stay() -> None:
    doc = load_text("a:\n  b: 1\n  c: [x, y]\n", "d.yaml")
    doc.data["a"].pop("b")
    doc.data = None
    assert str(doc.location(("a", "c", 1))) == "d.yaml:3:10"
    assert str(doc.key_location(("a", "b"))) == "d.yaml:2:3"


def test_an_empty_document_has_no_line() -> None:
    doc = load_text("# nothing\n", "e.yaml")
    assert doc.data is None
    assert str(doc.location(("a", 1))) == str(doc.key_location(("a",))) == "e.yaml"
    assert str(doc.locator(("a",))(("b",))) == "e.yaml"
