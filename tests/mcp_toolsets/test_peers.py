"""Third-party MCP servers nobody here wrote, from the registries, as peers.

``@modelcontextprotocol/server-everything`` (npm, the TypeScript SDK) over stdio and over
Streamable HTTP, and ``mcp-server-time`` (PyPI, the Python SDK). They know nothing of
Trailblaze: no ``_meta`` tags, no envelope, default metadata.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import CliRunner, Project

pytestmark = pytest.mark.usefixtures("browser")

EVERYTHING_TRAIL = """
trail:
  - step: echo and add through a third-party server
    recording:
      web:
        - echo: {message: hello}
        - get-sum: {a: 2, b: 3}
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def everything_http(peers: Path) -> Iterator[str]:
    """server-everything over Streamable HTTP, run by the test (Trailblaze only connects)."""
    port = _free_port()
    proc = subprocess.Popen(
        [str(peers / "mcp-server-everything"), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, "server-everything exited"
                assert time.monotonic() < deadline, "server-everything did not listen"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_server_everything_over_stdio(cli: CliRunner, project: Project, peers: Path) -> None:
    server = peers / "mcp-server-everything"
    project.write(
        "trailblaze.yaml",
        f"base_url: sample-app\nmcp_servers:\n  - {{command: {server}, args: [stdio], name: everything}}\n",
    )
    project.trail("everything", EVERYTHING_TRAIL)
    result = cli("run", "--json", "results.json")
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["status"]) for t in tools] == [("echo", "passed"), ("get-sum", "passed")]
    listed = cli("tools", "--driver", "web", "--json")
    echo = next(t for t in json.loads(listed.stdout) if t["name"] == "echo")
    assert echo["source"] == "mcp:everything"
    assert (echo["isRecordable"], echo["isDelegating"], echo["exposedToLlm"]) == (True, False, True)  # defaults


def test_server_everything_over_streamable_http(cli: CliRunner, project: Project, everything_http: str) -> None:
    project.write(
        "trailblaze.yaml", f"base_url: sample-app\nmcp_servers:\n  - {{transport: http, url: '{everything_http}'}}\n"
    )
    project.trail("everything", EVERYTHING_TRAIL)
    result = cli("run", "--json", "results.json")
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["status"]) for t in tools] == [("echo", "passed"), ("get-sum", "passed")]


def test_arguments_a_third_party_schema_rejects_fail_before_anything_runs(
    cli: CliRunner, project: Project, peers: Path
) -> None:
    project.write(
        "trailblaze.yaml",
        f"base_url: sample-app\nmcp_servers:\n  - {{command: {peers / 'mcp-server-everything'}, args: [stdio]}}\n",
    )
    project.trail("bad", "trail:\n  - step: add\n    recording:\n      web:\n        - get-sum: {a: 2}\n")
    result = cli("run")
    assert result.returncode == 3, result.output
    assert "get-sum: b: required" in result.output


def test_mcp_server_time_from_pypi(cli: CliRunner, project: Project) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        base_url: sample-app
        mcp_servers:
          - command: {sys.executable}
            args: [-m, mcp_server_time, --local-timezone, UTC]
            name: time
        """,
    )
    project.trail(
        "time",
        """
        trail:
          - step: what time is it in Paris and Tokyo
            recording:
              web:
                - get_current_time: {timezone: Europe/Paris}
                - convert_time: {source_timezone: UTC, time: "12:00", target_timezone: Asia/Tokyo}
          - step: a timezone that does not exist fails the step with the server's message
            recording:
              web:
                - get_current_time: {timezone: Mars/Olympus_Mons}
        """,
    )
    result = cli("run", "--json", "results.json")
    assert result.returncode == 1, result.output
    first, second = result.json()["trails"][0]["steps"]
    assert first["status"] == "passed"
    assert [t["name"] for t in first["tools"]] == ["get_current_time", "convert_time"]
    assert second["status"] == "failed"
    assert second["error"].startswith("get_current_time: ")
    assert "Mars/Olympus_Mons" in second["error"]


def test_a_typescript_script_runs_with_tsx_and_gets_the_envelope(cli: CliRunner, project: Project, peers: Path) -> None:
    script = peers.parent.parent / "ts_server.ts"
    project.write("trailblaze.yaml", f"base_url: sample-app\nmcp_servers:\n  - script: {script}\n")
    project.trail("ts", "trail:\n  - step: open forms\n    recording:\n      web:\n        - ts_openForms: {}\n")
    result = cli("run", "--json", "results.json")
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["delegated_from"]) for t in tools] == [("web_navigate", ["ts_openForms"])]
