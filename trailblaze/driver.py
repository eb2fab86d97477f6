"""Drivers: how Trailblaze reaches a device. Registered by plugins (``trailblaze_register_drivers``).

A :class:`Driver` is created once per run for one automation mechanism (Playwright,
uiautomator2, WebDriverAgent). It lists devices and opens a :class:`Device` — an implementation
of :class:`~trailblaze.Commands` bound to one device — for each session. Heavy client
libraries are imported inside the driver's methods, never at module import, so the CLI starts
fast.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.commands import Commands, DeviceInfo
from trailblaze.drivernames import PLATFORM_SHORTHANDS, is_platform_shorthand, unavailable_driver
from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.trail.model import Trail


@dataclass(slots=True)
class DriverOptions:
    """What the run asks of a driver. ``extra`` carries driver-specific settings."""

    timeout: float = 10.0
    headless: bool = True
    browser: str | None = None
    base_url: str | None = None
    artifacts_dir: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: mobile: seconds an action waits for two equal hierarchies in a row (0: do not settle)
    settle_timeout: float = 2.0


class Device(Commands):
    """One connected device, for one session. Implements the :class:`Commands` API."""

    device: DeviceInfo
    #: the tools the generic ``tap`` / ``assertVisible`` delegate to on this driver
    selector_tap_tool: ClassVar[str] = "tapOnElementBySelector"
    selector_assert_tool: ClassVar[str] = "assertVisibleBySelector"

    async def start_trail(self, trail: Trail) -> None:
        """Called before each trail: isolate it from the previous one (web: a fresh context)."""

    async def end_trail(self, trail: Trail) -> None:
        """Called after each trail, passed or not."""

    async def close(self) -> None:
        """Release the device (the session is over)."""


class Driver(abc.ABC):
    """An automation mechanism. Subclasses set ``key`` (e.g. ``playwright-native``), ``aliases``
    (upstream names like ``PLAYWRIGHT_NATIVE``) and ``platform`` (``web``/``android``/``ios``)."""

    key: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    platform: ClassVar[str]
    description: ClassVar[str] = ""
    #: How many sessions one device can host at once (web: many browser contexts).
    sessions_per_device: ClassVar[int] = 1
    #: what ``trailblaze devices`` says when :meth:`devices` finds none: how to make one known
    no_devices: ClassVar[str] = "no devices found"

    def __init__(self, options: DriverOptions) -> None:
        self.options = options

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Acquire what every session shares (web: launch the browser). Called once, lazily."""

    @abc.abstractmethod
    async def devices(self) -> list[DeviceInfo]:
        """Devices this driver can reach now (``trailblaze devices``)."""

    @abc.abstractmethod
    async def open(self, device_id: str | None) -> Device:
        """Connect to ``device_id`` (None: the default one) for a new session."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release what :meth:`start` acquired."""


class DriverRegistry:
    """Driver classes by key and alias (case-insensitive, as upstream matches driver names), with
    the plugin that registered each."""

    def __init__(self) -> None:
        self._by_name: dict[str, type[Driver]] = {}
        self._sources: dict[str, str] = {}

    def add(self, driver: type[Driver], source: str = "") -> None:
        if not (isinstance(driver, type) and issubclass(driver, Driver)):
            raise TypeError(f"{driver!r} is not a trailblaze.Driver subclass")
        for name in (driver.key, *driver.aliases):
            other = self._by_name.get(name.lower())
            if other is not None and other is not driver:
                raise UsageError(
                    f"driver name {name!r} is registered twice: by {self._sources[other.key]} "
                    f"({other.__name__}) and by {source} ({driver.__name__})"
                )
            self._by_name[name.lower()] = driver
        self._sources[driver.key] = source

    def get(self, name: str) -> type[Driver] | None:
        """The driver ``name`` (a key or an alias, any case) means, or None."""
        return self._by_name.get(name.lower())

    def resolve(self, name: str) -> type[Driver]:
        """The driver ``name`` means; a name that means none is an error that says why."""
        driver = self.get(name)
        if driver is not None:
            return driver
        missing = unavailable_driver(name)
        if missing is not None:
            raise UsageError(
                f"driver {name!r} is {missing.what}, which this project does not have "
                f"(drivers here: {', '.join(self.keys()) or 'none'})"
            )
        known = ", ".join(self.keys()) or "none"
        raise UsageError(f"unknown driver {name!r} (known drivers: {known}, or upstream's names for them)")

    def expand(self, name: str) -> frozenset[str]:
        """The driver keys a ``drivers:`` entry stands for: one driver by key or alias, every
        driver of a platform (``android``, ``ios``, ``web``, ``desktop``, ``all``), or none for an
        upstream driver this project does not have. Unknown names are an error (UsageError)."""
        lowered = name.lower()
        if is_platform_shorthand(lowered):
            return frozenset(d.key for d in self.drivers() if lowered in ("all", d.platform))
        driver = self.get(name)
        if driver is not None:
            return frozenset({driver.key})
        if unavailable_driver(name) is not None:
            return frozenset()
        known = ", ".join(self.keys()) or "none"
        raise UsageError(
            f"unknown driver {name!r} (known: {known}, upstream's driver names, or a platform: "
            f"{', '.join(PLATFORM_SHORTHANDS)})"
        )

    def expand_all(self, names: Iterable[str]) -> frozenset[str]:
        keys: set[str] = set()
        for name in names:
            keys |= self.expand(name)
        return frozenset(keys)

    def keys(self) -> list[str]:
        return sorted({d.key for d in self._by_name.values()})

    def drivers(self) -> list[type[Driver]]:
        return sorted({d for d in self._by_name.values()}, key=lambda d: d.key)

    def source(self, key: str) -> str:
        return self._sources.get(key, "")
