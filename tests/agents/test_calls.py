"""Tool calls as typed at the terminal."""

from __future__ import annotations

from typing import Any

import pytest

from trailblaze.agents.calls import CallSyntaxError, parse_call

SCHEMAS: dict[str, dict[str, Any]] = {
    "web_type": {
        "properties": {
            "text": {"type": "string"},
            "ref": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "clearFirst": {"type": "boolean"},
        }
    },
    "web_selectOption": {"properties": {"values": {"type": "array"}}},
}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("web_click ref=e12", ("web_click", {"ref": "e12"})),
        (
            'web_type ref=e3 text="Ada Lovelace" clearFirst=false',
            ("web_type", {"ref": "e3", "text": "Ada Lovelace", "clearFirst": False}),
        ),
        ("web_type text=12", ("web_type", {"text": "12"})),  # the schema says text: stays text
        ("web_selectOption values=[Pro,Team]", ("web_selectOption", {"values": ["Pro", "Team"]})),
        (
            "web_click nodeSelector='{web: {dataTestId: go}}'",
            ("web_click", {"nodeSelector": {"web": {"dataTestId": "go"}}}),
        ),
        ("web_currentUrl", ("web_currentUrl", {})),
        ("web_type: {ref: e3, text: hi}", ("web_type", {"ref": "e3", "text": "hi"})),
        ("- web_pressKey: {key: Enter}", ("web_pressKey", {"key": "Enter"})),
        ("dumpMemory:", ("dumpMemory", {})),
    ],
)
def test_both_forms_parse(line: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert parse_call(line, SCHEMAS) == expected


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("web_click e12", "expected key=value"),
        ('web_type text="open', "No closing quotation"),
        ("web_type: [1, 2]", "must be a mapping"),
        ("{a: 1, b: 2}", "one mapping"),
        ("web_type: {text: [}", "invalid YAML"),
    ],
)
def test_malformed_lines_say_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(CallSyntaxError, match=message):
        parse_call(line, SCHEMAS)
