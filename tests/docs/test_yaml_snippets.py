"""The YAML a reader copies from the docs, the README and CONTRIBUTING.md works as it is: every
block parses, every trail validates against `trailblaze schema`, every piece of trailblaze.yaml
against `trailblaze schema config`, and every list of tool calls (a recording's) against the
trail schema's calls."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.docs.recipes import files_of, recipe_project
from tests.docs.snippets import Block, blocks, ids
from tests.support.cli import cli_env

YAML = blocks("yaml")


def schema(*kind: str, project: Path | None = None) -> dict[str, Any]:
    """``trailblaze schema KIND`` outside any project, or in ``project`` (with its own plugin
    module importable, as its recipe runs it)."""
    result = subprocess.run(
        [sys.executable, "-m", "trailblaze", "schema", *kind],
        capture_output=True,
        text=True,
        env=cli_env(PYTHONPATH=str(project)) if project else cli_env(),
        cwd=project or "/",
        timeout=120,
        check=True,
    )
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


def defines_tools(page: Path) -> bool:
    """A recipe that writes tools of its own (Python, TypeScript): its trails call them."""
    return page.parent.name == "recipes" and any(Path(name).suffix in (".py", ".ts") for name in files_of(page))


@pytest.fixture(scope="module")
def trail_schema() -> dict[str, Any]:
    return schema()


@pytest.fixture(scope="module")
def config_schema() -> dict[str, Any]:
    return schema("config")


@pytest.fixture(scope="module")
def project_schemas(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], dict[str, Any]]:
    """The trail schema of a recipe's project (``trailblaze init`` and its files), which knows
    the tools the recipe writes."""

    @functools.cache
    def of(page: Path) -> dict[str, Any]:
        return schema(project=recipe_project(page, tmp_path_factory.mktemp(page.stem)))

    return of


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
    block: Block,
    trail_schema: dict[str, Any],
    config_schema: dict[str, Any],
    project_schemas: Callable[[Path], dict[str, Any]],
) -> None:
    """Blocks that are none of the three (a CI workflow, an MCP client's settings, a tool file)
    only have to parse. A recipe's trail that calls the recipe's own tools validates against
    its project's schema."""
    document = yaml.safe_load(block.text)
    assert document is not None, block.where
    if is_trail(document) and defines_tools(block.path):
        assert problems(document, project_schemas(block.path)) == [], block.where
    elif is_trail(document):
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
