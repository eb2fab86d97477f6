from __future__ import annotations

from trailblaze.core.interpolate import has_references, references, resolver, substitute


def test_whole_string_references_keep_their_type_and_spliced_ones_become_text() -> None:
    lookup = resolver({"n": 3, "ok": True}, {"total": "12.50"}, {"USER": "ada"})
    assert substitute("{{args.n}}", lookup) == 3
    assert substitute("{{ args.ok }}", lookup) is True
    assert substitute("n={{args.n}} ok={{args.ok}} ${USER} {{memory.total}}", lookup) == "n=3 ok=true ada 12.50"
    assert substitute({"a": ["{{args.n}}", {"b": "${USER}"}]}, lookup) == {"a": [3, {"b": "ada"}]}


def test_unresolved_namespaces_are_left_as_written() -> None:
    report = resolver({"n": 1}, {}, None)  # what reports use: env stays hidden
    assert substitute("${SECRET} {{args.n}} {{memory.later}}", report) == "${SECRET} 1 {{memory.later}}"


def test_references_are_found_in_nested_values() -> None:
    found = references({"x": ["{{args.a}}", "${B}"], "y": "{{memory.c}} {{other.d}}"})
    assert [(r.namespace, r.name) for r in found] == [("args", "a"), ("env", "B"), ("memory", "c"), ("other", "d")]
    assert has_references({"x": "{{memory.c}}"}, "memory")
    assert not has_references({"x": "{{memory.c}}"}, "args")
    assert not has_references(["plain", 3, None])
