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
import re
import time
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.api.driver import Driver, DriverOptions
from trailblaze.core.errors import InfrastructureError, ToolFailure, UsageError
from trailblaze.device.commands import DeviceInfo, ViewNode, action, query
from trailblaze.drivers.mobile.device import Fingers, MobileDevice
from trailblaze.drivers.mobile.settings import settle_timeout as mobile_settings
from trailblaze.drivers.mobile.worker import DeviceWorker

if TYPE_CHECKING:
    import uiautomator2

    from trailblaze.drivers.android.adb import AdbClient

DRIVER_KEY = "android-uiautomator2"
TABLET_MIN_DP = 600
#: uiautomator2's key names (jsonrpc pressKey) or Android key codes (pressKeyCode)
KEY_PRESSES: dict[str, str | int] = {
    "BACK": "back",
    "ENTER": "enter",
    "HOME": "home",
    "BACKSPACE": "del",
    "TAB": 61,
    "ESCAPE": 111,
    "POWER": "power",
    "LOCK": "power",
    "VOLUME_UP": "volume_up",
    "VOLUME_DOWN": "volume_down",
}
_FOCUSED_APP = re.compile(r"mCurrentFocus=Window\{[^}]*\s(?P<package>[^\s/}]+)/(?P<activity>[^\s}]+)\}")
_SIZE = re.compile(r"(?:Override|Physical) size: (\d+)x(\d+)")
_DENSITY = re.compile(r"(?:Override|Physical) density: (\d+)")


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
    states = {e.serial: e.state for e in entries}
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


def screen_metrics(output: str) -> tuple[int, int, int]:
    """Width, height (pixels) and density (dpi) from ``wm size; wm density``; the override wins."""
    sizes = _SIZE.findall(output)
    densities = _DENSITY.findall(output)
    width, height = (int(v) for v in sizes[-1]) if sizes else (0, 0)
    return width, height, int(densities[-1]) if densities else 0


def classify(width: int, height: int, density: int) -> tuple[str, ...]:
    if not (width and height and density):
        return ("android",)
    smallest_dp = min(width, height) * 160 / density
    return ("android-tablet" if smallest_dp >= TABLET_MIN_DP else "android-phone", "android")


def explain(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class AndroidDevice(MobileDevice):
    """One Android device for one session: uiautomator2 for the screen, adb shell for apps."""

    platform_name: ClassVar[str] = "android"

    def __init__(
        self,
        info: DeviceInfo,
        worker: DeviceWorker,
        u2: uiautomator2.Device,
        client: AdbClient,
        *,
        timeout: float,
        settle_timeout: float,
    ) -> None:
        super().__init__(info, worker, timeout=timeout, settle_timeout=settle_timeout)
        self.u2 = u2
        self.client = client

    # -- the platform primitives ----------------------------------------------------------------------

    def dump(self) -> str:
        return str(self.u2.dump_hierarchy())

    def parse(self, raw: str) -> ViewNode:
        from trailblaze.drivers.android.hierarchy import parse_hierarchy

        return parse_hierarchy(raw)

    def tap_at(self, x: int, y: int, duration_ms: int | None) -> None:
        if duration_ms:
            self.u2.long_click(x, y, duration=duration_ms / 1000)
        else:
            self.u2.click(x, y)

    def swipe_between(self, start: tuple[int, int], end: tuple[int, int], duration_ms: int) -> None:
        self.u2.swipe(start[0], start[1], end[0], end[1], duration=duration_ms / 1000)

    def pinch_between(self, start: Fingers, end: Fingers, duration_ms: int) -> None:
        # UiObject.performTwoPointerGesture takes screen coordinates: the (empty) selector it
        # hangs off is not looked up; uiautomator moves the fingers ~5 ms per step
        (s1, s2), (e1, e2) = ({"x": x, "y": y} for x, y in start), ({"x": x, "y": y} for x, y in end)
        self.u2().gesture(s1, s2, e1, e2, steps=max(2, duration_ms // 5))

    def type_text(self, text: str) -> None:
        self.u2.send_keys(text)

    def erase(self, count: int | None, current: str | None) -> None:
        if count is None:
            self.u2.clear_text()
            return
        presses = count if current is None else min(count, len(current))
        for _ in range(presses):
            self.u2.press("del")

    def press(self, key: str) -> None:
        self.u2.press(KEY_PRESSES[key])

    def dismiss_keyboard(self) -> bool:
        if not self.keyboard_shown():
            return False
        self.u2.press("back")
        return True

    def keyboard_shown(self) -> bool:
        return "mInputShown=true" in self.shell("dumpsys input_method")

    def start_app(self, app_id: str, mode: str, timeout: float, arguments: dict[str, Any] | None = None) -> None:
        if mode == "REINSTALL":
            self.wipe_app(app_id)
        elif mode == "FORCE_RESTART":
            self.terminate_app(app_id)
        activity = self.launcher_activity(app_id)
        command = ["am", "start", "-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER"]
        output = self.shell([*command, *intent_extras(arguments or {}), "-n", activity])
        if "Error" in output or "Exception" in output:
            raise ToolFailure(f"launchApp {app_id}: am start failed: {first_line(output, 'Error')}")
        self.wait_foreground(app_id, timeout, output)

    def launcher_activity(self, app_id: str) -> str:
        """``package/activity`` of the app's launcher activity; a clear failure when the app is
        not installed."""
        out = self.shell(
            ["cmd", "package", "resolve-activity", "--brief", "-c", "android.intent.category.LAUNCHER", app_id]
        )
        last = out.strip().splitlines()[-1].strip() if out.strip() else ""
        if "/" in last and last.startswith(app_id):
            return last
        raise ToolFailure(
            f"launchApp {app_id}: no such app on {self.device.id} (not installed, or no launcher activity)"
        )

    def wait_foreground(self, app_id: str, timeout: float, started: str) -> None:
        """``am start`` reports success even when the app dies at once: check the window that
        has focus until it is the app's, or the timeout passes."""
        deadline = time.monotonic() + timeout
        while True:
            front = self.foreground_package()
            if front == app_id:
                return
            if time.monotonic() >= deadline:
                shown = front or "nothing"
                raise ToolFailure(
                    f"launchApp {app_id}: the app did not come to the front within {timeout:g}s "
                    f"({shown} has focus; am start said: {first_line(started, 'Starting') or 'nothing'})"
                )
            time.sleep(self.poll_interval)

    def foreground_package(self) -> str | None:
        """The package whose window has focus: ``dumpsys window``'s ``mCurrentFocus`` (one shell
        call), else adbutils' ``app_current()`` with its fallbacks for other Android versions."""
        m = _FOCUSED_APP.search(self.shell(["dumpsys", "window", "windows"]))
        if m:
            return m.group("package")
        from adbutils.errors import AdbError

        try:
            return str(self.u2.adb_device.app_current().package) or None
        except AdbError:
            return None

    def terminate_app(self, app_id: str) -> None:
        self.shell(["am", "force-stop", app_id])

    def set_permissions(self, app_id: str, permissions: dict[str, str]) -> None:
        for name, state in permissions.items():
            wanted = requested_permissions(self.shell(["dumpsys", "package", app_id])) if name == "all" else None
            for permission in wanted if wanted is not None else permission_names(name):
                verb = "grant" if state.lower() == "allow" else "revoke"
                response = self.u2.shell(["pm", verb, app_id, permission])
                if response.exit_code != 0 or "Exception" in response.output:
                    if name == "all":  # not every requested permission is a runtime one
                        continue
                    raise ToolFailure(f"{verb} {permission} for {app_id} failed: {one_line(response.output)}")

    def airplane_mode(self, enabled: bool | None) -> bool:
        if enabled is None:
            enabled = "enabled" not in self.shell(["cmd", "connectivity", "airplane-mode"])
        response = self.u2.shell(["cmd", "connectivity", "airplane-mode", "enable" if enabled else "disable"])
        if response.exit_code != 0:
            raise ToolFailure(f"switching airplane mode failed: {one_line(response.output)}")
        return enabled

    def set_clipboard_text(self, text: str) -> None:
        self.u2.set_clipboard(text)

    def clipboard_text(self) -> str:
        return str(self.u2.clipboard or "")

    def wipe_app(self, app_id: str) -> None:
        output = self.shell(["pm", "clear", app_id])
        if "Success" not in output:
            raise ToolFailure(f"clearing the data of {app_id} failed: {first_line(output) or 'no output'}")

    def open_link(self, url: str) -> None:
        output = self.shell(["am", "start", "-a", "android.intent.action.VIEW", "-d", url])
        if "Error" in output or "Exception" in output:
            raise ToolFailure(f"openUrl {url}: {first_line(output, 'Error')}")

    def screenshot(self) -> tuple[bytes, str]:
        import base64
        import io

        encoded = self.u2.jsonrpc.takeScreenshot(1, 80)
        if encoded:
            return base64.b64decode(encoded), "jpeg"
        buffer = io.BytesIO()
        self.u2.screenshot().save(buffer, format="PNG")
        return buffer.getvalue(), "png"

    def release(self) -> None:
        self.u2.stop_uiautomator(wait=False)

    def shell(self, command: str | list[str]) -> str:
        return str(self.u2.shell(command).output)

    def client_errors(self) -> tuple[type[BaseException], ...]:
        import http.client

        from adbutils.errors import AdbError
        from uiautomator2.exceptions import BaseException as U2Error

        return (AdbError, U2Error, OSError, http.client.HTTPException, EOFError)

    def explain(self, exc: BaseException) -> str:
        message = explain(exc)
        if "not found" in message and "device" in message:
            return f"the device went away ({message})"
        return message

    # -- platform extras (seed 000's Android commands) ------------------------------------------------------

    @action
    async def adb_shell(self, command: str | list[str]) -> dict[str, Any]:
        """Run a shell command on the device; its output and exit code."""

        def run() -> dict[str, Any]:
            response = self.u2.shell(command)
            return {"output": response.output, "exitCode": response.exit_code}

        return await self.act(run)

    @action
    async def grant_permission(self, app_id: str, permission: str) -> None:
        def grant() -> None:
            response = self.u2.shell(["pm", "grant", app_id, permission])
            if response.exit_code != 0 or "Exception" in response.output:
                raise ToolFailure(f"granting {permission} to {app_id} failed: {one_line(response.output)}")

        await self.call(grant)

    @action
    async def install_app(self, path: str) -> None:
        """Install an APK from this computer (``pm install -r -t``)."""
        from pathlib import Path

        local = Path(path)
        if not local.is_file():
            raise ToolFailure(f"no APK at {path}")

        def install() -> None:
            remote = f"/data/local/tmp/trailblaze-{local.name}"
            self.u2.adb_device.sync.push(str(local), remote)
            try:
                output = self.shell(["pm", "install", "-r", "-t", remote])
            finally:
                self.shell(["rm", "-f", remote])
            if "Success" not in output:
                raise ToolFailure(f"installing {local.name} failed: {first_line(output, 'Failure') or 'no output'}")

        await self.call(install)

    @action
    async def uninstall_app(self, app_id: str) -> None:
        def uninstall() -> None:
            output = self.shell(["pm", "uninstall", app_id])
            if "Success" not in output:
                raise ToolFailure(f"uninstalling {app_id} failed: {first_line(output) or 'no output'}")

        await self.call(uninstall)

    @query
    async def installed_apps(self, detailed: bool = False) -> list[dict[str, Any]]:
        """The installed packages, sorted by id: ``appId`` and ``isSystemApp``; with ``detailed``
        also ``version``, ``buildNumber``, ``installPath`` and ``label`` (None: adb cannot read
        an app's label)."""

        def list_apps() -> list[dict[str, Any]]:
            system = set(package_ids(self.shell(["pm", "list", "packages", "-s"])))
            apps: list[dict[str, Any]] = []
            for line in self.shell(["pm", "list", "packages", "-f"]).splitlines():
                path, _, app_id = line.strip().removeprefix("package:").rpartition("=")
                if not app_id:
                    continue
                app: dict[str, Any] = {"appId": app_id, "isSystemApp": app_id in system}
                if detailed:
                    info = package_info(self.shell(["dumpsys", "package", app_id]))
                    app.update(label=None, version=info.get("versionName"), buildNumber=info.get("versionCode"))
                    app["installPath"] = path.rsplit("/", 1)[0] if path.endswith(".apk") else path or None
                apps.append(app)
            return sorted(apps, key=lambda a: a["appId"])

        return await self.call(list_apps)

    @action
    async def write_file(self, device_path: str, content: bytes) -> None:
        """Write ``content`` to ``device_path`` (adb push), creating its folder."""
        import io

        def push() -> None:
            folder = device_path.rsplit("/", 1)[0] or "/"
            self.shell(["mkdir", "-p", folder])
            self.u2.adb_device.sync.push(io.BytesIO(content), device_path)

        await self.call(push)

    @query
    async def log_lines(self, since: float | None = None) -> list[str]:
        """The device's log (``logcat -d``), one line per entry with its time in seconds since the
        epoch and unprintable characters escaped; only what was logged from ``since`` on, when given."""
        command = ["logcat", "-d", "-v", "epoch", "-v", "printable"]
        if since is not None:
            command += ["-t", f"{since:.3f}"]

        def dump() -> list[str]:
            return self.shell(command).splitlines()

        return await self.call(dump)

    @query
    async def current_app(self) -> str | None:
        """The package of the window that has focus."""
        return await self.call(self.foreground_package)


#: Maestro's short permission names (``launchApp: {permissions: {camera: allow}}``)
SHORT_PERMISSIONS = {
    "camera": ("android.permission.CAMERA",),
    "notifications": ("android.permission.POST_NOTIFICATIONS",),
    "location": ("android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"),
    "microphone": ("android.permission.RECORD_AUDIO",),
    "contacts": ("android.permission.READ_CONTACTS", "android.permission.WRITE_CONTACTS"),
    "phone": ("android.permission.CALL_PHONE", "android.permission.READ_PHONE_STATE"),
    "storage": ("android.permission.READ_EXTERNAL_STORAGE", "android.permission.WRITE_EXTERNAL_STORAGE"),
    "medialibrary": ("android.permission.READ_MEDIA_IMAGES", "android.permission.READ_MEDIA_VIDEO"),
    "calendar": ("android.permission.READ_CALENDAR", "android.permission.WRITE_CALENDAR"),
    "bluetooth": ("android.permission.BLUETOOTH_CONNECT",),
    "sms": ("android.permission.SEND_SMS", "android.permission.READ_SMS"),
}


def permission_names(name: str) -> tuple[str, ...]:
    if "." in name:
        return (name,)
    found = SHORT_PERMISSIONS.get(name.lower())
    if found is None:
        raise ToolFailure(
            f"unknown permission {name!r} (a full name like android.permission.CAMERA, or one of "
            f"{', '.join(sorted(SHORT_PERMISSIONS))}, or all)"
        )
    return found


def requested_permissions(dumpsys: str) -> list[str]:
    """The permissions ``dumpsys package`` lists under "requested permissions:"."""
    found: list[str] = []
    inside = False
    for line in dumpsys.splitlines():
        stripped = line.strip()
        if stripped.startswith("requested permissions:"):
            inside = True
            continue
        if inside:
            if not stripped or stripped.endswith(":") or " " in stripped.split(":", 1)[0]:
                break
            found.append(stripped.split(":", 1)[0])
    return found


def package_ids(output: str) -> list[str]:
    """The ids ``pm list packages`` printed (``package:com.x``, or ``package:path=com.x``)."""
    return [line.strip().removeprefix("package:").rpartition("=")[2] for line in output.splitlines() if line.strip()]


def package_info(dumpsys: str) -> dict[str, str]:
    """``versionName`` and ``versionCode`` from ``dumpsys package``."""
    found: dict[str, str] = {}
    for key in ("versionName", "versionCode"):
        m = re.search(rf"\b{key}=(\S+)", dumpsys)
        if m:
            found[key] = m.group(1)
    return found


def intent_extras(arguments: dict[str, Any]) -> list[str]:
    """Launch arguments as ``am start`` extras, typed as Maestro passes them."""
    extras: list[str] = []
    for key, value in arguments.items():
        if isinstance(value, bool):
            extras += ["--ez", key, "true" if value else "false"]
        elif isinstance(value, int):
            extras += ["--ei" if -(2**31) <= value < 2**31 else "--el", key, str(value)]
        elif isinstance(value, float):
            extras += ["--ef", key, repr(value)]
        else:
            extras += ["--es", key, str(value)]
    return extras


def one_line(output: str, limit: int = 300) -> str:
    text = " ".join(line.strip() for line in output.splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_line(output: str, containing: str | None = None) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if containing is not None:
        for line in lines:
            if containing in line:
                return line
    return lines[0] if lines else ""
