"""Case partners are found block by block, skipping blocks without case: the same partners as
asking every code point."""

from __future__ import annotations

from trailblaze.core.javaregex import writers


def _every_code_point() -> dict[str, set[int]]:
    partners: dict[str, set[int]] = {}
    for cp in range(writers._LAST_CASED + 1):
        char = chr(cp)
        for mapped in (char.lower(), char.upper()):
            if len(mapped) == 1:
                partners.setdefault(mapped, set()).add(cp)
    return partners


def test_the_partners_of_every_character_are_those_asking_each_code_point_gives() -> None:
    slow = _every_code_point()
    fast = writers._case_partners()
    for cp in range(writers._LAST_CASED + 0x100):
        char = chr(cp)
        expected = {cp}
        found = {cp}
        for mapped in (char.lower(), char.upper()):
            if len(mapped) == 1:
                expected |= slow.get(mapped, set())
                found |= fast.get(mapped, frozenset())
        assert found == expected, hex(cp)


def test_known_partners() -> None:
    assert writers._case_variants(ord("k")) == {ord("k"), ord("K"), 0x212A}  # the Kelvin sign
    assert writers._case_variants(ord("s")) == {ord("s"), ord("S"), ord("ſ")}
    assert writers._case_variants(ord("中")) == {ord("中")}
