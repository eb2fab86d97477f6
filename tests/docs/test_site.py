"""The site builds with `mkdocs build --strict` (a broken link or anchor, a missing page, a page
left out of the nav or a reference page that cannot be generated fails it), and the generated
reference pages hold every tool, every trailblaze.yaml key, every trail file key and selector
field with its description, every command's help and every hook."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.docs.snippets import ROOT
from tests.support.cli import cli_env

pytestmark = pytest.mark.slow


def trailblaze_json(*args: str) -> Any:
    result = subprocess.run(
        [sys.executable, "-m", "trailblaze", *args], capture_output=True, text=True, env=cli_env(), cwd="/", check=True
    )
    return json.loads(result.stdout)


def text_of(page: Path) -> str:
    """A built page's text, without its markup."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return out


def test_every_tool_is_on_its_family_page(site: Path) -> None:
    pages = {family: text_of(site / "tools" / family / "index.html") for family in ("core", "web", "mobile")}
    for tool in trailblaze_json("tools", "--json"):
        holders = [family for family, text in pages.items() if f"\n{tool['name']}¶\n" in text]  # its heading
        assert len(holders) == 1, (tool["name"], holders)
        page = pages[holders[0]]
        for argument in tool["inputSchema"].get("properties", {}):
            assert argument in page, (tool["name"], argument)


def test_every_setting_is_in_the_configuration_reference(site: Path) -> None:
    page = text_of(site / "configuration" / "index.html")
    reference = page.split("Reference", 1)[1]
    for key in trailblaze_json("schema", "config")["properties"]:
        assert key in reference, key


def test_every_command_has_its_help_and_an_example(site: Path) -> None:
    page = text_of(site / "cli" / "index.html")
    commands = re.findall(r"^  ([\w-]+)\s", page.split("Commands:\n", 1)[1].split("\n\n", 1)[0], re.MULTILINE)
    assert "run" in commands and "show-report" in commands
    for command in commands:
        assert f"$ trailblaze {command} --help\nUsage: trailblaze {command}" in page, command
        section = page.split(f"\n{command}¶\n", 1)[1]  # from its heading on
        assert re.search(rf"^trailblaze {re.escape(command)}\b", section, re.MULTILINE), f"no example of {command}"


def test_every_hook_is_on_the_hook_reference(site: Path) -> None:
    page = text_of(site / "hooks" / "index.html")
    import trailblaze.hookspecs

    for name in vars(trailblaze.hookspecs):
        if name.startswith("trailblaze_"):
            assert f"def {name}(" in page, name


def test_the_changelog_and_contributing_pages_include_the_files(site: Path) -> None:
    assert "## [Unreleased]" not in text_of(site / "changelog" / "index.html")  # rendered, not quoted
    assert "Unreleased" in text_of(site / "changelog" / "index.html")
    assert "The lock file" in text_of(site / "contributing" / "index.html")


def flat(text: str) -> str:
    """Text as a page shows it, whitespace made single spaces (a description loses its backticks)."""
    return " ".join(text.replace("`", "").split())


def test_every_trail_key_is_on_writing_trails_with_its_description(site: Path) -> None:
    page = flat(text_of(site / "writing-trails" / "index.html").split("Every key", 1)[1])
    defs = trailblaze_json("schema")["$defs"]
    legacy = defs["legacy"]["items"]
    objects = [defs["current"], defs["config"], defs["ArgDecl"], defs["step"], legacy, legacy["properties"]["prompts"]]
    objects += [defs["current"]["properties"]["trailhead"]]
    for schema in objects:
        for key, prop in schema.get("properties", schema.get("items", {}).get("properties", {})).items():
            assert f"{key} " in page and flat(prop["description"]) in page, key


def test_every_selector_field_is_on_the_tool_pages_with_its_description(site: Path) -> None:
    pages = flat(" ".join(text_of(site / "tools" / f / "index.html") for f in ("core", "web", "mobile")))
    defs = trailblaze_json("schema")["$defs"]
    selectors = ("NodeSelector", "WebMatch", "AndroidAccessibilityMatch", "AndroidMaestroMatch", "IosMaestroMatch")
    for name in (*selectors, "ElementSelector", "SizeSelector"):
        for field, prop in defs[name]["properties"].items():
            assert flat(prop["description"]) in pages, f"{name}.{field}"


def test_no_table_cell_shows_a_backslash_before_a_pipe(site: Path) -> None:
    """Tables are written for GitHub (`trail\\|config` in a cell's code): the site shows the pipe alone."""
    cells = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.DOTALL)
    shown = [
        f"{page.relative_to(site)}: {html.unescape(cell)}"
        for page in site.rglob("*.html")
        for cell in cells.findall(page.read_text(encoding="utf-8"))
        if "\\|" in cell
    ]
    assert shown == []
