"""``trailblaze tools NAME`` and the listing's header and legend, through the CLI; every
built-in tool's arguments described; every tool's example call a valid recording."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.cli import CliRunner, Project
from trailblaze.runner.project import Project as TrailblazeProject
from trailblaze.runner.project import load_project
from trailblaze.tools.model import ToolSpec
from trailblaze.tools.toolpage import arguments, example_call, type_name


@pytest.fixture(scope="module")
def builtin_project(tmp_path_factory: pytest.TempPathFactory) -> TrailblazeProject:
    config = tmp_path_factory.mktemp("builtin") / "trailblaze.yaml"
    config.write_text("base_url: sample-app\n", encoding="utf-8")
    return load_project(config, autoload=False, command="tools")


def builtin_specs(project: TrailblazeProject) -> list[ToolSpec]:
    return sorted(project.tools, key=lambda s: s.name)


def test_every_argument_of_every_built_in_tool_has_a_description(builtin_project: TrailblazeProject) -> None:
    specs = builtin_specs(builtin_project)
    assert len(specs) > 50
    missing = [f"{s.name}.{a.name}" for s in specs for a in arguments(s) if not a.description]
    assert missing == []


def test_every_example_call_validates(cli: CliRunner, project: Project, builtin_project: TrailblazeProject) -> None:
    """The example each tool page shows is a recording `trailblaze validate` accepts."""
    web, mobile = [], []
    for spec in builtin_specs(builtin_project):
        platforms = spec.metadata.platforms
        if platforms is None or "web" in platforms:
            web.append(example_call(spec))
        if platforms is None or "android" in platforms:
            mobile.append(example_call(spec))
    trail = {
        "config": {"id": "examples"},
        "trail": [
            {"step": "Every web example", "recording": {"web": web}},
            {"step": "Every Android example", "recording": {"android": mobile}},
        ],
    }
    project.write("trails/examples.trail.yaml", yaml.safe_dump(trail, sort_keys=False))
    project.write(
        "trails/shared/sign-in.trail.yaml", "config: {id: sign-in}\ntrail:\n  - step: Sign in\n"
    )  # runTrail's path
    result = cli("validate")
    assert result.returncode == 0, result.output


def test_one_tool_is_shown_with_its_arguments_and_an_example(cli: CliRunner, project: Project) -> None:
    result = cli("tools", "web_verifyValue")
    assert result.returncode == 0, result.output
    out = result.stdout
    assert out.startswith("web_verifyValue\n")
    assert "source: web_playwright    runs on: web    flags: llm rec verif" in out
    assert "  expected (string; required)\n      The expected value: a whole-value regex, or the exact text" in out
    assert '  type ("TEXT" | "VALUE" | "ATTRIBUTE"; default: "TEXT")' in out
    assert "  timeoutMs (integer 0–3600000; default: null)" in out
    example = out.split("example (in a step's recording):\n", 1)[1].split("\n\n", 1)[0]
    assert yaml.safe_load(example) == [
        {
            "web_verifyValue": {
                "expected": "<expected>",
                "nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Save"}},
            }
        }
    ]
    assert "verif = " not in out and "verif: a check" in out


def test_one_tool_as_json_is_its_registry_entry(cli: CliRunner, project: Project) -> None:
    result = cli("tools", "web_click", "--json")
    assert result.returncode == 0, result.output
    entry = json.loads(result.stdout)
    assert entry["name"] == "web_click" and entry["source"] == "web_playwright"


def test_an_unknown_tool_is_misuse_with_the_nearest_names(cli: CliRunner, project: Project) -> None:
    result = cli("tools", "web_clik")
    assert result.returncode == 3
    assert result.stderr == "error: unknown tool 'web_clik'; did you mean 'web_click'?\n"
    assert result.stdout == ""


def test_a_tool_of_another_driver_is_shown_with_the_drivers_that_have_it(cli: CliRunner, project: Project) -> None:
    """`trailblaze tools NAME` finds a tool of any driver, whatever `--driver` (or the
    project's driver) says, and names the drivers whose sessions have it."""
    project.write("trailblaze.yaml", "driver: playwright-native\nbase_url: sample-app\n")
    plain = cli("tools", "launchApp")
    assert plain.returncode == 0, plain.output
    line = next(line for line in plain.stdout.splitlines() if line.startswith("drivers: "))
    assert "android-uiautomator2" in line and "ios-wda" in line and "playwright-native" not in line
    assert line.endswith("(`trailblaze tools --driver android-uiautomator2` lists it)")
    asked = cli("tools", "launchApp", "--driver", "web")
    assert asked.returncode == 0, asked.output
    assert asked.stdout == plain.stdout
    assert asked.stderr.startswith("note: launchApp is not a tool of playwright-native sessions; its drivers: ")
    assert "`trailblaze tools --driver android-uiautomator2` lists it" in asked.stderr
    web = cli("tools", "web_click", "--driver", "android", "--json")
    assert web.returncode == 0, web.output
    assert json.loads(web.stdout)["name"] == "web_click"
    assert "web_click is not a tool of android-uiautomator2 sessions; its drivers: playwright-native (" in web.stderr
    core = cli("tools", "tap", "--driver", "android")
    assert core.returncode == 0 and core.stderr == "", core.output
    assert "drivers: android-uiautomator2, " in core.stdout and ", playwright-native (" in core.stdout
    typo = cli("tools", "launchAp", "--driver", "web")
    assert typo.returncode == 3
    assert typo.stderr == "error: unknown tool 'launchAp'; did you mean 'launchApp'?\n"


def test_the_listing_has_a_header_and_a_legend(cli: CliRunner, project: Project) -> None:
    result = cli("tools")
    assert result.returncode == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["tool", "source", "runs", "on", "flags", "description"]
    legend = next(line for line in lines if line.startswith("flags: "))
    assert "llm = offered to agents" in legend and "verif = a check" in legend
    assert "`trailblaze tools NAME` shows a tool's arguments" in result.stdout
    assert lines[-1].startswith(f"{len(lines) - 5} tools: ")


@pytest.mark.parametrize(
    ("schema", "shown"),
    [
        ({"type": "string"}, "string"),
        ({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 9}, {"type": "null"}]}, "integer 0–9"),
        ({"enum": ["UP", "DOWN"]}, '"UP" | "DOWN"'),
        ({"type": "array", "items": {"type": "string"}}, "list of string"),
        ({"$ref": "#/$defs/NodeSelector"}, "NodeSelector"),
        ({}, "any"),
    ],
)
def test_types_read_as_a_person_reads_them(schema: dict[str, object], shown: str) -> None:
    assert type_name(schema) == shown


def test_a_plugin_tool_without_descriptions_says_so(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    project.write(
        "mine.py",
        """
        import trailblaze

        @trailblaze.tool(name="mine_count")
        def count(ctx, start: int, step: int = 1) -> str:
            "Count from start."
            return "ok"

        @trailblaze.hookimpl
        def trailblaze_register_tools(register):
            register(count)
        """,
    )
    result = cli("tools", "mine_count", "-p", "mine")
    assert result.returncode == 0, result.output
    assert "  start (integer; required)\n      (no description)" in result.stdout
    assert "  step (integer; default: 1)" in result.stdout
    assert "- mine_count: {start: 0}" in result.stdout
