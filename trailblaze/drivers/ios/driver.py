"""``ios-wda``: iPhones and iPads through facebook-wda and a running WebDriverAgent.

Which device: ``--device URL`` (or ``device:`` in trailblaze.yaml), else ``WDA_URL`` — the
WebDriverAgent endpoint, ``http://127.0.0.1:8100`` after ``iproxy 8100 8100`` or on a simulator,
or ``http+usbmux://UDID:8100``. Starting WebDriverAgent itself (xcodebuild, Appium, tidevice) is
outside Trailblaze. ``trailblaze devices`` lists the endpoints in ``WDA_URL`` (comma-separated)
and in the ``ios:`` section's ``devices:`` list (:mod:`trailblaze.drivers.ios.settings`); ``--device URL``
repeated or ``--all-devices`` runs on several.

Every WebDriverAgent request times out after the run's timeout rather than facebook-wda's 180 s
default; an endpoint that does not answer is an infrastructure error (exit 2) naming the URL.

What WebDriverAgent cannot do, said plainly: clear an app's data (``REINSTALL`` restarts the app
without clearing it; ``mobile_clearAppData`` is refused). iOS has no back button: ``pressBack``
makes the system's back gesture (a swipe from the left edge).

Classifiers: ``ios-ipad`` for an iPad, else ``ios-iphone``; then ``ios``.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.api.driver import Driver, DriverOptions
from trailblaze.core.errors import InfrastructureError, ToolFailure, UsageError
from trailblaze.device.commands import DeviceInfo, ViewNode, action, query
from trailblaze.drivers.mobile.device import MobileDevice
from trailblaze.drivers.mobile.gestures import Fingers
from trailblaze.drivers.mobile.settings import settle_timeout as mobile_settings
from trailblaze.drivers.mobile.worker import DeviceWorker

if TYPE_CHECKING:
    from trailblaze.drivers.ios.client import WdaClient
    from trailblaze.drivers.ios.settings import IosConfig

from trailblaze.drivers.ios.settings import SECTION

DRIVER_KEY = "ios-wda"
LIST_TIMEOUT = 3.0
#: app states WebDriverAgent reports (XCUIApplicationState)
RUNNING_FOREGROUND = 4
_TYPED_KEYS = {"ENTER": "\n", "BACKSPACE": "\b", "TAB": "\t"}


def endpoints(named: Iterable[str] = ()) -> list[str]:
    """WebDriverAgent URLs from ``WDA_URL`` (comma- or space-separated), then ``named`` ones."""
    found = [u for u in re.split(r"[,\s]+", os.environ.get("WDA_URL", "")) if u]
    for url in named:
        if url not in found:
            found.append(url)
    return found


def check_url(url: str) -> str:
    from trailblaze.drivers.ios.settings import URL_SCHEMES

    if not url.startswith(URL_SCHEMES):
        raise UsageError(
            f"{url!r} is not a WebDriverAgent URL: the ios driver's --device is a URL like "
            f"http://127.0.0.1:8100 or http+usbmux://UDID:8100"
        )
    return url.rstrip("/")


class IosDriver(Driver):
    key: ClassVar[str] = DRIVER_KEY
    aliases: ClassVar[tuple[str, ...]] = ("ios", "IOS_HOST", "IOS_AXE", "ios-host", "ios-axe")
    platform: ClassVar[str] = "ios"
    description: ClassVar[str] = "iPhones and iPads through WebDriverAgent (facebook-wda)"
    no_devices: ClassVar[str] = (
        "no WebDriverAgent named: set WDA_URL=http://HOST:8100 (several: comma-separated), or device: or "
        "ios: devices: in trailblaze.yaml; starting WebDriverAgent is up to you (Xcode, Appium, tidevice)"
    )
    requires: ClassVar[tuple[str, ...]] = ("wda",)
    extra: ClassVar[str | None] = "ios"

    def __init__(self, options: DriverOptions, *, settle_timeout: float | None = None) -> None:
        super().__init__(options)
        #: seconds an action waits for the screen to stop changing (``settle_timeout:``)
        self.settle_timeout = settle_timeout if settle_timeout is not None else mobile_settings(options.config)

    def named_urls(self) -> list[str]:
        """The WebDriverAgents the project names: ``device:`` in trailblaze.yaml (when a URL),
        then the ``ios:`` section's ``devices:``."""
        config = self.options.config
        if config is None:
            return []
        device = config.project.device
        named = [device] if device and "://" in device else []
        try:
            section: IosConfig = config.section(SECTION)
        except ValueError:  # a configuration made without the ios_wda plugin's section
            return named
        return named + [url for url in section.devices if url not in named]

    async def devices(self) -> list[DeviceInfo]:
        urls = endpoints(self.named_urls())
        return list(await asyncio.gather(*(asyncio.to_thread(self._describe, check_url(u)) for u in urls)))

    def _describe(self, url: str) -> DeviceInfo:
        from trailblaze.drivers.ios.client import WdaClient, client_errors

        client = WdaClient(url, LIST_TIMEOUT)
        try:
            status = client.status()
        except client_errors():
            return DeviceInfo(id=url, platform="ios", driver=DRIVER_KEY, classifiers=("ios",), state="unreachable")
        width = height = 0
        if status.get("sessionId"):  # only ask for the size in a session that exists already
            try:
                client.session_id = status["sessionId"]
                width, height = client.window_size()
            except client_errors():
                pass
        kind = str(status.get("device") or "").lower()
        return DeviceInfo(
            id=url,
            platform="ios",
            driver=DRIVER_KEY,
            width=width,
            height=height,
            model=describe_status(status),
            classifiers=("ios-ipad" if "ipad" in kind else "ios-iphone", "ios") if kind else ("ios",),
        )

    async def open(self, device_id: str | None) -> IosDevice:
        known = endpoints(self.named_urls())
        url = device_id or (known[0] if known else None)
        if url is None:
            raise UsageError(
                "no WebDriverAgent to connect to: pass --device http://HOST:PORT, set WDA_URL or list them "
                "under ios: devices: in trailblaze.yaml"
            )
        url = check_url(url)
        worker = DeviceWorker(f"ios-{url}")
        try:
            return await worker.run(self._connect, url, worker)
        except BaseException:
            worker.close()
            raise

    def _connect(self, url: str, worker: DeviceWorker) -> IosDevice:
        from trailblaze.drivers.ios.client import WdaClient, client_errors, error_message, unreachable

        timeouts = {"value": self.options.timeout}
        client = WdaClient(url, lambda: timeouts["value"])
        try:
            status = client.status()
            if client.locked():
                client.unlock()
            client.start_session()
            width, height = client.window_size()
            info = client.device_info()
        except client_errors() as exc:
            if unreachable(exc):
                raise InfrastructureError(f"WebDriverAgent at {url} is unreachable ({error_message(exc)})") from None
            raise InfrastructureError(f"WebDriverAgent at {url}: {error_message(exc)}") from None
        model = str(info.get("model") or "")
        ipad = info.get("userInterfaceIdiom") == 1 or "ipad" in model.lower() or "ipad" in str(status.get("device", ""))
        device = DeviceInfo(
            id=url,
            platform="ios",
            driver=DRIVER_KEY,
            width=int(width),
            height=int(height),
            model=" ".join(p for p in (str(info.get("name") or ""), model) if p) or describe_status(status),
            classifiers=("ios-ipad" if ipad else "ios-iphone", "ios"),
        )
        return IosDevice(
            device, worker, client, timeouts, timeout=self.options.timeout, settle_timeout=self.settle_timeout
        )


def launch_arguments(arguments: dict[str, Any]) -> list[str]:
    """Launch arguments as an iOS app reads them (``-key value``, as Maestro passes them)."""
    found: list[str] = []
    for key, value in arguments.items():
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        found += [f"-{key}", text]
    return found


def describe_status(status: dict[str, Any]) -> str | None:
    os_info = status.get("os") or {}
    parts = [str(status.get("device") or ""), str(os_info.get("name") or ""), str(os_info.get("version") or "")]
    return " ".join(p for p in parts if p) or None


class IosDevice(MobileDevice):
    """One iPhone or iPad for one session, through one WebDriverAgent session."""

    platform_name: ClassVar[str] = "ios"

    def __init__(
        self,
        info: DeviceInfo,
        worker: DeviceWorker,
        client: WdaClient,
        timeouts: dict[str, float],
        *,
        timeout: float,
        settle_timeout: float,
    ) -> None:
        self._timeouts = timeouts
        super().__init__(info, worker, timeout=timeout, settle_timeout=settle_timeout)
        self.client = client

    @property
    def default_timeout(self) -> float:
        return self._timeouts["value"]

    @default_timeout.setter
    def default_timeout(self, value: float) -> None:
        """The trail's timeout is also how long one WebDriverAgent request may take."""
        self._timeouts["value"] = value

    # -- the platform primitives ----------------------------------------------------------------------

    def dump(self) -> str:
        return str(self.client.source())

    def parse(self, raw: str) -> ViewNode:
        from trailblaze.drivers.ios.source import parse_source

        return parse_source(raw)

    def tap_at(self, x: int, y: int, duration_ms: int | None) -> None:
        if duration_ms:
            self.client.tap_hold(x, y, duration_ms / 1000)
        else:
            self.client.tap(x, y)

    def swipe_between(self, start: tuple[int, int], end: tuple[int, int], duration_ms: int) -> None:
        self.client.swipe(start[0], start[1], end[0], end[1], duration=min(duration_ms, 100) / 1000)

    def pinch_between(self, start: Fingers, end: Fingers, duration_ms: int) -> None:
        # W3C actions, which WebDriverAgent synthesizes as one multi-touch event
        def finger(name: str, begin: tuple[int, int], finish: tuple[int, int]) -> dict[str, Any]:
            return {
                "type": "pointer",
                "id": name,
                "parameters": {"pointerType": "touch"},
                "actions": [
                    {"type": "pointerMove", "duration": 0, "x": begin[0], "y": begin[1]},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pointerMove", "duration": duration_ms, "x": finish[0], "y": finish[1]},
                    {"type": "pointerUp", "button": 0},
                ],
            }

        self.client.session_post(
            "/actions", {"actions": [finger("finger1", start[0], end[0]), finger("finger2", start[1], end[1])]}
        )

    def type_text(self, text: str) -> None:
        from trailblaze.drivers.ios.client import request_error

        try:
            self.client.session_post("/wda/keys", {"value": list(text)})
        except request_error() as exc:
            if "keyboard" in str(exc):
                raise ToolFailure("no keyboard is shown to type into: tap a text field first") from None
            raise

    def erase(self, count: int | None, current: str | None) -> None:
        presses = count if count is not None else (len(current) if current is not None else 50)
        if presses:
            self.type_text("\b" * presses)

    def press(self, key: str) -> None:
        if key == "HOME":
            self.client.home()
        elif key == "BACK":
            width, height = self.device.width, self.device.height
            self.client.swipe(1, height // 2, int(width * 0.6), height // 2, duration=0.05)
        elif key in _TYPED_KEYS:
            self.type_text(_TYPED_KEYS[key])
        else:
            raise ToolFailure(f"iOS has no {key} key")

    def dismiss_keyboard(self) -> bool:
        from trailblaze.drivers.ios.client import request_error

        try:
            self.client.session_post("/wda/keyboard/dismiss")
        except request_error():
            return False
        return True

    def start_app(self, app_id: str, mode: str, timeout: float, arguments: dict[str, Any] | None = None) -> None:
        from trailblaze.drivers.ios.client import error_message, request_error

        try:
            if mode == "RESUME" and not arguments:
                self.client.app_activate(app_id)
            else:  # WebDriverAgent cannot clear app data: REINSTALL restarts, like FORCE_RESTART
                self.client.app_terminate(app_id)
                self.client.app_launch(app_id, arguments=launch_arguments(arguments or {}))
        except request_error() as exc:
            raise ToolFailure(f"launchApp {app_id}: {error_message(exc)}") from None
        deadline = time.monotonic() + timeout
        while True:
            state = self.app_state_of(app_id)
            if state == RUNNING_FOREGROUND:
                return
            if time.monotonic() >= deadline:
                raise ToolFailure(
                    f"launchApp {app_id}: the app did not come to the front within {timeout:g}s (state {state})"
                )
            time.sleep(self.poll_interval)

    def set_clipboard_text(self, text: str) -> None:
        self.client.set_clipboard(text)

    def clipboard_text(self) -> str:
        import base64

        encoded = self.client.session_post("/wda/getPasteboard").value
        return base64.b64decode(encoded or "").decode("utf-8")

    def app_state_of(self, app_id: str) -> int:
        return int(self.client.app_state(app_id).value)

    def terminate_app(self, app_id: str) -> None:
        self.client.app_terminate(app_id)

    def wipe_app(self, app_id: str) -> None:
        raise NotImplementedError(
            f"clearing the data of {app_id} is not possible through WebDriverAgent; reinstall the app instead"
        )

    def open_link(self, url: str) -> None:
        from trailblaze.drivers.ios.client import error_message, request_error

        try:
            self.client.open_url(url)
        except request_error() as exc:
            raise ToolFailure(f"openUrl {url}: {error_message(exc)}") from None

    def screenshot(self) -> tuple[bytes, str]:
        return bytes(self.client.screenshot(format="raw")), "png"

    def release(self) -> None:
        from trailblaze.drivers.ios.client import client_errors

        try:
            self.client.close()
        except client_errors():
            pass

    def client_errors(self) -> tuple[type[BaseException], ...]:
        from trailblaze.drivers.ios.client import client_errors

        return client_errors()

    def explain(self, exc: BaseException) -> str:
        from trailblaze.drivers.ios.client import error_message, unreachable

        if unreachable(exc):
            return f"WebDriverAgent at {self.device.id} is unreachable ({error_message(exc)})"
        return error_message(exc)

    # -- platform extras (apps and alerts) --------------------------------------------------------------

    @query
    async def app_state(self, app_id: str) -> int:
        """XCUIApplicationState: 1 not running, 2/3 in the background, 4 in front."""
        return await self.call(self.app_state_of, app_id)

    @query
    async def alert_text(self) -> str | None:
        """The text of the system alert on screen, or None."""

        def read() -> str | None:
            alert = self.client.alert
            return str(alert.text) if alert.exists else None

        return await self.call(read)

    @action
    async def accept_alert(self, button: str | None = None) -> None:
        """Accept the alert on screen (or press the button with this label)."""

        def accept() -> None:
            alert = self.client.alert
            if not alert.exists:
                raise ToolFailure("no alert is shown")
            if button is None:
                alert.accept()
                return
            buttons = alert.buttons()
            if button not in buttons:
                raise ToolFailure(f"the alert has no button {button!r} (it has {', '.join(map(repr, buttons))})")
            alert.click(button)

        await self.act(accept)

    @action
    async def dismiss_alert(self) -> None:
        def dismiss() -> None:
            alert = self.client.alert
            if not alert.exists:
                raise ToolFailure("no alert is shown")
            alert.dismiss()

        await self.act(dismiss)
