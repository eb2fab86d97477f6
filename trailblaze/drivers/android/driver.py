"""``android-uiautomator2``: Android devices through uiautomator2 over adbutils.

Which device: ``--device SERIAL`` (or ``device:`` in trailblaze.yaml), else ``ANDROID_SERIAL``,
else the only device the adb server lists (several: pick one with ``--device``). Which adb server:
``ANDROID_ADB_SERVER_HOST``/``ANDROID_ADB_SERVER_PORT`` (a remote server works the same way). The
server must be running; trailblaze never starts one (:mod:`trailblaze.drivers.android.adb`). A device
attached with ``adb connect HOST:PORT`` (a device farm, an emulator in a container) has that
address as its serial.

Each session connects its own uiautomator2 client (``u2.connect(adbutils device)``, which pushes
and starts uiautomator2's on-device server if needed) with its own worker thread, so several
devices run side by side and nothing is shared between them.

Classifiers: ``android-tablet`` when the smallest screen side is at least 600 dp, else
``android-phone``; then ``android``. Upstream recordings keyed ``android-phone`` or ``android``
replay on a phone.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from trailblaze.api.driver import Driver, DriverOptions
from trailblaze.core.errors import InfrastructureError, UsageError
from trailblaze.device.commands import DeviceInfo
from trailblaze.drivers.android.device import AndroidDevice, explain
from trailblaze.drivers.android.shell import screen_metrics
from trailblaze.drivers.mobile.settings import settle_timeout as mobile_settings
from trailblaze.drivers.mobile.worker import DeviceWorker

if TYPE_CHECKING:
    import uiautomator2

    from trailblaze.drivers.android.adb import AdbClient

DRIVER_KEY = "android-uiautomator2"
TABLET_MIN_DP = 600


class AndroidDriver(Driver):
    key: ClassVar[str] = DRIVER_KEY
    aliases: ClassVar[tuple[str, ...]] = (
        "android",
        "ANDROID_ONDEVICE_ACCESSIBILITY",
        "ANDROID_ONDEVICE_INSTRUMENTATION",
        "android-ondevice-accessibility",
        "android-ondevice-instrumentation",
    )
    platform: ClassVar[str] = "android"
    description: ClassVar[str] = "Android devices through uiautomator2 and an adb server"
    no_devices: ClassVar[str] = "no devices: connect a phone or start an emulator (`adb devices` lists them)"
    requires: ClassVar[tuple[str, ...]] = ("uiautomator2", "adbutils")
    extra: ClassVar[str | None] = "android"

    def __init__(self, options: DriverOptions, *, settle_timeout: float | None = None, nodelay: bool = True) -> None:
        super().__init__(options)
        #: seconds an action waits for the screen to stop changing (``settle_timeout:``)
        self.settle_timeout = settle_timeout if settle_timeout is not None else mobile_settings(options.config)
        #: TCP_NODELAY on adb connections (off only to measure what it gains)
        self.nodelay = nodelay

    async def devices(self) -> list[DeviceInfo]:
        """Every device the adb server knows, with its state; screen size and model for the
        ones that are online."""
        return await asyncio.to_thread(self._list_devices)

    def _list_devices(self) -> list[DeviceInfo]:
        from trailblaze.drivers.android.adb import connect_server

        client = connect_server(nodelay=self.nodelay)
        rows = []
        for entry in client.list(extended=True):
            model = entry.tags.get("model", "").replace("_", " ") or None
            width = height = 0
            classifiers: tuple[str, ...] = ("android",)
            if entry.state == "device":
                try:
                    width, height, density = screen_metrics(client.device(entry.serial).shell("wm size; wm density"))
                except Exception:
                    width = height = density = 0
                classifiers = classify(width, height, density)
            rows.append(
                DeviceInfo(
                    id=entry.serial,
                    platform="android",
                    driver=DRIVER_KEY,
                    width=width,
                    height=height,
                    model=model,
                    classifiers=classifiers,
                    state="available" if entry.state == "device" else entry.state,
                )
            )
        return rows

    async def open(self, device_id: str | None) -> AndroidDevice:
        worker = DeviceWorker(f"android-{device_id or 'default'}")
        try:
            return await worker.run(self._connect, device_id, worker)
        except BaseException:
            worker.close()
            raise

    def _connect(self, device_id: str | None, worker: DeviceWorker) -> AndroidDevice:
        import os

        from trailblaze.drivers.android.adb import connect_server

        client = connect_server(nodelay=self.nodelay)
        serial = pick_serial(client, device_id or os.environ.get("ANDROID_SERIAL") or None)
        u2 = start_uiautomator(client, serial)
        try:
            info = device_info(u2, serial)
        except Exception as exc:
            raise InfrastructureError(f"android device {serial}: cannot read its screen: {explain(exc)}") from None
        return AndroidDevice(
            info,
            worker,
            u2,
            client,
            timeout=self.options.timeout,
            settle_timeout=self.settle_timeout,
        )


def pick_serial(client: AdbClient, wanted: str | None) -> str:
    from adbutils.errors import AdbError

    try:
        entries = client.list()
    except AdbError as exc:
        raise InfrastructureError(f"the adb server at {client.address} cannot list devices: {exc}") from None
    states: dict[str, str] = {e.serial: e.state for e in entries}
    listing = ", ".join(f"{serial} ({state})" for serial, state in states.items()) or "none"
    if wanted is None:
        online = [serial for serial, state in states.items() if state == "device"]
        if len(online) == 1:
            return online[0]
        if not online:
            raise InfrastructureError(
                f"no Android device online at the adb server {client.address} (devices: {listing}); "
                f"connect one, start an emulator, or `adb connect HOST:PORT`"
            )
        raise UsageError(f"several Android devices are online ({listing}); choose one with --device SERIAL")
    state = states.get(wanted)
    if state is None:
        raise InfrastructureError(
            f"Android device {wanted!r} is not at the adb server {client.address} (devices: {listing})"
            + connect_hint(wanted, client)
        )
    if state != "device":
        hint = " — accept the USB debugging prompt on the device" if state == "unauthorized" else ""
        raise InfrastructureError(f"Android device {wanted} is {state}{hint}")
    return wanted


def connect_hint(serial: str, client: AdbClient) -> str:
    """How to attach a network device (a ``HOST:PORT`` serial) to that adb server."""
    host, sep, port = serial.rpartition(":")
    if not (sep and host and port.isdigit()):
        return ""
    from trailblaze.drivers.android.adb import DEFAULT_HOST, DEFAULT_PORT

    address = client.address
    server = (
        "" if (address.host, address.port) == (DEFAULT_HOST, DEFAULT_PORT) else f"-H {address.host} -P {address.port} "
    )
    return f"; attach it first with `adb {server}connect {serial}`"


def start_uiautomator(client: AdbClient, serial: str) -> uiautomator2.Device:
    """``u2.connect`` on this client's device: pushes and starts uiautomator2's on-device server."""
    import uiautomator2 as u2

    try:
        return u2.connect(client.device(serial))
    except Exception as exc:
        raise InfrastructureError(f"android device {serial}: cannot start uiautomator2: {explain(exc)}") from None


def device_info(u2: uiautomator2.Device, serial: str) -> DeviceInfo:
    info = u2.info
    width, height = int(info.get("displayWidth") or 0), int(info.get("displayHeight") or 0)
    dp_x, dp_y = int(info.get("displaySizeDpX") or 0), int(info.get("displaySizeDpY") or 0)
    kind = "tablet" if min(dp_x, dp_y) >= TABLET_MIN_DP else "phone"
    model = u2.adb_device.getprop("ro.product.model") or info.get("productName") or None
    return DeviceInfo(
        id=serial,
        platform="android",
        driver=DRIVER_KEY,
        width=width,
        height=height,
        model=model,
        classifiers=(f"android-{kind}", "android"),
    )


def classify(width: int, height: int, density: int) -> tuple[str, ...]:
    if not (width and height and density):
        return ("android",)
    smallest_dp = min(width, height) * 160 / density
    return ("android-tablet" if smallest_dp >= TABLET_MIN_DP else "android-phone", "android")
