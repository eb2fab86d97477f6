"""The id of a request ``trailblaze mcp`` cannot parse, read by a scan of its top level."""

from __future__ import annotations

import json
from typing import Any

import hypothesis
from hypothesis import strategies as st

from trailblaze.mcpserver.jsonrpc import readable_id

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
_IDS = st.integers(min_value=-(10**30), max_value=10**30) | st.text(max_size=8)


@hypothesis.settings(max_examples=300, deadline=None)
# the other members never include "id": the request's own is the one inserted (a second one would
# replace it, and a parser reads the last)
@hypothesis.given(
    st.dictionaries(st.text(max_size=5).filter(lambda key: key != "id"), _JSON, max_size=4),
    _IDS,
    st.integers(0, 4),
    st.booleans(),
)
def test_the_id_of_an_object_is_read_as_a_parser_reads_it(
    members: dict[str, Any], request_id: int | str, at: int, cut: bool
) -> None:
    items = list(members.items())
    items.insert(min(at, len(items)), ("id", request_id))
    text = json.dumps(dict(items))
    assert readable_id(text) == json.loads(text)["id"]
    if cut:  # broken, or nested too deep, after the id: the id is still read
        before = {key: value for key, value in items[:at] if key != "id"}
        head = json.dumps(before)[:-1] + (", " if before else "") + f'"id": {json.dumps(request_id)}, "x": ' + "[" * 200
        assert readable_id(head) == request_id


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.text(max_size=60) | _JSON.map(json.dumps))
def test_anything_else_has_no_id_or_one_a_client_could_have_sent(text: str) -> None:
    found = readable_id(text)
    assert found is None or (isinstance(found, int | str) and not isinstance(found, bool))
    if found is not None:
        assert '"id"' in text


def test_ids_that_are_no_request_ids_are_not_read() -> None:
    for text in (
        '{"id": true}',
        '{"id": 1.5}',
        '{"id": null}',
        '[{"id": 1}]',
        '{"a": {"id": 1}}',
        '{"a": "id", "b": 1}',
    ):
        assert readable_id(text) is None, text
