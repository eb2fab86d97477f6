"""``appium``: phones behind an Appium server — a device cloud's hub (BrowserStack, Sauce Labs,
LambdaTest), AWS Device Farm's, a Selenium Grid 4 with Appium nodes, or a local ``appium``.

Which hub and which devices: the ``appium:`` section of trailblaze.yaml (:mod:`.settings`): its
``url``, its ``capabilities`` and, optionally, one capability set per device under ``devices:``.
``--device ID`` picks a set by its id (``trailblaze devices --driver appium`` lists them and what
the hub's ``/status`` says), none picks the first; ``--all-devices`` and the shard options use
them all. Each trail runs in an Appium session of its own (:mod:`.sessions`).

Which platform: trails are planned for the platform the capability sets ask for (their
``platformName``, else ``platform:``, else Android), so they get that platform's tools and
recordings; each device then has the platform its session reports, or, for a ``platformName``
that is neither Android nor iOS, the one its page source's shape shows. One run is for one
platform: a section whose sets name both is refused.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.api.driver import Driver, DriverOptions
from trailblaze.core.errors import UsageError
from trailblaze.device import masking
from trailblaze.device.commands import DeviceInfo
from trailblaze.drivers.appium.device import DRIVER_KEY, AppiumDevice
from trailblaze.drivers.appium.settings import SECTION
from trailblaze.drivers.mobile.settings import settle_timeout as mobile_settings
from trailblaze.drivers.mobile.worker import DeviceWorker

if TYPE_CHECKING:
    from trailblaze.core.errors import Location
    from trailblaze.drivers.appium.settings import AppiumConfig, CapabilitySet, Hub

#: seconds ``trailblaze devices`` waits for a hub's ``/status``
STATUS_TIMEOUT = 5.0


class AppiumDriver(Driver):
    key: ClassVar[str] = DRIVER_KEY
    platform: ClassVar[str] = "android"
    description: ClassVar[str] = "phones in device clouds, Selenium Grid or on a local Appium server"
    no_devices: ClassVar[str] = (
        "the appium: section of trailblaze.yaml names the hub (url:) and the devices (capabilities:, and "
        "devices: for several); the hub must answer at its /status"
    )
    requires: ClassVar[tuple[str, ...]] = ("appium", "selenium")
    extra: ClassVar[str | None] = "appium"

    def __init__(self, options: DriverOptions, *, settle_timeout: float | None = None) -> None:
        super().__init__(options)
        #: seconds an action waits for the screen to stop changing (``settle_timeout:``)
        self.settle_timeout = settle_timeout if settle_timeout is not None else mobile_settings(options.config)

    @classmethod
    def for_platform(cls, platform: str) -> type[AppiumDriver]:
        """The driver class for a project whose trails are planned for ``platform``."""
        return _planned_for(platform)

    # -- the section ------------------------------------------------------------------------------

    def section(self) -> AppiumConfig | None:
        """The ``appium:`` section, or None when the file has none (or it is not declared)."""
        config = self.options.config
        if config is None or getattr(config.project, SECTION, None) is None:
            return None
        try:
            found: AppiumConfig = config.section(SECTION)
        except ValueError:
            return None
        return found

    def _where(self, key_path: tuple[str | int, ...]) -> Location:
        config = self.options.config
        assert config is not None
        return config.location(key_path)

    def capability_sets(self, section: AppiumConfig) -> list[CapabilitySet]:
        from trailblaze.drivers.appium.settings import capability_sets

        return capability_sets(section, where=self._where)

    def hub(self, section: AppiumConfig) -> Hub:
        from trailblaze.drivers.appium.settings import hub

        return hub(section, where=self._where)

    # -- listing ------------------------------------------------------------------------------------

    async def devices(self) -> list[DeviceInfo]:
        """The capability sets, each with what the hub's ``/status`` says (Selenium Grid: whether
        a node offers its platform and device)."""
        section = self.section()
        if section is None:
            return []
        sets = self.capability_sets(section)
        hub = self.hub(section)
        status = await asyncio.to_thread(_status, hub)
        return [
            DeviceInfo(
                id=device.id,
                platform=device.platform or self.platform,
                driver=DRIVER_KEY,
                model=device.model,
                classifiers=(device.platform or self.platform,),
                state=_state(status, device.capabilities, hub),
            )
            for device in sets
        ]

    # -- opening ------------------------------------------------------------------------------------

    async def open(self, device_id: str | None) -> AppiumDevice:
        from trailblaze.drivers.appium.clouds import cloud_for
        from trailblaze.drivers.appium.sessions import Sessions, Timeouts

        section = self.section()
        if section is None:
            raise UsageError(
                "the appium driver needs an appium: section in trailblaze.yaml: the hub's url: and the "
                "capabilities: of a session (docs: Device clouds)"
            )
        sets = self.capability_sets(section)
        device = _pick(sets, device_id)
        hub = self.hub(section)
        sessions = Sessions(
            hub,
            device,
            cloud_for(section.cloud, hub.url, device.capabilities),
            Timeouts(request=section.request_timeout, start=section.session_start_timeout),
            report_status=section.report_status,
        )
        masking.keep(set(), *sessions.secrets)  # every log of the process masks them from now on
        from trailblaze.drivers.appium.client import mask_client_logs

        mask_client_logs()
        info = DeviceInfo(
            id=device.id, platform=device.platform or self.platform, driver=DRIVER_KEY, model=device.model
        )
        worker = DeviceWorker(f"appium-{device.id}")
        phone = AppiumDevice(info, worker, sessions, timeout=self.options.timeout, settle_timeout=self.settle_timeout)
        try:
            await worker.run(phone.begin, None)
        except BaseException:
            await asyncio.to_thread(sessions.abandon)
            worker.close()
            raise
        return phone


@functools.cache
def _planned_for(platform: str) -> type[AppiumDriver]:
    if platform == AppiumDriver.platform:
        return AppiumDriver
    return type("AppiumDriver", (AppiumDriver,), {"platform": platform, "__module__": __name__})


def _pick(sets: list[CapabilitySet], wanted: str | None) -> CapabilitySet:
    if wanted is None:
        return sets[0]
    for device in sets:
        if device.id == wanted:
            return device
    folded = [d for d in sets if d.id.casefold() == wanted.casefold()]
    if len(folded) == 1:
        return folded[0]
    known = ", ".join(repr(d.id) for d in sets)
    raise UsageError(
        f"no device {wanted!r} in the appium: section (its devices: {known}; `trailblaze devices --driver appium`)"
    )


def _status(hub: Hub) -> dict[str, Any] | str:
    """The hub's ``/status`` value, or why there is none."""
    import httpx

    auth = (hub.username, hub.password) if hub.username and hub.password else None
    try:
        response = httpx.get(f"{hub.url}/status", auth=auth, timeout=STATUS_TIMEOUT, follow_redirects=True)
        body = response.json()
    except httpx.TimeoutException:
        return f"unreachable (no answer within {STATUS_TIMEOUT:g} s)"
    except httpx.HTTPError as exc:
        text = " ".join(str(exc).split())
        return "unreachable (connection refused)" if "refused" in text.lower() else f"unreachable ({text[:200]})"
    except ValueError:
        return "unreachable (its /status is not JSON)"
    value = body.get("value") if isinstance(body, dict) else None
    return value if isinstance(value, dict) else "unreachable (no status)"


def _state(status: dict[str, Any] | str, caps: dict[str, Any], hub: Hub) -> str:
    """``available``, or why not: the hub does not answer, says it is not ready, or (Selenium
    Grid) has no node whose slots offer the set's platform and device."""
    if isinstance(status, str):
        return status
    if status.get("ready") is False:
        said = masking.redact(str(status.get("message") or "not ready"), hub.secrets)
        return f"not ready: {said}"
    nodes = status.get("nodes")
    if isinstance(nodes, list) and nodes and not any(_offers(node, caps) for node in nodes):
        return "no Grid node offers it"
    return "available"


def _offers(node: Any, caps: dict[str, Any]) -> bool:
    from trailblaze.drivers.appium.settings import capability

    if not isinstance(node, dict):
        return False
    for slot in node.get("slots") or []:
        stereotype = slot.get("stereotype") if isinstance(slot, dict) else None
        if not isinstance(stereotype, dict):
            continue
        matches = True
        for name in ("platformName", "deviceName", "platformVersion"):
            wanted, offered = capability(caps, name), capability(stereotype, name)
            if wanted is not None and offered is not None and str(wanted).lower() != str(offered).lower():
                matches = False
        if matches:
            return True
    return False
