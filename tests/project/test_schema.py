"""``trailblaze schema``: every example trail validates against the trail schema, broken ones
do not; trailblaze.yaml's schema has plugins' sections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.support.cli import ROOT, CliRunner, Project

EXAMPLES = sorted((ROOT / "trails").rglob("*.yaml"))


@pytest.fixture(scope="module")
def trail_schema(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    import subprocess
    import sys

    from tests.support.cli import cli_env

    out = subprocess.run(
        [sys.executable, "-m", "trailblaze", "schema", "trail"],
        cwd=ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    schema: dict[str, Any] = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def errors(schema: dict[str, Any], document: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_trail_validates(trail_schema: dict[str, Any], path: Path) -> None:
    assert trail_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert errors(trail_schema, yaml.safe_load(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize(
    "text",
    [
        "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: 3}}]\n",  # wrong argument type
        "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {href: /}}]\n",  # unknown argument
        "trail:\n  - step: Open\n    recording:\n      web: [{no_such_tool: {}}]\n",  # unknown tool
        "trail:\n  - stepp: Open\n",  # misspelt key
        "config: {tags: smoke}\ntrail:\n  - step: Open\n",  # tags is a list
        "trail: []\n",  # no steps
        "config: {title: x}\n",  # no trail
    ],
)
def test_broken_trails_fail(trail_schema: dict[str, Any], text: str) -> None:
    assert errors(trail_schema, yaml.safe_load(text)) != []


def test_every_tool_with_its_arguments_is_in_the_schema(trail_schema: dict[str, Any], cli: CliRunner) -> None:
    tools = json.loads(cli("tools", "--json", cwd=ROOT).stdout)
    call = trail_schema["$defs"]["call"]["anyOf"][1]["properties"]
    assert set(call) == {t["name"] for t in tools}
    type_text = call["web_type"]
    assert "text" in type_text["properties"] and "text" in type_text["required"]
    assert "reason" in type_text["properties"]  # kept in the file beside the arguments


PLUGIN = """
import trailblaze
from pydantic import BaseModel, ConfigDict


class Stamp(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    max_items: int = 3


@trailblaze.hookimpl
def trailblaze_addoption(parser):
    parser.add_section("stamp", Stamp)
"""


def test_config_schema_has_plugins_sections(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    project.write("stamper.py", PLUGIN)
    result = cli("schema", "config", "-p", "stamper", env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 0, result.output
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["title"] == "trailblaze.yaml"
    assert "stamp" in schema["properties"] and "llm" in schema["properties"]
    assert errors(schema, yaml.safe_load((ROOT / "trailblaze.yaml").read_text())) == []
    assert errors(schema, {"base_url": "sample-app", "stamp": {"text": "hi"}}) == []
    assert errors(schema, {"stamp": {"text": "hi", "extra": 1}}) != []
    # the schema says what the loader takes: this section's keys as written, not in camelCase
    assert errors(schema, {"stamp": {"text": "hi", "max_items": 5}}) == []
    assert errors(schema, {"stamp": {"text": "hi", "maxItems": 5}}) != []
    project.write("trailblaze.yaml", "stamp: {text: hi, maxItems: 5}\n")
    refused = cli("validate", "-p", "stamper", env={"PYTHONPATH": str(tmp_path)})
    assert refused.returncode == 3 and "stamp.maxItems: unknown key" in refused.stderr, refused.output
    assert errors(schema, {"trailsDir": "trails"}) == []  # the core's keys: either spelling
    assert errors(schema, {"no_such_key": 1}) != []
    assert cli("schema", "nonsense").returncode == 3
