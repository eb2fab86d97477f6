"""One registry for tools, drivers and agents: names, aliases, who registered what, and the
same messages for all three."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from trailblaze.core.errors import UsageError
from trailblaze.core.registry import Registry


class Named:
    def __init__(self, name: str, *aliases: str) -> None:
        self.names = (name, *aliases)


class Things(Registry[Named]):
    kind = "thing"
    case_sensitive = False

    def names_of(self, item: Named) -> Iterable[str]:
        return item.names

    def check(self, item: Any) -> Named:
        if not isinstance(item, Named):
            raise TypeError(f"{item!r} is not a thing")
        return item


def test_items_are_found_by_name_and_alias_and_remember_their_source() -> None:
    registry = Things()
    spoon = registry.add(Named("spoon", "Ladle"), "kitchen")
    registry.add(spoon, "kitchen")  # the same item again is no conflict
    assert registry.get("LADLE") is spoon and "Spoon" in registry
    assert registry.source("ladle") == "kitchen"
    assert registry.names() == ["spoon"] and list(registry) == [spoon] and len(registry) == 1


def test_a_name_claimed_twice_names_both_sources() -> None:
    registry = Things()
    registry.add(Named("spoon"), "kitchen")
    with pytest.raises(UsageError, match=r"^thing 'spoon' is registered twice: by kitchen and by garden; thing names"):
        registry.add(Named("fork", "spoon"), "garden")
    assert registry.get("fork") is None  # nothing of a refused item stays


def test_an_unknown_name_lists_the_known_ones_and_guesses() -> None:
    registry = Things([Named("spoon"), Named("fork")])
    with pytest.raises(UsageError, match=r"unknown thing 'spon' \(known things: fork, spoon\); did you mean 'spoon'\?"):
        registry.resolve("spon")


def test_what_is_not_an_item_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="is not a thing"):
        Things().add("spoon")
