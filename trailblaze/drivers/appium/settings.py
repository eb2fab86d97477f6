"""The ``appium:`` section of trailblaze.yaml (declared by the ``appium`` plugin), and the
capability sets it makes::

    appium:
      url: https://hub.browserstack.com/wd/hub      # any Appium server or hub; ${VAR} from the environment
      capabilities:                                 # every session's W3C capabilities
        platformName: Android
        appium:automationName: UiAutomator2
        appium:app: bs://<app-id>
        bstack:options: {userName: "${BROWSERSTACK_USERNAME}", accessKey: "${BROWSERSTACK_ACCESS_KEY}"}
      devices:                                      # optional: one capability set per device
        - {appium:deviceName: Pixel 8, appium:platformVersion: "14"}
        - {appium:deviceName: Galaxy S23}

Each entry of ``devices:`` is laid over ``capabilities:`` (a vendor's options, ``bstack:options``
and the like, are merged key by key), and each set is one device: ``trailblaze devices --driver
appium`` lists them, ``--device``, ``--all-devices`` and the shard options pick among them. A
device's id is its device name and platform version (``Pixel 8 14``), ``#2`` added when two sets
name the same device (two sessions on one model is how a cloud runs shards side by side).

``${VAR}`` is read from the environment when a session starts, not when the file is validated,
so ``trailblaze validate`` needs no credentials; a variable that is not set is an error naming it
and its line (exit 3). Credentials — the values of keys like ``accessKey``, ``password`` or
``token``, a password in the URL, and variables named like ``*_KEY``, ``*TOKEN*`` — are secrets:
masked in every message, report and log (:func:`secrets_of`).

This module needs pydantic only, so validating a project does not import the Appium client.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trailblaze.core.errors import Location, UsageError
from trailblaze.core.interpolate import references
from trailblaze.core.limits import MAX_WAIT_SECONDS

SECTION = "appium"
DEFAULT_URL = "http://127.0.0.1:4723"
#: the services the driver knows the conventions of (session names, dashboards, pass/fail)
Cloud = Literal["browserstack", "saucelabs", "lambdatest", "aws-device-farm", "selenium-grid", "appium"]

#: ``platformName`` (lower case) → the platform trailblaze plans for
PLATFORM_NAMES = {"android": "android", "ios": "ios", "tvos": "ios", "ipados": "ios"}
#: ``automationName`` (lower case) → platform, for a ``platformName`` that says neither
AUTOMATION_NAMES = {"uiautomator2": "android", "espresso": "android", "uiautomator": "android", "xcuitest": "ios"}
#: keys whose string values are credentials (the last part of a ``vendor:key`` name, any case)
_SECRET_KEY = re.compile(r"(access_?key|secret|token|passw|pwd|credential|auth|api_?key|^key$|user_?name|^user$)", re.I)
#: environment variables whose values are credentials, whichever key they fill
_SECRET_VARIABLE = re.compile(r"(KEY|TOKEN|SECRET|PASSW|PWD|CREDENTIAL|AUTH)", re.I)


class AppiumConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        default=DEFAULT_URL,
        description="The Appium server, Selenium Grid or cloud hub; ${VAR} is read from the environment",
    )
    capabilities: dict[str, Any] = Field(
        default_factory=dict, description="W3C capabilities of every session; ${VAR} is read from the environment"
    )
    devices: list[dict[str, Any]] = Field(
        default_factory=list, description="Capability sets, one per device, each laid over capabilities"
    )
    platform: Literal["android", "ios"] | None = Field(
        default=None, description="The platform trails are planned for when platformName says neither Android nor iOS"
    )
    cloud: Cloud | None = Field(
        default=None,
        description="Whose conventions apply (session names, dashboard links, pass/fail); default: from url",
    )
    report_status: bool = Field(
        default=False, description="Send each trail's pass/fail to the cloud (BrowserStack, Sauce Labs, LambdaTest)"
    )
    request_timeout: float = Field(
        default=60.0, gt=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False, description="Seconds one request may take"
    )
    session_start_timeout: float = Field(
        default=300.0,
        gt=0,
        le=MAX_WAIT_SECONDS,
        allow_inf_nan=False,
        description="Seconds starting a session may take (a cloud may queue it until a device is free)",
    )

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        if "${" not in value:
            problem = url_problem(value)
            if problem is not None:
                raise ValueError(problem)
        return value.rstrip("/")

    @model_validator(mode="after")
    def _one_platform(self) -> AppiumConfig:
        named = {p for caps in self.merged() if (p := platform_of(caps, guess=False)) is not None}
        if len(named) > 1:
            raise ValueError(
                "the capability sets are for both Android and iOS: the trails of one run are planned for one "
                "platform; use a trailblaze.yaml per platform (-c FILE)"
            )
        return self

    def merged(self) -> list[dict[str, Any]]:
        """Every capability set as written (``${VAR}`` not read yet): ``devices:`` over ``capabilities:``."""
        return [merge(self.capabilities, device) for device in self.devices] or [dict(self.capabilities)]


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an Appium server's address, if it cannot."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an Appium server URL (like http://127.0.0.1:4723 or https://hub.example.com/wd/hub)"
    try:
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError:
        return f"{url!r} has a port out of range"
    return None


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid on ``base``; a vendor's options (``bstack:options``: a mapping under a
    ``vendor:`` key) merged key by key."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if ":" in key and isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = {**below, **value}
        else:
            merged[key] = value
    return merged


def capability(caps: Mapping[str, Any], name: str) -> Any:
    """A capability by its name with or without ``appium:``, else from a vendor's options
    (``bstack:options.deviceName``, LambdaTest's ``lt:options.platformVersion``)."""
    for key in (name, f"appium:{name}"):
        if caps.get(key) not in (None, ""):
            return caps[key]
    for key, value in caps.items():
        if ":" in key and isinstance(value, Mapping) and value.get(name) not in (None, ""):
            return value[name]
    return None


def platform_of(caps: Mapping[str, Any], *, guess: bool = True) -> str | None:
    """The platform a capability set asks for: its ``platformName``, else (``guess``) what its
    ``automationName`` drives; None when they say neither (``Fake``, ``Windows``, a ``${VAR}``)."""
    name = str(capability(caps, "platformName") or "").lower()
    if name in PLATFORM_NAMES:
        return PLATFORM_NAMES[name]
    if guess:
        return AUTOMATION_NAMES.get(str(capability(caps, "automationName") or "").lower())
    return None


def planned_platform(config: AppiumConfig | None) -> str:
    """The platform trails on the ``appium`` driver are planned for (which tools they get, which
    trails skip): ``platform:``, else what the capability sets ask for, else Android. Each
    session's device then has the platform its page source shows."""
    if config is None:
        return "android"
    if config.platform is not None:
        return config.platform
    found = [p for caps in config.merged() if (p := platform_of(caps)) is not None]
    return found[0] if found else "android"


@dataclass(frozen=True, slots=True)
class CapabilitySet:
    """One device of the section: its id and the capabilities a session on it asks for."""

    id: str
    capabilities: dict[str, Any]
    #: what the capabilities ask for (None: the page source will tell)
    platform: str | None
    #: where the set is written (its ``devices:`` entry, else ``capabilities:``)
    location: Location | None = None
    secrets: frozenset[str] = field(default_factory=frozenset)

    @property
    def model(self) -> str | None:
        name = capability(self.capabilities, "deviceName")
        version = capability(self.capabilities, "platformVersion") or capability(self.capabilities, "osVersion")
        parts = [str(p) for p in (name, version) if p not in (None, "")]
        return " ".join(parts) or None


def device_ids(sets: list[dict[str, Any]]) -> list[str]:
    """Each capability set's id: its device name and platform version (``Pixel 8 14``), else its
    UDID, else ``device-N``; ``#2``, ``#3`` added to the second and third set of one name."""
    ids: list[str] = []
    for number, caps in enumerate(sets, 1):
        name = capability(caps, "deviceName") or capability(caps, "udid")
        version = capability(caps, "platformVersion") or capability(caps, "osVersion")
        base = " ".join(str(p) for p in (name, version) if p not in (None, "")) or f"device-{number}"
        label, count = base, 1
        while label in ids:
            count += 1
            label = f"{base} #{count}"
        ids.append(label)
    return ids


def capability_sets(
    config: AppiumConfig,
    environ: Mapping[str, str] | None = None,
    where: Callable[[tuple[str | int, ...]], Location] | None = None,
) -> list[CapabilitySet]:
    """The section's devices with ``${VAR}`` read from ``environ`` (the process's by default); a
    variable that is not set is a UsageError naming it, at ``where(key_path)``."""
    env = os.environ if environ is None else environ
    base, secrets = _expand(config.capabilities, env, (SECTION, "capabilities"), where)
    entries: list[tuple[dict[str, Any], tuple[str | int, ...], set[str]]] = []
    for index, device in enumerate(config.devices):
        expanded, found = _expand(device, env, (SECTION, "devices", index), where)
        entries.append((merge(base, expanded), (SECTION, "devices", index), secrets | found))
    if not entries:
        entries.append((dict(base), (SECTION, "capabilities"), secrets))
    ids = device_ids([caps for caps, _, _ in entries])
    return [
        CapabilitySet(
            label,
            caps,
            platform_of(caps),
            where(path) if where else None,
            frozenset(s for s in found | secrets_in(caps) if s),
        )
        for label, (caps, path, found) in zip(ids, entries, strict=True)
    ]


def hub(config: AppiumConfig, environ: Mapping[str, str] | None = None, where: Any = None) -> Hub:
    """The section's ``url`` with ``${VAR}`` read, split into the address shown everywhere (no
    credentials) and the credentials it carried."""
    env = os.environ if environ is None else environ
    url, secrets = _expand(config.url, env, (SECTION, "url"), where)
    problem = url_problem(url)
    if problem is not None:
        raise UsageError(problem, where((SECTION, "url")) if where else None)
    parts = urlsplit(url)
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    netloc = parts.hostname or ""
    if ":" in netloc:  # an IPv6 address
        netloc = f"[{netloc}]"
    if parts.port is not None:
        netloc += f":{parts.port}"
    shown = urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")).rstrip("/")
    if password:
        secrets.add(password)
    if user and password:
        secrets.add(user)
    return Hub(shown, user or None, password or None, frozenset(s for s in secrets if s))


@dataclass(frozen=True, slots=True)
class Hub:
    """Where sessions are asked for: ``url`` without credentials, and the credentials."""

    url: str
    username: str | None = None
    password: str | None = None
    secrets: frozenset[str] = field(default_factory=frozenset)


def secrets_in(caps: Any, key: str = "") -> set[str]:
    """The string values of credential keys (``accessKey``, ``password``, ``token``…), at any depth."""
    found: set[str] = set()
    if isinstance(caps, Mapping):
        for name, value in caps.items():
            found |= secrets_in(value, str(name).rsplit(":", 1)[-1])
    elif isinstance(caps, list):
        for value in caps:
            found |= secrets_in(value, key)
    elif isinstance(caps, str) and key and _SECRET_KEY.search(key):
        found.add(caps)
    return found


def _expand(
    value: Any,
    environ: Mapping[str, str],
    path: tuple[str | int, ...],
    where: Callable[[tuple[str | int, ...]], Location] | None,
) -> tuple[Any, set[str]]:
    """``value`` with every ``${VAR}`` replaced; the values of secret-named variables."""
    secrets: set[str] = set()

    def visit(item: Any, at: tuple[str | int, ...]) -> Any:
        if isinstance(item, Mapping):
            return {k: visit(v, (*at, k)) for k, v in item.items()}
        if isinstance(item, list):
            return [visit(v, (*at, i)) for i, v in enumerate(item)]
        if not isinstance(item, str) or "${" not in item:
            return item
        text = item
        for ref in references(item):
            if ref.namespace != "env":
                continue
            if ref.name not in environ:
                raise UsageError(
                    f"appium: ${{{ref.name}}} is not set in the environment (it fills {'.'.join(map(str, at))})",
                    where(at) if where else None,
                )
            found = environ[ref.name]
            if _SECRET_VARIABLE.search(ref.name):
                secrets.add(found)
            text = text.replace(ref.text, found)
        return text

    return visit(value, path), secrets
