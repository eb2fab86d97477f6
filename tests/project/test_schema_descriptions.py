"""Every field `trailblaze schema` prints carries a description: an editor shows it on hover and
the docs site's reference tables show it, so a test author need not read the code to learn what
`containsChild` or `recordable` does. Counted over both schemas, as a user's project gets them
(the built-in plugins', no installed ones)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.cli import CliRunner, Project

#: the share of properties that must be described
FLOOR = 0.95


def properties(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every property of every object schema in ``node``, with where it is (``$defs.step.verify``)."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from properties(item, f"{where}[{i}]")
        return
    if not isinstance(node, dict):
        return
    found = node.get("properties")
    if isinstance(found, dict):
        for name, schema in found.items():
            if isinstance(schema, dict):
                yield f"{where}.{name}".lstrip("."), schema
    for key, value in node.items():
        yield from properties(value, f"{where}.{key}" if key not in ("properties", "anyOf", "oneOf") else where)


def undescribed(schema: dict[str, Any]) -> list[str]:
    return [where for where, prop in properties(schema) if not str(prop.get("description") or "").strip()]


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    import subprocess
    import sys

    from tests.support.cli import cli_env

    root = tmp_path_factory.mktemp("schema")
    (root / "trailblaze.yaml").write_text("base_url: sample-app\n", encoding="utf-8")
    found = {}
    for kind in ("trail", "config"):
        out = subprocess.run(
            [sys.executable, "-m", "trailblaze", "schema", kind],
            cwd=root,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        found[kind] = json.loads(out)
    return found


def test_the_count_sees_every_kind_of_field(schemas: dict[str, dict[str, Any]]) -> None:
    names = {where.rsplit(".", 1)[-1] for schema in schemas.values() for where, _ in properties(schema)}
    assert {"textRegex", "containsChild", "below", "step", "recording", "verify", "recordable"} <= names
    assert {"web_click", "nodeSelector", "ariaNameRegex"} <= names  # tools, their arguments, selector fields
    assert {"trails_dir", "trailsDir", "base_url", "mcp_servers", "llm"} <= names  # trailblaze.yaml's keys


def test_at_least_95_percent_of_the_schemas_properties_are_described(schemas: dict[str, dict[str, Any]]) -> None:
    total = sum(1 for schema in schemas.values() for _ in properties(schema))
    missing = [f"{kind}: {where}" for kind, schema in schemas.items() for where in undescribed(schema)]
    share = 1 - len(missing) / total
    assert share >= FLOOR, f"{total - len(missing)} of {total} described ({share:.0%}); undescribed:\n" + "\n".join(
        missing
    )


def test_every_selector_field_and_trail_key_is_described(schemas: dict[str, dict[str, Any]]) -> None:
    """The fields the issue named first: what a recording's selectors and a trail's steps hold."""
    defs = schemas["trail"]["$defs"]
    selectors = ("NodeSelector", "WebMatch", "AndroidAccessibilityMatch", "AndroidMaestroMatch", "IosMaestroMatch")
    parts = [*selectors, "ElementSelector", "SizeSelector", "config", "ArgDecl", "step", "current", "legacy"]
    missing = {name: undescribed(defs[name]) for name in parts}
    assert {name: found for name, found in missing.items() if found} == {}


def test_a_plugins_settings_are_described_by_their_help(cli: CliRunner, project: Project) -> None:
    project.write(
        "stamper.py",
        """
        import trailblaze

        @trailblaze.hookimpl
        def trailblaze_addoption(parser):
            parser.addini("stamp_text", "the text every report is stamped with", type=str, default="")
        """,
    )
    result = cli("schema", "config", "-p", "stamper", env={"PYTHONPATH": str(project.root)})
    assert result.returncode == 0, result.output
    stamp = json.loads(result.stdout)["properties"]["stamp_text"]
    assert stamp["description"] == "the text every report is stamped with"
