"""Fixtures for the appium driver's tests: the stand-in Appium server (its UiAutomator2 driver on
the fake phone), a project whose ``appium:`` section points at it, and the driver opened in
process through that project's plugins."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.standins.android_phone import FakeAndroid
from tests.standins.appium_server import AppiumStandIn
from tests.support.cli import Project

ANDROID_CAPS = """\
    platformName: Android
    appium:automationName: UiAutomator2
"""


@pytest.fixture
def appium(phone: FakeAndroid) -> Iterator[AppiumStandIn]:
    """A stand-in Appium server whose one device is ``phone``."""
    with AppiumStandIn(phone) as server:
        yield server


def appium_section(url: str, capabilities: str = ANDROID_CAPS, extra: str = "") -> str:
    """trailblaze.yaml with an ``appium:`` section (``capabilities`` and ``extra`` indented as
    under it)."""
    caps = textwrap.indent(textwrap.dedent(capabilities), "    ")
    more = textwrap.indent(textwrap.dedent(extra), "  ") if extra else ""
    return f"timeout: 5\nappium:\n  url: {url}\n  capabilities:\n{caps}{more}"


def use_appium(project: Project, url: str, capabilities: str = ANDROID_CAPS, extra: str = "") -> Path:
    return project.write("trailblaze.yaml", appium_section(url, capabilities, extra))


def open_driver(root: Path, **options: Any) -> Any:
    """The ``appium`` driver as a run makes it, for the project at ``root``."""
    from trailblaze.api.driver import DriverOptions
    from trailblaze.runner.project import load_project

    project = load_project(root / "trailblaze.yaml", autoload=False)
    driver_class = project.drivers.require("appium")
    return driver_class(DriverOptions(timeout=options.get("timeout", 5), config=project.config))
