"""Keys a plugin adds to the core's blocks of trailblaze.yaml (``parser.addini(…, within=…)``)
and names a ``base_url`` may be (``parser.add_named_url``): what the built-ins use for their
MCP servers and ``sample-app``, so a third-party plugin declares its keys the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trailblaze
from tests.support.project import write
from trailblaze.core.argparsing import Parser
from trailblaze.core.errors import ErrorList, UsageError
from trailblaze.pluginmanager import get_plugin_manager
from trailblaze.project.schema import config_schema
from trailblaze.runner.project import Project, load_project


class Robots:
    """A third-party plugin: a ``region:`` in every target, ``robots:`` (tools of its own) in
    every toolset, and a ``demo-shop`` name for a ``base_url``."""

    @trailblaze.hookimpl
    def trailblaze_addoption(self, parser: Parser) -> None:
        parser.addini("region", "where the app runs", type=str | None, within="targets")
        parser.addini(
            "robots", "robots that bring tools", type=list[str], default=[], within="toolsets", brings_tools=True
        )
        parser.add_named_url("demo-shop", "a shop the plugin serves")


def load(root: Path, text: str, *plugins: Any) -> Project:
    path = write(root, "trailblaze.yaml", text)
    manager = get_plugin_manager(["no:terminal"], autoload=False)
    for plugin in plugins:
        manager.pm.register(plugin)
    return load_project(path, plugins=manager)


def test_a_plugin_adds_a_key_to_every_target_and_toolset(tmp_path: Path) -> None:
    project = load(
        tmp_path,
        "targets:\n  shop: {region: eu, base_url: demo-shop}\ntoolsets:\n  bots: {robots: [r2], tools: [x]}\n",
        Robots(),
    )
    config = project.config
    assert config.project.targets["shop"].region == "eu"  # type: ignore[attr-defined]
    assert config.project.toolsets["bots"].robots == ["r2"]  # type: ignore[attr-defined]
    assert config.block_model("toolsets").model_fields["robots"].default_factory() == []
    assert config.brings_tools(config.project.toolsets["bots"], "toolsets")
    assert config.base_url("demo-shop") == "demo-shop"  # a name stays as it is for its plugin
    assert config.base_url("site") == (tmp_path / "site").resolve().as_uri() + "/"  # a folder does not
    schema = config_schema(config.parser)
    assert "region" in schema["$defs"]["TargetConfig"]["properties"]
    assert "robots" in schema["$defs"]["ToolsetConfig"]["properties"]


def test_a_block_keys_value_is_checked_where_it_is_written(tmp_path: Path) -> None:
    with pytest.raises(ErrorList) as info:
        load(tmp_path, "targets:\n  shop:\n    region: [eu]\n", Robots())
    assert str(info.value).startswith(f"{tmp_path / 'trailblaze.yaml'}:3:13: targets.shop.region: input should be")


def test_without_the_plugin_its_block_keys_are_unknown(tmp_path: Path) -> None:
    with pytest.raises(ErrorList, match=r"targets\.shop\.region: unknown key"):
        load(tmp_path, "targets:\n  shop: {region: eu}\n")
    with pytest.raises(ErrorList, match=r"base_url: 'demo-shop' is neither a URL .*, 'sample-app' nor a folder"):
        load(tmp_path, "targets:\n  shop: {base_url: demo-shop}\n")


def test_a_named_url_joins_the_message_of_a_base_url_that_is_nothing(tmp_path: Path) -> None:
    with pytest.raises(ErrorList) as info:
        load(tmp_path, "targets:\n  shop: {base_url: nowhere}\n", Robots())
    assert str(info.value).endswith(
        "base_url: 'nowhere' is neither a URL (http://…, https://…, file://…), 'demo-shop', 'sample-app' "
        "nor a folder that exists"
    )


def test_a_toolset_name_no_file_defines_is_fine_where_a_key_brings_tools(tmp_path: Path) -> None:
    with pytest.raises(ErrorList, match=r"tool_sets: unknown toolset 'from_robots'"):
        load(tmp_path, "tool_sets: [from_robots]\ntoolsets:\n  bots: {tools: [x]}\n", Robots())
    load(tmp_path, "tool_sets: [from_robots]\ntoolsets:\n  bots: {robots: [r2]}\n", Robots())


def test_a_block_key_that_is_trailblazes_own_is_an_error(tmp_path: Path) -> None:
    class Greedy:
        @trailblaze.hookimpl
        def trailblaze_addoption(self, parser: Parser) -> None:
            parser.addini("display_name", "mine now", within="targets")

    with pytest.raises(UsageError, match=r"declares trailblaze.yaml key 'targets\.\*\.display_name', which is"):
        load(tmp_path, "timeout: 3\n", Greedy())


def test_two_plugins_declaring_one_block_key_or_url_name_are_named() -> None:
    parser = Parser()
    parser.addini("region", "one", within="targets")
    parser.addini("region", "a top-level key of the same name is another key")
    with pytest.raises(UsageError, match=r"key targets\.\*\.region is declared twice"):
        parser.addini("region", "two", within="targets")
    parser.add_named_url("demo-shop", "one")
    with pytest.raises(UsageError, match=r"base_url name 'demo-shop' is declared twice"):
        parser.add_named_url("demo-shop", "two")
    with pytest.raises(TypeError, match=r"within is one of targets, toolsets"):
        parser.addini("colour", "?", within="platforms")


def test_a_workspaces_toolset_files_take_the_plugins_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "trails/config/trailblaze.yaml", "toolsets:\n  - {id: slack, mcp_servers: [{command: x}]}\n")
    write(tmp_path, "trails/config/toolsets/bots.yaml", "id: bots\nmcp_servers: [{comand: x}]\n")
    monkeypatch.chdir(tmp_path)
    project = load(tmp_path, "timeout: 3\n")
    workspace = project.workspace
    assert workspace is not None
    assert "slack" in workspace.toolsets
    assert [str(p) for p in workspace.problems] == [
        "trails/config/toolsets/bots.yaml:2:16: mcp_servers.0.comand: unknown key (did you mean 'command'? "
        "expected one of: args, command, env, headers, multi_device, name, script, startup_timeout_s, timeout_s, "
        "transport, url, working_dir)"
    ]


def test_the_names_plugins_own_are_not_in_the_core() -> None:
    import trailblaze.project.config as config

    for name in ("McpServerConfig", "McpServers", "server_entries", "SAMPLE_APP"):
        assert not hasattr(config, name), name
