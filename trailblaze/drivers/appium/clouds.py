"""What each device cloud expects of an Appium client beyond the protocol: where a session's name
goes, where its dashboard page is, how a test's pass or fail is told.

* BrowserStack: the name goes into ``bstack:options.sessionName``; the dashboard page is
  app-automate.browserstack.com's; pass/fail is ``browserstack_executor: setSessionStatus``.
* Sauce Labs: ``sauce:options.name``; app.saucelabs.com/tests/ID (the hub's region's site);
  ``sauce:job-result=passed``.
* LambdaTest: ``lt:options.name``; no page from the session's id (LambdaTest's pages use an id
  of their own); ``lambda-status=passed``.
* Selenium Grid 4: ``se:name``; nothing else.
* AWS Device Farm (its custom Appium environment) and Appium itself: nothing of the kind.

The service is ``cloud:`` in the ``appium:`` section, else recognised from the hub's host, else
from a vendor's options among the capabilities (a hub behind a proxy), else ``appium``. A session
that already exists (the first of a device: it opens before the device knows its first trail) is
renamed the cloud's way where it has one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

#: hosts (suffixes) of the services' hubs
_HOSTS = (
    ("browserstack.com", "browserstack"),
    ("saucelabs.com", "saucelabs"),
    ("lambdatest.com", "lambdatest"),
)
#: capability keys (lower case) that only one service reads
_VENDOR_KEYS = {"bstack:options": "browserstack", "sauce:options": "saucelabs", "lt:options": "lambdatest"}
#: how long a name or a reason may be (LambdaTest's remark: 255 characters; the others are similar)
MAX_TEXT = 250


@dataclass(frozen=True, slots=True)
class Cloud:
    """One service's conventions."""

    name: str
    title: str

    def named(self, caps: Mapping[str, Any], name: str) -> dict[str, Any]:
        """``caps`` asking for a session called ``name``, where this service reads one from them
        (a name already given in the capabilities stays)."""
        named = dict(caps)
        text = name[:MAX_TEXT]
        if self.name == "selenium-grid":
            named.setdefault("se:name", text)
            return named
        field = {"browserstack": ("bstack:options", "sessionName"), "saucelabs": ("sauce:options", "name")}.get(
            self.name
        )
        if self.name == "lambdatest":
            key = next((k for k in named if k.lower() == "lt:options"), "lt:options")
            field = (key, "name")
        if field is not None:
            key, inner = field
            options = dict(named.get(key) or {})
            options.setdefault(inner, text)
            named[key] = options
        return named

    def rename_script(self, name: str) -> str | None:
        """The script that renames a running session, where the service has one."""
        text = name[:MAX_TEXT]
        if self.name == "browserstack":
            return _executor("setSessionName", {"name": text})
        if self.name == "saucelabs":
            return f"sauce:job-name={text}"
        if self.name == "lambdatest":
            return f"lambda-name={text}"
        return None

    def status_script(self, passed: bool, reason: str | None) -> str | None:
        """The script that marks the session passed or failed, where the service has one."""
        status = "passed" if passed else "failed"
        if self.name == "browserstack":
            arguments = {"status": status, **({"reason": reason[:MAX_TEXT]} if reason else {})}
            return _executor("setSessionStatus", arguments)
        if self.name == "saucelabs":
            return f"sauce:job-result={status}"
        if self.name == "lambdatest":
            return f"lambda-status={status}"
        return None

    def dashboard(self, session_id: str, hub_url: str) -> str | None:
        """The page of the session on the service's site, where one is known from its id."""
        if self.name == "browserstack":
            return f"https://app-automate.browserstack.com/dashboard/v2/sessions/{session_id}"
        if self.name == "saucelabs":
            host = urlsplit(hub_url).hostname or ""
            region = host.removeprefix("ondemand.").removesuffix(".saucelabs.com")
            site = (
                "app.saucelabs.com" if region in ("", "saucelabs.com", "us-west-1") else f"app.{region}.saucelabs.com"
            )
            return f"https://{site}/tests/{session_id}"
        return None


CLOUDS = {
    cloud.name: cloud
    for cloud in (
        Cloud("browserstack", "BrowserStack"),
        Cloud("saucelabs", "Sauce Labs"),
        Cloud("lambdatest", "LambdaTest"),
        Cloud("aws-device-farm", "AWS Device Farm"),
        Cloud("selenium-grid", "Selenium Grid"),
        Cloud("appium", "Appium"),
    )
}


def cloud_for(configured: str | None, hub_url: str, caps: Mapping[str, Any]) -> Cloud:
    """The service: ``configured``, else by the hub's host, else by a vendor's options."""
    if configured is not None:
        return CLOUDS[configured]
    host = (urlsplit(hub_url).hostname or "").lower()
    for suffix, name in _HOSTS:
        if host == suffix or host.endswith("." + suffix):
            return CLOUDS[name]
    for key in caps:
        found = _VENDOR_KEYS.get(str(key).lower())
        if found is not None:
            return CLOUDS[found]
    return CLOUDS["appium"]


def _executor(action: str, arguments: dict[str, Any]) -> str:
    return "browserstack_executor: " + json.dumps({"action": action, "arguments": arguments})
