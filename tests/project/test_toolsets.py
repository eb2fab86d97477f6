"""Toolsets that gate what an agent is offered (trailblaze/project/toolsets.py), upstream's own
toolsets, and the seeds' config shapes: targets' platform blocks, mcp_servers keyed by name,
platform:."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.project import make_project, write
from trailblaze.core.errors import ErrorList
from trailblaze.mcpclient.declarations import DriverContext, session_declarations
from trailblaze.project.toolsets import hidden_tools, shipped_toolsets
from trailblaze.runner.agent_step import offered_tools
from trailblaze.runner.checks import collect_trails

BUILT_IN = ("no:terminal",)
SHOP = """
targets:
  shop:
    platforms:
      android:
        app_ids: [com.example.shop]
        tool_sets: [core_interaction, memory]
        tools: [pressBack]
        excluded_tools: [tapOnPoint]
      web:
        tool_sets: [web_core]
"""


def _context(project, key: str, platform: str) -> DriverContext:  # type: ignore[no-untyped-def]
    return DriverContext(key, platform, expand=project.drivers.expand)


def test_upstreams_toolsets_ship_with_trailblaze(tmp_path: Path) -> None:
    """The built-in plugins declare the trailmaps they ship (``parser.add_trailmap``)."""
    toolsets = shipped_toolsets(make_project(tmp_path, "", BUILT_IN).config)
    assert {
        "core_interaction",
        "navigation",
        "observation",
        "verification",
        "memory",
        "meta",
        "mobile_primitives",
        "android_primitives",
        "android_framework",
        "web_core",
        "web_verification",
        "web_framework",
    } == set(toolsets)
    assert "inputText" in toolsets["core_interaction"].tools and toolsets["core_interaction"].always_enabled
    assert toolsets["web_core"].drivers == ["playwright-native", "playwright-electron"]


def test_a_session_naming_toolsets_offers_only_theirs(tmp_path: Path) -> None:
    project = make_project(tmp_path, SHOP, BUILT_IN)
    shop = project.target_config("shop")
    android = _context(project, "android-uiautomator2", "android")
    hidden = hidden_tools(project.config, shop, android)
    assert "tapOnPoint" in hidden  # excluded_tools
    assert "web_click" in hidden and "openUrl" not in hidden  # core_interaction is named; navigation is not…
    assert "scrollUntilTextIsVisible" not in hidden and "pressBack" not in hidden  # … but lists these, and tools: adds
    assert "rememberText" not in hidden and "objectiveStatus" not in hidden  # memory is named; meta always applies
    assert "android_adbShell" not in hidden  # android_primitives is always enabled on Android
    assert "tapOnElementBySelector" not in hidden  # a tool no toolset lists stays offered
    registry = project.tools.for_device("android-uiautomator2", "android")
    offered = {s.name for s in offered_tools(registry, "step", None, hidden)}
    assert "inputText" in offered and "tapOnPoint" not in offered and "wait" in offered
    web = hidden_tools(project.config, shop, _context(project, "playwright-native", "web"))
    assert "web_click" not in web and "web_verifyTextVisible" in web  # web_verification is not named
    assert "web_evaluate" not in web  # web_framework is always enabled


def test_without_named_toolsets_everything_is_offered(tmp_path: Path) -> None:
    project = make_project(
        tmp_path,
        "toolsets:\n  slack: {mcp_servers: [{command: x}], tools: [send]}\ntool_sets: [slack]\n",
        BUILT_IN,
    )
    assert hidden_tools(project.config, None, _context(project, "playwright-native", "web")) == frozenset()


def test_unknown_toolset_names_are_errors_with_their_line(tmp_path: Path) -> None:
    with pytest.raises(ErrorList) as caught:
        make_project(tmp_path, SHOP.replace("[core_interaction, memory]", "[core_interaction, memry]"), BUILT_IN)
    assert str(caught.value).startswith(f"{tmp_path / 'trailblaze.yaml'}:7:39: tool_sets: unknown toolset 'memry'")


def test_target_platform_blocks(tmp_path: Path) -> None:
    project = make_project(tmp_path, SHOP + "    base_url: https://shop.example\n", BUILT_IN)
    shop = project.target_config("shop")
    assert shop is not None
    assert shop.all_app_ids == ["com.example.shop"]
    assert shop.web_base_url == "https://shop.example"
    with pytest.raises(ErrorList, match=r"trailblaze.yaml:4:7: targets.shop.platforms: unknown platform\(s\) tv"):
        make_project(tmp_path, "targets:\n  shop:\n    platforms:\n      tv: {}\n", BUILT_IN)


TV_DRIVER = """
from typing import ClassVar

import trailblaze
from tests.support.null_driver import NullDriver


class TvDriver(NullDriver):
    key: ClassVar[str] = "tv-box"
    aliases: ClassVar[tuple[str, ...]] = ()
    platform: ClassVar[str] = "tv"


@trailblaze.hookimpl
def trailblaze_register_drivers(register):
    register(TvDriver)
"""


def test_a_plugins_driver_adds_a_platform_targets_may_have(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "plugins", "tv_driver.py", TV_DRIVER)
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    config = "targets:\n  shop:\n    platforms:\n      tv: {app_ids: [com.example.tv]}\n"
    project = make_project(tmp_path, config, ("tv_driver", *BUILT_IN))
    shop = project.target_config("shop")
    assert shop is not None
    block = shop.platform_block("tv", "tv-box")
    assert block is not None and block.app_ids == ["com.example.tv"]
    with pytest.raises(ErrorList, match=r"unknown platform\(s\) tv \(known: android, ios, web, compose, desktop"):
        make_project(tmp_path, config, BUILT_IN)  # without the plugin, no driver has it


SHIPS_A_TRAILMAP = """
from pathlib import Path

import trailblaze

FOLDER = Path(__file__).parent / "kiosk"


@trailblaze.hookimpl
def trailblaze_addoption(parser):
    parser.add_trailmap(FOLDER)
"""


def test_a_plugin_ships_a_trailmap_whose_toolsets_and_dependencies_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin declares a trailmap it ships as the built-in ones do: its toolsets are names
    ``tool_sets:`` may use, and an upstream workspace may depend on it."""
    plugins = tmp_path / "plugins"
    write(plugins, "kiosk_plugin.py", SHIPS_A_TRAILMAP)
    write(plugins, "kiosk/trailmap.yaml", "id: kiosk\n")
    write(plugins, "kiosk/toolsets/kiosk_basics.yaml", "id: kiosk_basics\ntools: [web_click]\n")
    monkeypatch.syspath_prepend(str(plugins))
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "trails/config/trailblaze.yaml", "targets: [shop]\n")
    write(
        tmp_path,
        "trails/config/trailmaps/shop/trailmap.yaml",
        "id: shop\ntarget: {display_name: Shop}\ndependencies: [kiosk]\n",
    )
    config = "tool_sets: [kiosk_basics]\n"
    project = make_project(tmp_path, config, ("kiosk_plugin", *BUILT_IN))
    assert shipped_toolsets(project.config)["kiosk_basics"].tools == ["web_click"]
    workspace = project.workspace
    assert workspace is not None and workspace.problems == []
    with pytest.raises(ErrorList, match=r"tool_sets: unknown toolset 'kiosk_basics'"):
        make_project(tmp_path, config, BUILT_IN)  # without the plugin, nobody ships it
    bare = make_project(tmp_path, "", BUILT_IN).workspace
    assert bare is not None
    assert [p.message for p in bare.problems] == [
        "dependencies: no trailmap 'kiosk' in this workspace or among those plugins ship"
    ]


def test_a_plugins_toolset_file_that_does_not_validate_is_an_error_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins = tmp_path / "plugins"
    write(plugins, "broken_kiosk_plugin.py", SHIPS_A_TRAILMAP)  # a module name of its own: imports are cached
    write(plugins, "kiosk/trailmap.yaml", "id: kiosk\n")
    broken = write(plugins, "kiosk/toolsets/kiosk_basics.yaml", "id: kiosk_basics\ntools: [web_click]\nbogus: 1\n")
    monkeypatch.syspath_prepend(str(plugins))
    project = make_project(tmp_path, "", ("broken_kiosk_plugin", *BUILT_IN))
    with pytest.raises(ErrorList) as caught:
        shipped_toolsets(project.config)
    assert str(caught.value.errors[0]).startswith(f"{broken}:3:1: bogus")


def test_mcp_servers_keyed_by_name(tmp_path: Path) -> None:
    project = make_project(
        tmp_path,
        """
        mcp_servers:
          acme-tools:
            command: python
            args: [acme.py]
          team: {transport: http, url: "http://127.0.0.1:9/mcp", name: shared}
        targets:
          shop:
            mcp_servers:
              shop-tools: {script: shop.py}
        """,
        BUILT_IN,
    )
    write(tmp_path, "shop.py", "")
    decls = session_declarations(project.config, _context(project, "playwright-native", "web"), target="shop")
    assert [(d.label, str(d.location).rsplit("/", 1)[1]) for d in decls] == [
        ("acme-tools", "trailblaze.yaml:4:5"),
        ("shared", "trailblaze.yaml:6:9"),
        ("shop-tools", "trailblaze.yaml:10:19"),
    ]
    with pytest.raises(
        ErrorList,
        match=r"trailblaze.yaml:2:10: mcp_servers.acme.comand: unknown key \(did you mean 'command'\? expected one",
    ):
        make_project(tmp_path, "mcp_servers:\n  acme: {comand: x}\n", BUILT_IN)


def test_platform_picks_the_default_driver(tmp_path: Path) -> None:
    project = make_project(tmp_path, "platform: android\n", BUILT_IN)
    write(tmp_path, "trails/t.trail.yaml", "trail:\n  - step: s\n    recording:\n      android: [{pressBack: {}}]\n")
    trails, problems = collect_trails(project, [tmp_path / "trails"], {})
    assert problems == []
    assert project.drivers.resolve(project.default_driver_name(None, trails[0])).key == "android-uiautomator2"
    with pytest.raises(ErrorList, match=r"platform: input should be"):
        make_project(tmp_path, "platform: tv\n", BUILT_IN)


def test_a_toolset_only_servers_fill_may_be_named_where_servers_are_declared(tmp_path: Path) -> None:
    """Upstream's tools put themselves in a toolset (`trailblaze/toolset: checkout` in their
    `_meta`) that no file defines: with servers declared, naming it is not an error."""
    project = make_project(
        tmp_path, "mcp_servers: [{command: x}]\ntargets:\n  shop: {tool_sets: [checkout]}\n", BUILT_IN
    )
    assert project.config.project.targets["shop"].tool_sets == ["checkout"]
