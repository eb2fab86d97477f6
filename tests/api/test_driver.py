"""Drivers are plugins with their own dependencies: a driver whose extra is not installed is a
clear error naming the ``pip install`` that adds it (exit 3), never an ImportError."""

from __future__ import annotations

import json
from typing import ClassVar

from tests.support.cli import CliRunner, Project
from trailblaze.api.driver import Device, Driver
from trailblaze.device.commands import DeviceInfo
from trailblaze.drivers.web.driver import PlaywrightDriver

WITHOUT_ANDROID = ("-p", "tests.support.without_android")
MISSING = (
    "the android-uiautomator2 driver needs the uiautomator2 package, which is not installed: "
    "pip install 'trailblaze[android]'; `trailblaze doctor` checks the install"
)


class Fancy(Driver):
    key: ClassVar[str] = "fancy"
    platform: ClassVar[str] = "web"
    requires: ClassVar[tuple[str, ...]] = ("trailblaze", "no_such_module_anywhere")
    extra: ClassVar[str | None] = "fancy"

    async def devices(self) -> list[DeviceInfo]:
        return []

    async def open(self, device_id: str | None) -> Device:
        raise NotImplementedError


def test_a_missing_requirement_names_the_extra() -> None:
    assert PlaywrightDriver.missing_requirement() is None  # the web driver comes with trailblaze
    assert Fancy.missing_requirement() == (
        "the fancy driver needs the no_such_module_anywhere package, which is not installed: "
        "pip install 'trailblaze[fancy]'; `trailblaze doctor` checks the install"
    )


def test_asking_for_a_driver_whose_extra_is_missing_is_misuse(cli: CliRunner, project: Project) -> None:
    project.trail("phone", "trail:\n  - step: Back\n    recording:\n      android: [{pressBack: {}}]\n")
    named = cli("run", "--driver", "android", *WITHOUT_ANDROID)
    assert (named.returncode, named.stderr) == (3, f"error: {MISSING}\n")
    assert cli("validate", "--driver", "android", *WITHOUT_ANDROID).stderr == f"error: {MISSING}\n"
    project.trail(
        "declared",
        """
        config:
          devices: {android: android}
        trail:
          - step: Back
            recording:
              android: [{pressBack: {}}]
        """,
    )
    declared = cli("run", "trails/declared.trail.yaml", *WITHOUT_ANDROID)
    assert declared.returncode == 3
    assert declared.stderr == f"error: trails/declared.trail.yaml: {MISSING}\n"


def test_devices_says_which_drivers_cannot_run_here(cli: CliRunner, project: Project) -> None:
    result = cli("devices", "--json", "--driver", "android", *WITHOUT_ANDROID)
    assert result.returncode == 0, result.output
    assert json.loads(result.stdout) == [{"driver": "android-uiautomator2", "platform": "android", "error": MISSING}]
