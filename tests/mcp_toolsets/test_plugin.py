"""The mcp_toolsets plugin: nothing to pay for a project without servers, nothing heavy at start-up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import CliRunner, Project, cli_env

pytestmark = pytest.mark.slow


def _imported(args: list[str], cwd: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args], cwd=cwd, env=cli_env(), capture_output=True, text=True, check=False
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_start_up_does_not_import_the_mcp_sdk(project: Project, probe: Path) -> None:
    project.write("trailblaze.yaml", f"mcp_servers:\n  - script: {probe}\n")
    project.trail("t", "trail:\n  - step: s\n    recording:\n      web:\n        - report: {}\n")
    for args in (["-m", "trailblaze", "--version"], ["-m", "trailblaze", "tools"]):
        modules = _imported(args, project.root)
        assert not {m for m in modules if m == "mcp" or m.startswith(("mcp.", "mcp_types", "httpx"))}, args


TRAIL_WITH_SERVER_CALLS = """
trail:
  - step: Call the server's tools
    recording:
      web:
        - report: {note: 5}
        - reprot: {}
"""


def test_validate_checks_the_calls_to_server_tools_as_run_does(
    cli: CliRunner, project: Project, probe: Path, browser: str
) -> None:
    project.write("trailblaze.yaml", f"base_url: sample-app\nmcp_servers:\n  - script: {probe}\n")
    project.trail("t", TRAIL_WITH_SERVER_CALLS)
    validated = cli("validate")  # used to say "1 trail valid": server tools were not checked at all
    assert validated.returncode == 3, validated.output
    problems = [
        "trails/t.trail.yaml:5:26: report: note: 5 is not of type 'string'",
        "trails/t.trail.yaml:6:11: unknown tool 'reprot' for driver playwright-native; did you mean 'report'?",
    ]
    assert validated.stderr == "".join(f"error: {p}\n" for p in problems) + "2 problems\n"
    ran = cli("run")
    assert ran.returncode == 3, ran.output
    assert problems[0] in ran.stdout and problems[1] in ran.stdout


def test_validate_says_plainly_when_it_could_not_list_a_servers_tools(
    cli: CliRunner, project: Project, browser: str
) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\nmcp_servers:\n  - command: /no/such/server\n")
    project.trail("t", TRAIL_WITH_SERVER_CALLS)
    validated = cli("validate")
    assert validated.returncode == 2, validated.output  # as the run ends: the server is infrastructure
    first, second = validated.stderr.splitlines()
    where = f"{project.root}/trailblaze.yaml:3:5"
    reason = f"cannot start MCP server server (project, {where}): command not found: /no/such/server"
    assert first == f"error: {reason}"
    assert "could not be started, so the calls to their tools were not checked" in second
    ran = cli("run")
    assert ran.returncode == 2, ran.output
    assert reason in ran.stdout


def test_the_client_sdk_is_light() -> None:
    modules = _imported(["-c", "import trailblaze.mcpclient.sdk"], Path.cwd())
    assert "trailblaze.mcpclient.sdk" in modules
    heavy = {
        m for m in modules if m.split(".")[0] in {"mcp", "mcp_types", "playwright", "uiautomator2", "wda", "httpx"}
    }
    assert heavy == set()


def test_a_session_whose_servers_do_not_apply_never_loads_the_sdk(
    cli: CliRunner, project: Project, probe: Path
) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        tool_sets: [phones]
        toolsets:
          phones:
            platforms: [android]
            mcp_servers: [{{script: {probe}}}]
        """,
    )
    result = cli("tools", "--driver", "web", "--json")
    assert result.returncode == 0, result.output
    assert '"source": "mcp:' not in result.stdout
    modules = _imported(["-m", "trailblaze", "tools", "--driver", "web", "--json"], project.root)
    assert "mcp" not in modules
    assert "trailblaze.mcpclient.declarations" in modules


def test_blocking_the_plugin_leaves_servers_alone(cli: CliRunner, project: Project, probe: Path) -> None:
    # the key belongs to the blocked plugin, so it is unknown (CHANGELOG): refused before any server starts
    project.write("trailblaze.yaml", f"mcp_servers:\n  - script: {probe}\n")
    result = cli("tools", "--driver", "web", "--json", "-p", "no:mcp_toolsets")
    assert result.returncode == 3, result.output
    assert "trailblaze.yaml:1:1: mcp_servers: unknown key" in result.stderr
    assert '"report"' not in result.stdout
