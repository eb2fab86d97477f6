"""The YAML a reader copies from the docs, the README and CONTRIBUTING.md works as it is: every
block parses, every trail validates against `trailblaze schema`, every piece of trailblaze.yaml
against `trailblaze schema config`, and every list of tool calls (a recording's) against the
trail schema's calls."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import cli_env

from tests.docs.snippets import Block, blocks, ids

YAML = blocks("yaml")


def schema(*kind: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "trailblaze", "schema", *kind],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd="/",
        timeout=120,
        check=True,
    )
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


@pytest.fixture(scope="module")
def trail_schema() -> dict[str, Any]:
    return schema()


@pytest.fixture(scope="module")
def config_schema() -> dict[str, Any]:
    return schema("config")


def is_trail(document: Any) -> bool:
    """A trail in upstream's current format (a mapping with ``trail:``) or its legacy one (a list
    of ``- config:``, ``- tools:``, ``- prompts:``… items)."""
    if isinstance(document, dict):
        return "trail" in document or "trailhead" in document
    legacy = {"config", "tools", "prompts", "maestro"}
    return isinstance(document, list) and any(isinstance(i, dict) and legacy & set(i) for i in document)


def is_calls(document: Any) -> bool:
    """A recording's list of calls: ``- toolName: {arguments}``."""
    return isinstance(document, list) and bool(document) and all(isinstance(i, dict) and len(i) == 1 for i in document)


def problems(document: Any, against: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(against)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(document)]


def test_the_docs_have_trails_and_settings_to_check() -> None:
    documents = [yaml.safe_load(b.text) for b in YAML]
    assert sum(map(is_trail, documents)) >= 5
    assert sum(isinstance(d, dict) and "mcp_servers" in d for d in documents) >= 2


@pytest.mark.parametrize("block", YAML, ids=ids(YAML))
def test_every_yaml_block_parses_and_validates(
    block: Block, trail_schema: dict[str, Any], config_schema: dict[str, Any]
) -> None:
    """Blocks that are none of the three (a CI workflow, an MCP client's settings, a tool file)
    only have to parse."""
    document = yaml.safe_load(block.text)
    assert document is not None, block.where
    if is_trail(document):
        assert problems(document, trail_schema) == [], block.where
    elif is_calls(document):
        assert problems(document, {"$defs": trail_schema["$defs"], "$ref": "#/$defs/calls"}) == [], block.where
    elif isinstance(document, dict) and set(document) <= set(config_schema["properties"]):
        assert problems(document, config_schema) == [], block.where


def test_a_trail_with_a_misspelt_tool_does_not_validate(trail_schema: dict[str, Any]) -> None:
    """The check above can fail: the schema knows the tools and their arguments."""
    trail = {"trail": [{"step": "Open it", "recording": {"web": [{"web_navigat": {"url": "/"}}]}}]}
    assert is_trail(trail) and problems(trail, trail_schema)
    call = [{"web_navigate": {"ulr": "/"}}]
    assert is_calls(call) and problems(call, {"$defs": trail_schema["$defs"], "$ref": "#/$defs/calls"})
