"""Each service's conventions (trailblaze/drivers/appium/clouds.py): which it is, where a session's
name goes, its dashboard page, the scripts that rename it and tell it pass or fail."""

from __future__ import annotations

import json

import pytest

from trailblaze.drivers.appium.clouds import cloud_for


@pytest.mark.parametrize(
    ("url", "caps", "expected"),
    [
        ("https://hub.browserstack.com/wd/hub", {}, "browserstack"),
        ("https://hub-cloud.browserstack.com/wd/hub", {}, "browserstack"),
        ("https://ondemand.eu-central-1.saucelabs.com:443/wd/hub", {}, "saucelabs"),
        ("https://mobile-hub.lambdatest.com/wd/hub", {}, "lambdatest"),
        ("http://proxy.internal:4444", {"LT:Options": {}}, "lambdatest"),
        ("http://proxy.internal:4444", {"bstack:options": {}}, "browserstack"),
        ("http://127.0.0.1:4723", {}, "appium"),
        ("https://evilbrowserstack.com/wd/hub", {}, "appium"),
    ],
)
def test_the_service_is_known_by_its_host_or_its_vendor_options(
    url: str, caps: dict[str, object], expected: str
) -> None:
    assert cloud_for(None, url, caps).name == expected


def test_a_configured_service_wins() -> None:
    assert cloud_for("selenium-grid", "http://127.0.0.1:4444", {"bstack:options": {}}).name == "selenium-grid"


def test_session_names_go_where_each_service_reads_them() -> None:
    caps = {"platformName": "Android", "bstack:options": {"accessKey": "k"}}
    assert cloud_for("browserstack", "", caps).named(caps, "Sign in")["bstack:options"] == {
        "accessKey": "k",
        "sessionName": "Sign in",
    }
    assert cloud_for("saucelabs", "", {}).named({}, "Sign in") == {"sauce:options": {"name": "Sign in"}}
    lambdatest = {"LT:Options": {"build": "b"}}
    assert cloud_for("lambdatest", "", {}).named(lambdatest, "Sign in") == {
        "LT:Options": {"build": "b", "name": "Sign in"}
    }
    assert cloud_for("selenium-grid", "", {}).named({}, "Sign in") == {"se:name": "Sign in"}
    assert cloud_for("appium", "", {}).named({"a": 1}, "Sign in") == {"a": 1}
    given = {"sauce:options": {"name": "mine"}}
    assert cloud_for("saucelabs", "", {}).named(given, "Sign in") == given


def test_pass_and_fail_scripts() -> None:
    browserstack = cloud_for("browserstack", "", {}).status_script(False, "step 2: Submit is not visible")
    assert browserstack is not None and browserstack.startswith("browserstack_executor: ")
    assert json.loads(browserstack.partition(": ")[2]) == {
        "action": "setSessionStatus",
        "arguments": {"status": "failed", "reason": "step 2: Submit is not visible"},
    }
    assert cloud_for("saucelabs", "", {}).status_script(True, None) == "sauce:job-result=passed"
    assert cloud_for("lambdatest", "", {}).status_script(False, "x") == "lambda-status=failed"
    assert cloud_for("selenium-grid", "", {}).status_script(True, None) is None
    assert cloud_for("saucelabs", "", {}).rename_script("Sign in") == "sauce:job-name=Sign in"


def test_dashboard_pages() -> None:
    assert (
        cloud_for("browserstack", "", {}).dashboard("abc", "https://hub.browserstack.com/wd/hub")
        == "https://app-automate.browserstack.com/dashboard/v2/sessions/abc"
    )
    sauce = cloud_for("saucelabs", "", {})
    assert sauce.dashboard("abc", "https://ondemand.eu-central-1.saucelabs.com/wd/hub") == (
        "https://app.eu-central-1.saucelabs.com/tests/abc"
    )
    assert sauce.dashboard("abc", "https://ondemand.us-west-1.saucelabs.com/wd/hub") == (
        "https://app.saucelabs.com/tests/abc"
    )
    assert cloud_for("lambdatest", "", {}).dashboard("abc", "") is None
