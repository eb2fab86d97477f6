"""A session's servers: started together, tools registered once, collisions and faults reported."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from tests.support.cli import CliRunner, Project

from .conftest import Recorded, alive

pytestmark = pytest.mark.slow

COLLIDER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("collider")


@server.tool(name="wait")
def wait(timeToWaitInSeconds: float = 1) -> str:
    return "mine"


server.run()
"""


def test_a_tool_named_like_a_python_tool_is_an_error_naming_both(cli: CliRunner, project: Project) -> None:
    project.write("collider.py", COLLIDER)
    project.write("trailblaze.yaml", "mcp_servers:\n  - script: collider.py\n")
    result = cli("tools", "--driver", "web")
    assert result.returncode == 3
    assert (
        f"tool 'wait' is offered by MCP server collider (project, {project.root / 'trailblaze.yaml'}:2:5) "
        f"and by core_tools; tool names must be unique"
    ) in result.stderr


def test_a_tool_offered_by_two_servers_is_an_error_naming_both(cli: CliRunner, project: Project, probe: Path) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        mcp_servers:
          - {{script: {probe}, name: first}}
          - {{script: {probe}, name: second, args: [--registry, "{{}}"]}}
        """,
    )
    result = cli("tools", "--driver", "web")
    assert result.returncode == 3
    config = project.root / "trailblaze.yaml"
    assert (
        f"tool 'report' is offered by two MCP servers: first (project, {config}:2:5) and second (project, {config}:3:5)"
    ) in result.stderr


def test_all_servers_of_a_session_start_at_once(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    servers = "\n".join(f"  - {{script: {probe}, args: [--prefix, s{i}_]}}" for i in range(4))
    project.write("trailblaze.yaml", f"mcp_servers:\n{servers}\n")
    result = cli("tools", "--driver", "web", "--json", env=recorded.env)
    assert result.returncode == 0, result.output
    names = {t["name"] for t in json.loads(result.stdout)}
    assert {f"s{i}_report" for i in range(4)} <= names
    started = sorted(s["started"] for s in recorded.entries("start"))
    assert len(started) == 4
    # a server records its start before importing anything slow; one after the other, the
    # starts would be a whole handshake (about a second) apart
    assert started[-1] - started[0] < 0.5, started
    assert not any(alive(s["pid"]) for s in recorded.entries("start"))  # listing shut them down


def _run_one(project: Project, call: str) -> None:
    project.trail(
        "faulty",
        f"""
        trail:
          - step: call the server
            recording:
              web:
                - {call}
        """,
    )


@pytest.mark.usefixtures("browser")
def test_a_server_that_fails_to_start_errors_the_trails_with_its_stderr(
    cli: CliRunner, project: Project, probe: Path
) -> None:
    project.write(
        "trailblaze.yaml",
        f"base_url: sample-app\nmcp_servers:\n  - {{script: {probe}, args: [--mode, crash-at-start]}}\n",
    )
    _run_one(project, "wait: {timeToWaitInSeconds: 0}")
    result = cli("run", "--json", "results.json")
    assert result.returncode == 2, result.output
    error = result.json()["trails"][0]["error"]
    assert "exited with code 4 before completing the MCP handshake" in error
    assert "probe: cannot start, the configuration is missing" in error


@pytest.mark.usefixtures("browser")
def test_a_server_crashing_mid_call_ends_the_trail_with_exit_2(cli: CliRunner, project: Project, probe: Path) -> None:
    project.write("trailblaze.yaml", f"base_url: sample-app\nmcp_servers:\n  - script: {probe}\n")
    _run_one(project, "crash: {}")
    result = cli("run", "--json", "results.json")
    assert result.returncode == 2, result.output
    trail = result.json()["trails"][0]
    assert trail["status"] == "error"
    assert "exited with code 3 during a call to crash" in trail["error"]
    assert "probe: crashing on purpose in the middle of a call" in trail["error"]


@pytest.mark.usefixtures("browser")
def test_a_hung_call_fails_with_exit_2_naming_server_and_tool(cli: CliRunner, project: Project, probe: Path) -> None:
    project.write("trailblaze.yaml", f"base_url: sample-app\nmcp_servers:\n  - {{script: {probe}, timeout_s: 1.5}}\n")
    _run_one(project, "hang: {}")
    result = cli("run", "--json", "results.json")
    assert result.returncode == 2, result.output
    assert "MCP server probe (project, " in result.json()["trails"][0]["error"]
    assert "tool hang did not answer within 1.5s (timeout_s in trailblaze.yaml)" in result.json()["trails"][0]["error"]


@pytest.mark.usefixtures("browser")
def test_an_unreachable_http_server_fails_fast_with_exit_2(cli: CliRunner, project: Project) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    project.write("trailblaze.yaml", f"base_url: sample-app\nmcp_servers:\n  - {{url: '{url}', name: team-tools}}\n")
    _run_one(project, "wait: {timeToWaitInSeconds: 0}")
    result = cli("run")
    assert result.returncode == 2, result.output
    assert (
        f"cannot reach MCP server team-tools (project, {project.root / 'trailblaze.yaml'}:3:5) at {url}"
        in result.output
    )


def test_a_server_writing_garbage_is_an_infrastructure_error(cli: CliRunner, project: Project, probe: Path) -> None:
    project.write(
        "trailblaze.yaml", f"mcp_servers:\n  - {{command: {sys.executable}, args: [{probe}, --mode, garbage]}}\n"
    )
    result = cli("tools", "--driver", "web")
    assert result.returncode == 2
    assert (
        "wrote something that is not JSON-RPC to stdout: 'probe: a banner on stdout breaks the protocol'"
        in result.stderr
    )


UPSTREAM_DRIVERS = """
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("upstream-drivers")


@server.tool(name="on_android", meta={"trailblaze/supportedDrivers": ["ANDROID_ONDEVICE_ACCESSIBILITY"]})
def on_android() -> str:
    return "android"


@server.tool(name="on_ios", meta={"trailblaze/supportedDrivers": ["ios-host", "revyl-ios"]})
def on_ios() -> str:
    return "ios"


if "--typo" in sys.argv:

    @server.tool(name="typo", meta={"trailblaze/supportedDrivers": ["android-ondevice-acessibility"]})
    def typo() -> str:
        return "never"


server.run()
"""


def test_a_servers_tool_of_one_driver_is_found_without_driver(cli: CliRunner, project: Project) -> None:
    """Servers' tools exist only in sessions: `trailblaze tools NAME` looks for one in a
    session on each driver, and says which have it."""
    project.write("upstream.py", UPSTREAM_DRIVERS)
    project.write("trailblaze.yaml", "mcp_servers:\n  - script: upstream.py\n")
    found = cli("tools", "on_ios")
    assert found.returncode == 0, found.output
    assert found.stdout.startswith("on_ios\n")
    assert "\ndrivers: ios-wda (`trailblaze tools --driver ios-wda` lists it)\n" in found.stdout
    elsewhere = cli("tools", "on_ios", "--driver", "web")
    assert elsewhere.returncode == 0, elsewhere.output
    assert "note: on_ios is not a tool of playwright-native sessions; its drivers: ios-wda (" in elsewhere.stderr
    typo = cli("tools", "on_iso")
    assert typo.returncode == 3
    assert "unknown tool 'on_iso'; did you mean 'on_ios'?" in typo.stderr
    project.write("trailblaze.yaml", "mcp_servers:\n  - script: upstream.py\n    args: [--typo]\n")
    broken = cli("tools", "on_ios")  # every session refuses the server: its error, not "unknown tool"
    assert broken.returncode == 3
    assert "unknown driver 'android-ondevice-acessibility'" in broken.stderr and "unknown tool" not in broken.stderr


def test_supported_drivers_take_upstream_keys_and_a_typo_is_an_error(
    cli: CliRunner, project: Project, browser: str
) -> None:
    project.write("upstream.py", UPSTREAM_DRIVERS)
    project.write("trailblaze.yaml", "mcp_servers:\n  - script: upstream.py\n")
    android = cli("tools", "--driver", "android-ondevice-instrumentation", "--json")
    assert android.returncode == 0, android.output
    names = {t["name"]: t for t in json.loads(android.stdout)}
    assert "on_android" in names
    assert "on_ios" not in names
    assert names["on_android"]["drivers"] == ["android-uiautomator2"]
    ios = cli("tools", "--driver", "IOS_HOST", "--json")
    assert {"on_ios"} <= {t["name"] for t in json.loads(ios.stdout)}
    project.write("trailblaze.yaml", "mcp_servers:\n  - script: upstream.py\n    args: [--typo]\n")
    typo = cli("tools", "--driver", "android")
    assert typo.returncode == 3
    assert "tool typo: trailblaze/supportedDrivers: unknown driver 'android-ondevice-acessibility'" in typo.stderr
    assert "Traceback" not in typo.output
    # validate answers as run does: misuse, exit 3 (not 2, "the server could not start")
    project.trail(
        "hello", "trail:\n  - step: s\n    recording:\n      web:\n        - web_navigate: {url: about:blank}\n"
    )
    for command in ("validate", "run"):
        refused = cli(command, "--driver", "web")
        assert refused.returncode == 3, (command, refused.output)
        assert "unknown driver 'android-ondevice-acessibility'" in refused.output
