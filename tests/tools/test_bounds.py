"""Every number a built-in tool takes has an upper bound in its schema: checked when a trail
loads (exit 3), shown to agents and editors as ``maximum``."""

from __future__ import annotations

import json
from typing import Any

from tests.support.cli import CliRunner
from trailblaze.core.limits import MAX_PAUSE_SECONDS, MAX_WAIT_SECONDS

#: numbers that bound nothing: a value compared with another, and a wait clamped as upstream's is
UNBOUNDED = {("assertMath", "expected"), ("web_wait", "seconds")}


def _number(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any] | None:
    if "$ref" in schema:
        return _number(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if schema.get("type") in ("integer", "number"):
        return schema
    return next((n for s in schema.get("anyOf", []) if (n := _number(s, defs)) is not None), None)


def test_every_number_of_every_built_in_tool_has_an_upper_bound(cli: CliRunner) -> None:
    listed = cli("tools", "--json")
    assert listed.returncode == 0, listed.output
    unbounded, seen = [], 0
    for tool in json.loads(listed.stdout):
        schema = tool["inputSchema"]
        for name, prop in schema.get("properties", {}).items():
            number = _number(prop, schema.get("$defs", {}))
            if number is None or (tool["name"], name) in UNBOUNDED:
                continue
            seen += 1
            if "maximum" not in number and "exclusiveMaximum" not in number:
                unbounded.append(f"{tool['name']}.{name}")
    assert seen > 40 and unbounded == []
    by_name = {t["name"]: t["inputSchema"]["properties"] for t in json.loads(listed.stdout)}
    assert by_name["wait"]["timeToWaitInSeconds"]["maximum"] == MAX_PAUSE_SECONDS
    assert by_name["web_click"]["timeoutMs"]["anyOf"][0]["maximum"] == MAX_WAIT_SECONDS * 1000
