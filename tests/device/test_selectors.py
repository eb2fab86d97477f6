"""Selectors as trail files write them: how deep and how big one may be (``trailblaze.device.selectors``)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from trailblaze.device.selectors import RELATIONS, ElementSelector, NodeSelector


def nested(relation: str, depth: int, leaf: dict[str, Any] | None = None) -> dict[str, Any]:
    """A selector ``depth`` levels deep, each level holding the next through ``relation``."""
    selector: dict[str, Any] = leaf or {"web": {"ariaRole": "button", "ariaNameRegex": "Go"}}
    for _ in range(depth - 1):
        inner: Any = [selector] if relation == "containsDescendants" else selector
        selector = {"web": {"cssSelector": "div"}, relation: inner}
    return selector


@pytest.mark.parametrize("relation", RELATIONS)
def test_a_selector_nests_as_deep_as_a_person_writes_and_no_deeper(relation: str) -> None:
    assert NodeSelector.model_validate(nested(relation, 8)).web is not None
    with pytest.raises(ValidationError, match=r"nests more than 8 levels deep .*TRAILBLAZE_MAX_SELECTOR_DEPTH"):
        NodeSelector.model_validate(nested(relation, 9))


def test_a_hostile_selector_is_refused_before_it_is_read() -> None:
    # 3 KB nested 50 deep (the one that took a server to 22 GB), and one nested 5,000 deep
    hostile = nested("containsChild", 50, {"web": {"ariaNameRegex": '"' * 2900}})
    for selector in (hostile, nested("containsChild", 5000)):
        with pytest.raises(ValidationError, match="nests more than 8 levels deep"):
            NodeSelector.model_validate(selector)


def test_the_legacy_selector_is_bounded_too() -> None:
    selector: dict[str, Any] = {"textRegex": "Go"}
    for _ in range(20):
        selector = {"containsChild": selector}
    with pytest.raises(ValidationError, match="nests more than 8 levels deep"):
        ElementSelector.model_validate(selector)


def test_a_selector_over_the_size_limit_says_how_big_it_is() -> None:
    big = {"web": {"cssSelector": "#" + "a" * 100_000}}
    with pytest.raises(
        ValidationError, match=r"has 100029 characters, more than 100000 .*TRAILBLAZE_MAX_SELECTOR_CHARS"
    ):
        NodeSelector.model_validate(big)


def test_the_bounds_come_from_their_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_MAX_SELECTOR_DEPTH", "12")
    assert NodeSelector.model_validate(nested("childOf", 12)).childOf is not None
    monkeypatch.setenv("TRAILBLAZE_MAX_SELECTOR_DEPTH", "2")
    with pytest.raises(ValidationError, match="more than 2 levels"):
        NodeSelector.model_validate(nested("below", 3))
