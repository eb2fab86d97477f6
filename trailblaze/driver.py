"""Drivers: how Trailblaze reaches a device. Registered by plugins (``trailblaze_register_drivers``).

A :class:`Driver` is created once per run for one automation mechanism (Playwright,
uiautomator2, WebDriverAgent). It lists devices and opens a :class:`Device` — an implementation
of :class:`~trailblaze.Commands` bound to one device — for each session. Heavy client
libraries are imported inside the driver's methods, never at module import, so the CLI starts
fast.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.commands import Commands, DeviceInfo
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
    """Driver classes by key and alias, with the plugin that registered each."""

    def __init__(self) -> None:
        self._by_name: dict[str, type[Driver]] = {}
        self._sources: dict[str, str] = {}

    def add(self, driver: type[Driver], source: str = "") -> None:
        if not (isinstance(driver, type) and issubclass(driver, Driver)):
            raise TypeError(f"{driver!r} is not a trailblaze.Driver subclass")
        for name in (driver.key, *driver.aliases):
            other = self._by_name.get(name)
            if other is not None and other is not driver:
                raise UsageError(
                    f"driver name {name!r} is registered twice: by {self._sources[other.key]} "
                    f"({other.__name__}) and by {source} ({driver.__name__})"
                )
            self._by_name[name] = driver
        self._sources[driver.key] = source

    def resolve(self, name: str) -> type[Driver]:
        driver = self._by_name.get(name) or self._by_name.get(name.lower())
        if driver is None:
            known = ", ".join(self.keys()) or "none"
            raise UsageError(f"unknown driver {name!r} (known drivers: {known})")
        return driver

    def keys(self) -> list[str]:
        return sorted({d.key for d in self._by_name.values()})

    def drivers(self) -> list[type[Driver]]:
        return sorted({d for d in self._by_name.values()}, key=lambda d: d.key)

    def source(self, key: str) -> str:
        return self._sources.get(key, "")
