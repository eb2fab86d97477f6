"""The trailblaze/* metadata as real servers ship it: every key, the precedence of its layers,
tools for other drivers and platforms, groups off by default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli import CliRunner, Project
from trailblaze.tools.model import ToolMetadata


def _tools(cli: CliRunner, project: Project, driver: str = "web") -> dict[str, dict[str, Any]]:
    result = cli("tools", "--driver", driver, "--json")
    assert result.returncode == 0, result.output
    return {t["name"]: t for t in json.loads(result.stdout) if t["source"].startswith("mcp:")}


REGISTRY = json.dumps(
    {
        "tools": {
            "meta_delegating_only": {"groups": ["from-registry"], "isDelegating": False, "exposedToLlm": False},
            "meta_none": {"platforms": ["web"], "isRecordable": False},
        },
        "groups": {"from-registry": {"description": "x", "defaultEnabled": True}},
        "serverInfo": {"name": "probe", "version": "1"},
    }
)


def test_every_key_and_the_precedence_as_a_real_server_ships_them(
    cli: CliRunner, project: Project, probe: Path
) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        tool_sets: [probe]
        toolsets:
          probe:
            mcp_servers:
              - script: {probe}
                args: ["--registry", {json.dumps(REGISTRY)}]
            tool_meta:
              meta_delegating_only: {{"trailblaze/groups": [from-tool-meta], "trailblaze/requiresHost": true}}
              meta_none: {{"trailblaze/isRecordable": true, "trailblaze/groups": [from-tool-meta]}}
            default_meta:
              "trailblaze/requiresHost": false
              "trailblaze/groups": [from-default]
              "trailblaze/isVerification": true
        """,
    )
    tools = _tools(cli, project)
    every = tools["meta_all"]  # the server's own _meta wins over every overlay
    assert {k: every[k] for k in every if k not in ("name", "description", "inputSchema")} == {
        "source": "mcp:probe",
        "platforms": ["web"],
        "drivers": ["playwright-native"],
        "groups": ["auth", "setup"],
        "exposedToLlm": False,
        "isRecordable": False,
        "isDelegating": False,
        "requiresHost": True,
        "isVerification": True,
        "requiresContext": True,
        "toolset": "probe_set",
        "defaultEnabled": True,
        "isQuery": False,
        "serverInfo": {"name": "probe", "version": "1"},  # seed 000's registry serverInfo
    }
    assert tools["meta_for_llm"]["exposedToLlm"] is False
    assert tools["meta_for_llm"]["toolset"] == "probe"  # untagged tools belong to the declaring toolset
    layered = tools["meta_delegating_only"]
    assert layered["isDelegating"] is True  # tool _meta beats the registry's False
    assert layered["groups"] == ["from-registry"]  # the registry beats tool_meta and default_meta
    assert layered["exposedToLlm"] is False  # from the registry
    assert layered["requiresHost"] is True  # tool_meta beats default_meta
    assert layered["isVerification"] is True  # default_meta fills what nobody else set
    plain = tools["meta_none"]
    assert plain["isRecordable"] is False  # the registry beats tool_meta
    assert plain["groups"] == ["from-tool-meta"]
    assert plain["platforms"] == ["web"]
    untouched = tools["report"]
    assert (untouched["isRecordable"], untouched["isDelegating"], untouched["exposedToLlm"]) == (True, False, True)
    assert untouched["groups"] == ["from-default"]


def test_tools_for_other_drivers_and_platforms_do_not_register(cli: CliRunner, project: Project, probe: Path) -> None:
    project.write("trailblaze.yaml", f"mcp_servers:\n  - script: {probe}\n")
    tools = _tools(cli, project)
    assert "android_only" not in tools
    assert "ios_platform" not in tools
    assert tools["web_by_alias"]["drivers"] == ["playwright-native"]  # the alias became the key
    assert {"meta_all", "report", "delegate"} <= set(tools)


def test_groups_off_by_default_are_offered_only_when_named(cli: CliRunner, project: Project, probe: Path) -> None:
    """Seed 000's GroupInfo.defaultEnabled: a tool whose groups are all off by default is not
    offered to agents unless ``llm.groups`` names one of them."""
    from trailblaze.runner.agent_step import offered_tools
    from trailblaze.tools.model import ToolSpec

    registry = json.dumps(
        {
            "tools": {"meta_none": {"groups": ["checkout"]}, "report": {"groups": ["auth"]}},
            "groups": {"checkout": {"description": "Checkout", "defaultEnabled": False}, "auth": {"description": "x"}},
        }
    )
    project.write(
        "trailblaze.yaml", f"mcp_servers:\n  - script: {probe}\n    args: [--registry, {json.dumps(registry)}]\n"
    )
    tools = _tools(cli, project)
    assert tools["meta_none"]["defaultEnabled"] is False
    assert tools["report"]["defaultEnabled"] is True
    specs = [
        ToolSpec(
            name,
            "",
            {},
            ToolMetadata(groups=tuple(tools[name]["groups"]), default_enabled=tools[name]["defaultEnabled"]),
            None,
        )  # type: ignore[arg-type]
        for name in ("meta_none", "report")
    ]
    assert [s.name for s in offered_tools(specs, "step", None)] == ["report"]
    assert [s.name for s in offered_tools(specs, "step", ["checkout"])] == ["meta_none"]
    project.write(
        "trailblaze.yaml",
        f"mcp_servers:\n  - script: {probe}\n    args: [--registry, {json.dumps(json.dumps({'groups': {'x': 1}}))}]\n",
    )
    bad = cli("tools", "--driver", "web")
    assert bad.returncode == 2
    assert "trailblaze://registry group 'x' must be {description, defaultEnabled: true|false}" in bad.stderr
