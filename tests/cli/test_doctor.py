"""`trailblaze doctor` as a user runs it: the real command in a subprocess, with the real pieces
(this machine's browser, node and SDK) taken away by the environment, never by a mock."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliResult, CliRunner, Project

pytestmark = pytest.mark.usefixtures("browser")

WITHOUT_ANDROID = ("-p", "tests.support.without_android")


def checks(result: CliResult) -> dict[str, dict[str, Any]]:
    """The checks of ``doctor --json``, by name."""
    document = json.loads(result.stdout)
    return {check["name"]: check for check in document["checks"]}


def row(result: CliResult, name: str) -> tuple[str, str, str | None]:
    """Status, detail and fix of check ``name`` in the plain output (columns apart by two
    spaces or more; the fix on the line under it)."""
    lines = result.stdout.splitlines()
    for i, line in enumerate(lines):
        cells = re.split(r" {2,}", line, maxsplit=2)
        if len(cells) == 3 and cells[1] == name:
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return cells[0], cells[2], following.removeprefix("fix: ") if following.startswith("fix: ") else None
    raise AssertionError(f"no {name} line in:\n{result.stdout}")


def scripted_tool_project(project: Project) -> None:
    """A workspace whose trailmap has a tool in TypeScript, and a trail of its target."""
    project.write("trails/config/trailblaze.yaml", "targets:\n  - shop\n")
    project.write(
        "trails/config/trailmaps/shop/trailmap.yaml",
        "id: shop\ntarget:\n  display_name: Shop\n  platforms:\n    web: {}\n",
    )
    project.write(
        "trails/config/trailmaps/shop/tools/shop_greet.ts",
        """
        import { trailblaze } from "@trailblaze/scripting";

        /** Say hello. */
        export const shop_greet = trailblaze.tool<{ name: string }>({}, async ({ name }) => `hello ${name}`);
        """,
    )
    project.trail("greet", "config: {target: shop}\ntrail:\n  - step: Greet\n")


def no_runtime(tmp_path: Path) -> dict[str, str]:
    """A PATH with neither node nor bun on it (the browser and Playwright's own node need none)."""
    empty = tmp_path / "empty-path"
    empty.mkdir(exist_ok=True)
    return {"PATH": str(empty)}


def test_outside_a_project_doctor_checks_the_install_and_passes(cli: CliRunner, tmp_path: Path) -> None:
    result = cli("doctor")
    assert result.returncode == 0, result.output
    assert row(result, "config") == (
        "skip",
        f"no trailblaze.yaml in {tmp_path} or a folder above it: only the install is checked",
        "`trailblaze init` makes a project",
    )
    for name in ("python", "trailblaze", "playwright", "browser", "node", "scripting SDK"):
        assert row(result, name)[0] == "ok", row(result, name)
    assert row(result, "python")[1].startswith("Python 3.")
    assert result.stdout.splitlines()[-1].startswith("no project here; the install is checked")


def test_the_browser_check_says_which_chromium_started(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail("home", "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: /}}]\n")
    result = cli("doctor", "--json")
    assert result.returncode == 0, result.output
    found = checks(result)
    assert found["trails"]["detail"] == "1 trail in trails/: playwright-native 1"
    assert found["browser"]["status"] == "ok"
    assert "started headless" in found["browser"]["detail"] and "Chromium " in found["browser"]["detail"]
    assert found["browser"]["plugin"] == "web_playwright"


def test_a_browser_that_is_not_there_fails_a_web_project_with_the_fix(cli: CliRunner, project: Project) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\nbrowser: /no/such/chromium\n")
    project.trail("home", "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: /}}]\n")
    result = cli("doctor")
    assert result.returncode == 2, result.output
    assert row(result, "browser") == (
        "fail",
        "browser not found: /no/such/chromium (from `browser:` in trailblaze.yaml)",
        "correct `browser:` in trailblaze.yaml, or remove it to use Playwright's or the system's Chromium",
    )
    assert result.stdout.splitlines()[-1] == "not ready: browser failed; the fix: lines say how to mend it"


def test_without_node_a_project_with_scripted_tools_fails_the_node_check_with_the_fix(
    cli: CliRunner, project: Project, tmp_path: Path
) -> None:
    scripted_tool_project(project)
    result = cli("doctor", "--json", env=no_runtime(tmp_path))
    assert result.returncode == 2, result.output
    node = checks(result)["node"]
    assert node == {
        "name": "node",
        "status": "fail",
        "detail": "no `node` on PATH; needed by the scripted tools in trails/config/trailmaps/shop/tools",
        "fix": "install Node.js 20.6 or later (https://nodejs.org) or bun (https://bun.sh), and put it on PATH",
        "plugin": "mcp_toolsets",
    }
    assert json.loads(result.stdout)["ready"] is False


def test_a_project_without_scripted_tools_runs_without_node(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    project.trail("home", "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: /}}]\n")
    result = cli("doctor", env=no_runtime(tmp_path))
    assert result.returncode == 0, result.output
    status, detail, fix = row(result, "node")
    assert status == "warn"
    assert (
        detail == "no `node` on PATH; nothing in this project needs it (scripted tools and JavaScript MCP servers do)"
    )
    assert fix == "install Node.js 20.6 or later (https://nodejs.org) or bun (https://bun.sh), and put it on PATH"
    assert result.stdout.splitlines()[-1].startswith("ready: the project's trails can run here (")


def test_an_sdk_folder_without_the_sdk_fails_the_sdk_check(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    scripted_tool_project(project)
    hollow = tmp_path / "hollow-sdk"
    hollow.mkdir()
    result = cli("doctor", "--json", env={"TRAILBLAZE_SCRIPTING_SDK": str(hollow)})
    assert result.returncode == 2, result.output
    sdk = checks(result)["scripting SDK"]
    assert sdk["status"] == "fail"
    assert sdk["detail"] == (
        f"TRAILBLAZE_SCRIPTING_SDK names {hollow}, which holds no built @trailblaze/scripting (no dist/cli.js); "
        "needed by the scripted tools in trails/config/trailmaps/shop/tools"
    )
    assert sdk["fix"] == (
        "build it (`npm run build` there) or unset TRAILBLAZE_SCRIPTING_SDK to use the SDK trailblaze carries"
    )
    assert checks(result)["node"]["status"] == "ok"


def test_an_invalid_trailblaze_yaml_fails_with_its_file_and_line(cli: CliRunner, project: Project) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: fast\n")
    result = cli("doctor")
    assert result.returncode == 3, result.output
    config = project.root / "trailblaze.yaml"
    assert row(result, "config") == (
        "fail",
        f"{config}:2:10: timeout: input should be a valid number, unable to parse string as a number",
        f"correct {config} where the lines above say",
    )
    assert row(result, "browser")[0] == "ok"  # the install is still checked, with the defaults
    assert "\ntrails " not in "\n" + "\n".join(line[6:] for line in result.stdout.splitlines())  # not looked at


def test_a_missing_driver_extra_is_a_warning_unless_the_trails_need_it(cli: CliRunner, project: Project) -> None:
    web_only = cli("doctor", "--json", *WITHOUT_ANDROID)
    assert web_only.returncode == 0, web_only.output
    android = checks(web_only)["android-uiautomator2"]
    assert android["status"] == "warn"
    assert android["detail"] == "the uiautomator2 package is not installed: the driver cannot run here"
    assert android["fix"] == "pip install 'trailblaze[android]'"
    assert checks(web_only)["android-uiautomator2 devices"]["status"] == "skip"

    project.trail("phone", "trail:\n  - step: Back\n    recording:\n      android: [{pressBack: {}}]\n")
    project.write("trailblaze.yaml", "driver: android\n")
    needed = cli("doctor", "--json", *WITHOUT_ANDROID)
    assert needed.returncode == 2, needed.output
    assert checks(needed)["android-uiautomator2"]["status"] == "fail"
    assert checks(needed)["trails"]["detail"] == "1 trail in trails/: android-uiautomator2 1"


def test_json_says_whether_the_trails_can_run_and_every_check(cli: CliRunner, project: Project) -> None:
    result = cli("doctor", "--json")
    assert result.returncode == 0, result.output
    document = json.loads(result.stdout)
    assert sorted(document) == ["checks", "config", "exit_code", "ready"]
    assert (document["ready"], document["exit_code"]) == (True, 0)
    assert document["config"] == str(project.root / "trailblaze.yaml")
    for check in document["checks"]:
        assert sorted(check) == ["detail", "fix", "name", "plugin", "status"]
        assert check["status"] in ("ok", "warn", "fail", "skip")
    assert [c["name"] for c in document["checks"]][:4] == ["config", "trails", "python", "trailblaze"]
    assert {c["plugin"] for c in document["checks"]} >= {None, "main", "web_playwright", "mcp_toolsets"}


PLUGIN = """
import asyncio

import trailblaze


@trailblaze.hookimpl
def trailblaze_doctor(run):
    async def licence():
        await asyncio.sleep(0)
        trails = len(run.planned)
        return [
            trailblaze.DoctorCheck("licence server", "ok", f"reachable; {trails} trails"),
            trailblaze.DoctorCheck.missing(
                "licence seat", "no seat left", "ask for one at licences@example.com", needed=trails > 0
            ),
        ]

    return licence()
"""


def test_a_plugin_adds_its_checks_through_the_hook(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    (tmp_path / "licence_plugin.py").write_text(PLUGIN, encoding="utf-8")
    env = {"PYTHONPATH": str(tmp_path)}
    result = cli("doctor", "-p", "licence_plugin", "--json", env=env)
    assert result.returncode == 0, result.output  # no trails yet: the seat is not needed
    found = checks(result)
    assert found["licence server"] == {
        "name": "licence server",
        "status": "ok",
        "detail": "reachable; 0 trails",
        "fix": None,
        "plugin": "licence_plugin",
    }
    assert found["licence seat"]["status"] == "warn"

    project.trail("home", "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: /}}]\n")
    needed = cli("doctor", "-p", "licence_plugin", env=env)
    assert needed.returncode == 2, needed.output
    assert row(needed, "licence seat") == ("fail", "no seat left", "ask for one at licences@example.com")


def test_a_plugin_whose_check_breaks_is_a_failed_check_naming_it(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "broken_doctor.py").write_text(
        "import trailblaze\n\n@trailblaze.hookimpl\ndef trailblaze_doctor(run):\n    raise RuntimeError('boom')\n",
        encoding="utf-8",
    )
    result = cli("doctor", "-p", "broken_doctor", "--json", env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 2, result.output
    assert checks(result)["plugin broken_doctor"] == {
        "name": "plugin broken_doctor",
        "status": "fail",
        "detail": "its trailblaze_doctor raised RuntimeError: boom",
        "fix": "fix or update the plugin, or skip it with -p no:broken_doctor",
        "plugin": "broken_doctor",
    }
    assert checks(result)["browser"]["status"] == "ok"  # the other plugins' checks are all there


def test_problems_in_trail_files_are_for_validate_to_list(cli: CliRunner, project: Project) -> None:
    project.trail("home", "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: /}}]\n")
    project.trail("broken", "trail: [\n")
    result = cli("doctor")
    assert result.returncode == 0, result.output
    assert row(result, "trails") == (
        "warn",
        "1 trail in trails/: playwright-native 1; 1 problem in trail files",
        "`trailblaze validate` lists them, each at its file:line",
    )
