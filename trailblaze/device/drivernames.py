"""Upstream Trailblaze's driver vocabulary, and what each name means here.

Upstream names a driver by its ``TrailblazeDriverType`` enum name (``ANDROID_ONDEVICE_ACCESSIBILITY``)
in trail files and by its YAML key (``android-ondevice-accessibility``) in targets, toolsets and
tool metadata, case-insensitively; ``android``, ``ios``, ``web``, ``desktop`` and ``all`` stand for
every driver of a platform (Revyl's cloud drivers excepted, as upstream's ``DriverTypeKey``
does). The drivers of this project carry upstream's names as aliases (see each ``Driver``
class); the table below adds the upstream drivers this project does not have, so that naming one
is a clear message instead of "unknown driver", and so that a toolset listing them alongside
available drivers stays valid.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class UpstreamDriver:
    """A driver of upstream Trailblaze that this project does not implement."""

    enum_name: str
    yaml_key: str
    platform: str
    what: str
    #: tool-name prefixes of tools that only exist on this driver upstream
    tool_prefixes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.enum_name} ({self.what})"


UNAVAILABLE_DRIVERS = (
    UpstreamDriver(
        "PLAYWRIGHT_ELECTRON",
        "playwright-electron",
        "web",
        "upstream's Electron desktop-app driver",
        ("playwright_desktop_",),
    ),
    UpstreamDriver("REVYL_ANDROID", "revyl-android", "android", "upstream's Revyl cloud-device driver", ("revyl_",)),
    UpstreamDriver("REVYL_IOS", "revyl-ios", "ios", "upstream's Revyl cloud-device driver", ("revyl_",)),
    UpstreamDriver("COMPOSE", "compose", "desktop", "upstream's Compose desktop driver", ("compose_",)),
)
#: ``drivers:`` entries that stand for every driver of a platform (``all``: of every platform)
PLATFORM_SHORTHANDS = ("android", "ios", "web", "desktop", "all")

_UNAVAILABLE = {name.lower(): d for d in UNAVAILABLE_DRIVERS for name in (d.enum_name, d.yaml_key)}


def unavailable_driver(name: str) -> UpstreamDriver | None:
    """The upstream driver ``name`` means, when it is one this project does not have."""
    return _UNAVAILABLE.get(name.lower())


def driver_of_tool(tool: str) -> UpstreamDriver | None:
    """The missing upstream driver a tool name belongs to (``compose_click`` → COMPOSE), if any."""
    return next((d for d in UNAVAILABLE_DRIVERS if tool.startswith(d.tool_prefixes)), None)


def is_platform_shorthand(name: str) -> bool:
    return name.lower() in PLATFORM_SHORTHANDS


_YAML_KEY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


def upstream_key(key: str, aliases: Iterable[str]) -> str:
    """What upstream calls one of this project's drivers, as its scripts see it
    (``TRAILBLAZE_DEVICE_DRIVER``, the envelope's ``driverType``): the key itself when upstream has
    a driver of that name (``playwright-native``), else the first of upstream's YAML keys among
    the driver's aliases (``android-uiautomator2`` → ``android-ondevice-accessibility``, upstream's
    default Android driver; ``ios-wda`` → ``ios-host``)."""
    names = list(aliases)
    if key.upper().replace("-", "_") in names:
        return key
    return next((name for name in names if _YAML_KEY.fullmatch(name)), key)


@dataclass(frozen=True, slots=True)
class DriverContext:
    """A session's driver as ``drivers:``/``platforms:`` lists (of toolsets, MCP servers) match
    it: its key, aliases and platform.

    ``expand`` turns a ``drivers:`` entry into the driver keys it stands for (upstream's names
    and platform shorthands included, see :meth:`trailblaze.api.driver.DriverRegistry.expand`);
    without it, entries are compared with the key and aliases as written.
    """

    key: str
    platform: str
    aliases: tuple[str, ...] = ()
    expand: Callable[[str], frozenset[str]] | None = field(default=None, compare=False)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(n.lower() for n in (self.key, *self.aliases))

    def matches(self, drivers: Iterable[str] | None, platforms: Iterable[str] | None) -> bool:
        if drivers is not None and not any(self.is_named(d) for d in drivers):
            return False
        return platforms is None or self.platform.lower() in {p.lower() for p in platforms}

    def is_named(self, name: str) -> bool:
        if self.expand is not None:
            return self.key in self.expand(name)
        return name.lower() in self.names
