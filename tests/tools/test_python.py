"""A Python tool costs what listing needs when it is registered: its annotations are read, and
its pydantic model and JSON Schema built, when the tool is first validated, called or described
(issue 24's lazy registry). Shown by what a tool's annotations do when they are read."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import CliRunner, Project

COUNTED_TOOLS = '''
from __future__ import annotations

import os
from typing import Annotated

from pydantic import Field

import trailblaze


def read(name: str):
    """Runs when the annotations of tool ``name`` are read: it says so in a file."""
    with open(os.environ["COUNTED_TOOLS_LOG"], "a", encoding="utf-8") as log:
        log.write(name + "\\n")
    return Field(description=f"what {name} types")


@trailblaze.tool(name="counted_called", platforms=["web"])
def counted_called(text: Annotated[str, read("counted_called")]) -> None:
    """A tool the trail calls."""


@trailblaze.tool(name="counted_idle", platforms=["web"])
def counted_idle(text: Annotated[str, read("counted_idle")], times: int = 1) -> None:
    """A tool no trail calls."""


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(counted_called)
    register(counted_idle)
'''

CALLS_ONE = """
trail:
  - step: Call the counted tool
    recording:
      web:
        - counted_called: {text: hello}
"""


def _read(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").split() if log.exists() else []


def test_run_builds_only_the_tools_the_trail_calls(
    cli: CliRunner, project: Project, tmp_path: Path, browser: str
) -> None:
    project.write("counted_tools.py", COUNTED_TOOLS)
    project.trail("one", CALLS_ONE)
    log = tmp_path / "read.log"
    env = {"COUNTED_TOOLS_LOG": str(log)}

    validated = cli("validate", "-p", "counted_tools", env=env)
    assert validated.returncode == 0, validated.output
    assert _read(log) == ["counted_called"]  # validating the call reads that tool, and only it

    log.unlink()
    ran = cli("run", "-p", "counted_tools", "--trace", "off", env=env)
    assert ran.returncode == 0, ran.output
    assert _read(log) == ["counted_called"]  # once per process: validated, then called

    log.unlink()
    listed = cli("tools", "-p", "counted_tools", env=env)
    assert listed.returncode == 0, listed.output
    assert "counted_idle" in listed.stdout and _read(log) == []  # names and descriptions only


def test_tools_json_and_schema_still_describe_every_argument(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    project.write("counted_tools.py", COUNTED_TOOLS)
    env = {"COUNTED_TOOLS_LOG": str(tmp_path / "read.log")}

    listed = cli("tools", "-p", "counted_tools", "--json", env=env)
    assert listed.returncode == 0, listed.output
    entries = {entry["name"]: entry for entry in json.loads(listed.stdout)}
    idle = entries["counted_idle"]["inputSchema"]
    assert idle["properties"]["text"]["description"] == "what counted_idle types"
    assert idle["required"] == ["text"] and "times" in idle["properties"]

    schema = cli("schema", "-p", "counted_tools", env=env)
    assert schema.returncode == 0, schema.output
    assert "what counted_idle types" in schema.stdout and "what counted_called types" in schema.stdout
