"""Upstream's driver names wherever a driver is named: --driver, config.devices, toolsets'
drivers:, MCP tools' supportedDrivers (trailblaze/api/driver.py, trailblaze/device/drivernames.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import CliRunner, Project
from tests.support.project import make_project, write
from trailblaze.core.errors import ErrorList, UsageError
from trailblaze.runner.checks import collect_trails

UPSTREAM_KEYS = {
    "android-ondevice-accessibility": "android-uiautomator2",
    "ANDROID_ONDEVICE_ACCESSIBILITY": "android-uiautomator2",
    "android-ondevice-instrumentation": "android-uiautomator2",
    "Android_OnDevice_Instrumentation": "android-uiautomator2",
    "ios-host": "ios-wda",
    "IOS_HOST": "ios-wda",
    "ios-axe": "ios-wda",
    "IOS_AXE": "ios-wda",
    "playwright-native": "playwright-native",
    "PLAYWRIGHT_NATIVE": "playwright-native",
}
BUILT_IN = ("no:terminal",)


@pytest.mark.parametrize(("name", "key"), sorted(UPSTREAM_KEYS.items()))
def test_upstream_driver_keys_resolve_to_ours(tmp_path: Path, name: str, key: str) -> None:
    drivers = make_project(tmp_path, "", BUILT_IN).drivers
    assert drivers.resolve(name).key == key
    assert drivers.expand(name) == {key}


def test_platform_shorthands_and_missing_drivers_in_lists(tmp_path: Path) -> None:
    drivers = make_project(tmp_path, "", BUILT_IN).drivers
    assert drivers.expand("android") == {"android-uiautomator2", "appium"}  # appium: for Android unless told
    assert drivers.expand("WEB") == {"playwright-native"}
    assert drivers.expand("all") == {"android-uiautomator2", "appium", "ios-wda", "playwright-native"}
    assert drivers.expand("desktop") == frozenset()
    # upstream's drivers this project lacks are valid in lists and match no session
    assert drivers.expand("playwright-electron") == frozenset()
    assert drivers.expand("REVYL_ANDROID") == frozenset()
    with pytest.raises(UsageError, match=r"unknown driver 'android-ondevice-acessibility'"):
        drivers.expand("android-ondevice-acessibility")


def test_naming_a_missing_upstream_driver_says_what_it_is(tmp_path: Path) -> None:
    drivers = make_project(tmp_path, "", BUILT_IN).drivers
    with pytest.raises(UsageError, match=r"'COMPOSE' is upstream's Compose desktop driver, which this project"):
        drivers.resolve("COMPOSE")
    with pytest.raises(UsageError, match=r"unknown driver 'andriod'"):
        drivers.resolve("andriod")


def test_cli_driver_option_takes_upstream_keys(cli: CliRunner, project: Project) -> None:
    project.trail("t", "trail:\n  - step: s\n    recording:\n      android: [{pressBack: {}}]\n")
    ok = cli("validate", "--driver", "android-ondevice-instrumentation")
    assert (ok.returncode, ok.output.strip()) == (0, "1 trail valid")
    bad = cli("validate", "--driver", "android-ondevice-acessibility")
    assert bad.returncode == 3
    assert "unknown driver 'android-ondevice-acessibility'" in bad.output
    assert "Traceback" not in bad.output


def test_a_trail_naming_an_unknown_driver_fails_at_load_with_its_line(cli: CliRunner, project: Project) -> None:
    project.trail(
        "t",
        """
        config:
          devices:
            android: ANDROID_ONDEVICE_ACCESIBILITY
        trail:
          - step: s
            recording:
              android: [{pressBack: {}}]
        """,
    )
    result = cli("validate")
    assert result.returncode == 3
    assert "trails/t.trail.yaml:3:14: config.devices.android: unknown driver 'ANDROID_ONDEVICE_ACCESIBILITY'" in (
        result.output
    )
    run = cli("run", "--driver", "android")  # even when --driver would not use it
    assert run.returncode == 3
    assert "unknown driver 'ANDROID_ONDEVICE_ACCESIBILITY'" in run.output


def test_a_legacy_trail_naming_an_unknown_driver(cli: CliRunner, project: Project) -> None:
    project.trail(
        "legacy",
        """
        - config:
            driver: ANDROID_ONDEVICE_INSTRUMENTATIN
        - tools:
          - pressBack: {}
        """,
    )
    result = cli("validate")
    assert result.returncode == 3
    assert "legacy.trail.yaml:2:13: config.driver: unknown driver 'ANDROID_ONDEVICE_INSTRUMENTATIN'" in result.output


def test_upstream_keys_in_config_devices_pick_our_driver(tmp_path: Path) -> None:
    project = make_project(tmp_path, "", BUILT_IN)
    write(
        tmp_path,
        "trails/t.trail.yaml",
        """
        config:
          devices: {ios-iphone: ios-host, android: android-ondevice-accessibility}
        trail:
          - step: s
            recording:
              android: [{pressBack: {}}]
        """,
    )
    trails, problems = collect_trails(project, [tmp_path / "trails"], {})
    assert problems == []
    assert project.drivers.resolve(project.default_driver_name(None, trails[0])).key == "ios-wda"


def test_a_trail_only_for_missing_drivers_says_so(cli: CliRunner, project: Project) -> None:
    project.trail(
        "electron",
        """
        config:
          devices:
            web: PLAYWRIGHT_ELECTRON
        trail:
          - step: s
            recording:
              web: [{web_navigate: {url: /index.html}}]
        """,
    )
    result = cli("validate")
    assert result.returncode == 3
    assert "electron.trail.yaml:3:5: this trail is for PLAYWRIGHT_ELECTRON (upstream's Electron" in result.output
    assert cli("validate", "--driver", "web").returncode == 0  # chosen explicitly: the web driver runs it


def test_tools_of_missing_drivers_are_named_as_such(cli: CliRunner, project: Project) -> None:
    project.trail("compose", "trail:\n  - step: s\n    recording:\n      desktop: [{compose_click: {testTag: x}}]\n")
    result = cli("validate")
    assert result.returncode == 3
    assert "unknown tool 'compose_click': a tool of COMPOSE (upstream's Compose desktop driver)" in result.output


def test_toolset_drivers_are_checked_with_their_line(tmp_path: Path) -> None:
    project = make_project(
        tmp_path,
        """
        toolsets:
          good:
            drivers: [android-ondevice-accessibility, ios-host, playwright-electron, web]
          bad:
            drivers: [android-ondevice-accesibility]
            default_meta:
              trailblaze/supportedDrivers: [IOS_HOSTT]
        """,
        BUILT_IN,
    )
    with pytest.raises(ErrorList) as caught:
        _ = project.drivers
    lines = str(caught.value).splitlines()
    assert len(lines) == 2
    assert lines[0].endswith(
        "trailblaze.yaml:6:15: unknown driver 'android-ondevice-accesibility' (known: android-uiautomator2, "
        "appium, ios-wda, playwright-native, upstream's driver names, or a platform: android, ios, web, desktop, all)"
    )
    assert "trailblaze.yaml:8:37: unknown driver 'IOS_HOSTT'" in lines[1]


def test_toolsets_match_sessions_by_upstream_driver_keys(tmp_path: Path) -> None:
    from trailblaze.mcpclient.declarations import DriverContext, active_toolsets

    project = make_project(
        tmp_path,
        """
        toolsets:
          mobile: {drivers: [android-ondevice-instrumentation, ios-host], always_enabled: true}
          electron: {drivers: [playwright-electron], always_enabled: true}
          everywhere: {drivers: [all], always_enabled: true}
        """,
        BUILT_IN,
    )
    drivers = project.drivers
    android = DriverContext("android-uiautomator2", "android", expand=drivers.expand)
    web = DriverContext("playwright-native", "web", expand=drivers.expand)
    assert active_toolsets(project.config, android) == ["mobile", "everywhere"]
    assert active_toolsets(project.config, web) == ["everywhere"]


def test_scripts_see_our_drivers_by_upstreams_names() -> None:
    from trailblaze.device.drivernames import upstream_key
    from trailblaze.drivers.android.driver import AndroidDriver
    from trailblaze.drivers.ios.driver import IosDriver
    from trailblaze.drivers.web.driver import PlaywrightDriver

    assert [upstream_key(d.key, d.aliases) for d in (PlaywrightDriver, AndroidDriver, IosDriver)] == [
        "playwright-native",
        "android-ondevice-accessibility",
        "ios-host",
    ]
