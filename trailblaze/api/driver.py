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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.core.errors import Location, UsageError
from trailblaze.core.registry import Registry
from trailblaze.device.commands import Commands, DeviceInfo
from trailblaze.device.drivernames import PLATFORM_SHORTHANDS, is_platform_shorthand, unavailable_driver

if TYPE_CHECKING:
    from trailblaze.project.config import Config
    from trailblaze.trail.model import Step, Trail


@dataclass(slots=True)
class DriverOptions:
    """What the run asks of every driver. A driver's own settings (the web driver's
    ``--headed`` and ``browser:``, the mobile drivers' ``settle_timeout:``) are its plugin's:
    it reads them from ``config`` (``config.getoption``, ``config.getini``,
    ``config.section``), which is None for a driver made outside a project."""

    timeout: float = 10.0
    artifacts_dir: Path | None = None
    config: Config | None = None


class Device(Commands):
    """One connected device, for one session. Implements the :class:`Commands` API."""

    device: DeviceInfo
    #: the URL ``/path`` navigation joins (web: ``base_url``, set per session for its app
    #: target); None on devices without one. Tools see it as ``ctx.base_url``.
    base_url: str | None = None
    #: the tools the generic ``tap`` / ``assertVisible`` delegate to on this driver
    selector_tap_tool: ClassVar[str] = "tapOnElementBySelector"
    selector_assert_tool: ClassVar[str] = "assertVisibleBySelector"

    async def start_trail(self, trail: Trail) -> None:
        """Called before each trail: isolate it from the previous one (web: a fresh context)."""

    async def end_trail(self, trail: Trail) -> None:
        """Called after each trail, passed or not."""

    async def start_step(self, step: Step, title: str) -> None:
        """Called before each step a trail replays, with the title reports show for it
        (web: the trace groups the step's actions under it)."""

    async def end_step(self, step: Step) -> None:
        """Called after each step, passed or not."""

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
    #: modules the driver imports when it runs (its client library), and the extra of the
    #: ``trailblaze`` distribution that installs them (``pip install 'trailblaze[android]'``)
    requires: ClassVar[tuple[str, ...]] = ()
    extra: ClassVar[str | None] = None
    #: the driver a trail runs on when nothing names one (``--driver``, trailblaze.yaml, the
    #: trail's ``devices:``): the first registered driver that says so (the web driver does)
    fallback: ClassVar[bool] = False

    def __init__(self, options: DriverOptions) -> None:
        self.options = options

    @classmethod
    def missing_module(cls) -> str | None:
        """The first module of :attr:`requires` that is not installed, or None. Checked without
        importing anything."""
        import importlib.util

        for module in cls.requires:
            try:
                found = importlib.util.find_spec(module) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                return module
        return None

    @classmethod
    def install_command(cls, module: str) -> str:
        """What installs ``module`` for this driver: its extra of ``trailblaze`` when it has one."""
        return f"pip install 'trailblaze[{cls.extra}]'" if cls.extra else f"pip install {module}"

    @classmethod
    def missing_requirement(cls) -> str | None:
        """Why this driver cannot run here (a module of :attr:`requires` is not installed,
        and how to install it), or None. Checked without importing anything."""
        module = cls.missing_module()
        if module is None:
            return None
        return (
            f"the {cls.key} driver needs the {module} package, which is not installed: "
            f"{cls.install_command(module)}; `trailblaze doctor` checks the install"
        )

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


class DriverRegistry(Registry[type[Driver]]):
    """Driver classes by key and alias (case-insensitive, as upstream matches driver names), with
    the plugin that registered each."""

    kind = "driver"
    metavar = "KEY"
    case_sensitive = False

    def names_of(self, item: type[Driver]) -> Iterable[str]:
        return (item.key, *item.aliases)

    def check(self, item: Any) -> type[Driver]:
        if not (isinstance(item, type) and issubclass(item, Driver)):
            raise TypeError(f"{item!r} is not a trailblaze.Driver subclass")
        return item

    def describe(self, item: type[Driver], source: str) -> str:
        return f"{source or '?'} ({item.__name__})"

    def resolve(self, name: str, location: Location | None = None) -> type[Driver]:
        """The driver ``name`` means; a name that means none is an error that says why."""
        driver = self.get(name)
        if driver is not None:
            return driver
        missing = unavailable_driver(name)
        if missing is not None:
            raise UsageError(
                f"driver {name!r} is {missing.what}, which this project does not have "
                f"(drivers here: {', '.join(self.keys()) or 'none'})",
                location,
            )
        known = ", ".join(self.keys()) or "none"
        raise UsageError(f"unknown driver {name!r} (known drivers: {known}, or upstream's names for them)", location)

    def require(self, name: str, location: Location | None = None) -> type[Driver]:
        """The driver ``name`` means, ready to run here: one whose client library is missing is
        an error naming the ``pip install`` that adds it (exit 3)."""
        driver = self.resolve(name, location)
        missing = driver.missing_requirement()
        if missing is not None:
            raise UsageError(missing, location)
        return driver

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
        return self.names()

    def drivers(self) -> list[type[Driver]]:
        return sorted(self.items(), key=lambda d: d.key)
