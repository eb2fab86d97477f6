"""The appium: section (trailblaze/drivers/appium/settings.py): capability sets, device ids,
${VAR}, secrets, the hub's credentials and the platform trails are planned for."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from trailblaze.core.errors import Location, UsageError
from trailblaze.drivers.appium.settings import (
    AppiumConfig,
    capability_sets,
    device_ids,
    hub,
    merge,
    planned_platform,
    secrets_in,
)

BROWSERSTACK = {
    "platformName": "Android",
    "appium:automationName": "UiAutomator2",
    "bstack:options": {"userName": "${BS_USER}", "accessKey": "${BS_ACCESS_KEY}", "projectName": "shop"},
}
ENV = {"BS_USER": "ada", "BS_ACCESS_KEY": "s3cr3t-key"}


def test_each_device_is_laid_over_the_capabilities_and_vendor_options_merge() -> None:
    config = AppiumConfig(
        capabilities=BROWSERSTACK,
        devices=[
            {"appium:deviceName": "Pixel 8", "appium:platformVersion": "14"},
            {"bstack:options": {"deviceName": "Galaxy S23", "osVersion": "13.0"}},
        ],
    )
    first, second = capability_sets(config, ENV)
    assert (first.id, second.id) == ("Pixel 8 14", "Galaxy S23 13.0")
    assert first.capabilities["bstack:options"] == {"userName": "ada", "accessKey": "s3cr3t-key", "projectName": "shop"}
    assert second.capabilities["bstack:options"]["deviceName"] == "Galaxy S23"
    assert second.capabilities["bstack:options"]["accessKey"] == "s3cr3t-key"
    assert first.platform == second.platform == "android"
    assert merge({"a": 1, "x:options": {"b": 1}}, {"x:options": {"c": 2}, "a": 2}) == {
        "a": 2,
        "x:options": {"b": 1, "c": 2},
    }


def test_two_sets_for_one_model_get_distinct_ids() -> None:
    same = {"appium:deviceName": "Pixel 8"}
    assert device_ids([same, same, same, {}]) == ["Pixel 8", "Pixel 8 #2", "Pixel 8 #3", "device-4"]


def test_a_variable_that_is_not_set_names_itself_and_its_line() -> None:
    config = AppiumConfig(capabilities=BROWSERSTACK)
    seen: list[tuple[str | int, ...]] = []

    def where(path: tuple[str | int, ...]) -> Location:
        seen.append(path)
        return Location("trailblaze.yaml", 7)

    with pytest.raises(UsageError) as caught:
        capability_sets(config, {"BS_USER": "ada"}, where)
    assert "${BS_ACCESS_KEY} is not set" in str(caught.value)
    assert caught.value.location == Location("trailblaze.yaml", 7)
    assert seen[-1] == ("appium", "capabilities", "bstack:options", "accessKey")


def test_credentials_are_secrets_wherever_they_are() -> None:
    config = AppiumConfig(
        capabilities={
            **BROWSERSTACK,
            "sauce:options": {"username": "grace", "accessKey": "literal-key"},
            "appium:app": "${APP_URL}",
            "appium:keystorePassword": "keystore-pass",
        }
    )
    (device,) = capability_sets(config, {**ENV, "APP_URL": "bs://app-id"})
    assert {"s3cr3t-key", "ada", "grace", "literal-key", "keystore-pass"} <= device.secrets
    assert "bs://app-id" not in device.secrets
    assert secrets_in({"LT:Options": {"accessKey": "k-123", "build": "b"}}) == {"k-123"}


def test_the_hubs_credentials_leave_its_url() -> None:
    config = AppiumConfig(url="https://${SAUCE_USERNAME}:${SAUCE_ACCESS_KEY}@ondemand.us-west-1.saucelabs.com/wd/hub")
    found = hub(config, {"SAUCE_USERNAME": "grace", "SAUCE_ACCESS_KEY": "sk-9f8e"})
    assert found.url == "https://ondemand.us-west-1.saucelabs.com/wd/hub"
    assert (found.username, found.password) == ("grace", "sk-9f8e")
    assert {"grace", "sk-9f8e"} <= found.secrets


@pytest.mark.parametrize("url", ["hub.browserstack.com", "ftp://hub", "http://", "http://host:99999"])
def test_a_url_that_is_no_server_is_refused(url: str) -> None:
    with pytest.raises(ValidationError):
        AppiumConfig(url=url)


def test_trails_are_planned_for_the_platform_the_capabilities_ask_for() -> None:
    assert planned_platform(None) == "android"
    assert planned_platform(AppiumConfig(capabilities={"platformName": "iOS"})) == "ios"
    assert planned_platform(AppiumConfig(capabilities={"appium:automationName": "XCUITest"})) == "ios"
    assert planned_platform(AppiumConfig(capabilities={"platformName": "Fake"})) == "android"
    assert planned_platform(AppiumConfig(capabilities={"platformName": "Fake"}, platform="ios")) == "ios"
    lambdatest = {"lt:options": {"platformName": "ios", "deviceName": "iPhone 15"}}
    assert planned_platform(AppiumConfig(capabilities=lambdatest)) == "ios"


def test_sets_for_both_platforms_are_refused() -> None:
    with pytest.raises(ValidationError, match="both Android and iOS"):
        AppiumConfig(devices=[{"platformName": "Android"}, {"platformName": "iOS"}])
