"""A third-party client: the MCP Inspector's CLI lists trailblaze's tools and calls them, each
call a connection of its own (so a device tool connects the default device by itself)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.server.support import http_server, server_command, wire_data
from tests.support.cli import Project, cli_env

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]


def _inspect(inspector: Path, cwd: Path, *args: str) -> dict[str, Any]:
    result = subprocess.run(
        [str(inspector), "--cli", *args],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(json.loads(result.stdout))


def test_inspector_lists_tools_and_calls_device_and_a_primitive(inspector: Path, project: Project) -> None:
    server = server_command(["mcp"])
    listed = _inspect(inspector, project.root, *server, "--method", "tools/list")
    tools = [t["name"] for t in listed["tools"]]
    assert tools[:7] == ["device", "step", "ask", "trail", "session", "config", "toolbox"]
    assert "web_navigate" in tools  # the default device's tools, before any device is connected
    connected = _inspect(
        inspector, project.root, *server, "--method", "tools/call", "--tool-name", "device", "--tool-arg", "action=WEB"
    )
    assert connected["isError"] is False and wire_data(connected)["platform"] == "web"
    navigated = _inspect(
        inspector,
        project.root,
        *server,
        "--method",
        "tools/call",
        "--tool-name",
        "web_navigate",
        "--tool-arg",
        "url=/forms.html",
    )
    assert navigated["isError"] is False, navigated
    assert wire_data(navigated)["output"].endswith("/forms.html")


def test_inspector_over_http_with_a_token(inspector: Path, project: Project) -> None:
    with http_server(project.root, "--token", "t0ken") as server:
        listed = _inspect(
            inspector, project.root, server.url, "--header", "Authorization: Bearer t0ken", "--method", "tools/list"
        )
    assert listed["tools"][0]["name"] == "device"


def test_inspector_sends_an_object_argument_for_an_object_parameter(inspector: Path, project: Project) -> None:
    """The CLI turns `key=value` into JSON when the parameter's top-level type says object."""
    server = server_command(["mcp"])
    selector = '{"web": {"cssSelector": "body"}}'
    checked = _inspect(
        inspector,
        project.root,
        *server,
        "--method",
        "tools/call",
        "--tool-name",
        "web_hover",
        "--tool-arg",
        f"nodeSelector={selector}",
        "--tool-arg",
        "reason=Point at the page",
    )
    assert checked["isError"] is False, checked
    recorded = wire_data(checked)["recorded"]
    assert recorded["text"] == "Point at the page"
    assert recorded["tools"] == [{"web_hover": {"nodeSelector": {"web": {"cssSelector": "body"}}}}]
