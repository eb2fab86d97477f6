"""One phone behind an Appium server, for one device session of a run: the mobile device's
primitives on the W3C protocol and Appium's ``mobile:`` methods.

The screen is the page source, read by the Android or iOS parser (:mod:`.source`) and matched
like every phone's; touches are W3C actions (:mod:`.actions`); the rest are the ``mobile:``
methods of Appium's UiAutomator2 and XCUITest drivers:

=================  =====================================  ========================================
                   Android (UiAutomator2)                 iOS (XCUITest)
=================  =====================================  ========================================
type               ``mobile: type``                       the focused element's value
keys               ``mobile: pressKey`` (key codes)       home: ``mobile: pressButton``; back: edge swipe
apps               ``activateApp``, ``terminateApp``,     ``launchApp`` (arguments), ``activateApp``,
                   ``clearApp``, ``queryAppState``        ``terminateApp``, ``queryAppState``
links, keyboard    ``deepLink``, ``isKeyboardShown``, ``hideKeyboard`` (both)
clipboard          ``setClipboard``/``getClipboard``      ``setPasteboard``/``getPasteboard``
permissions        ``changePermissions``                  —
=================  =====================================  ========================================

A driver that knows neither ``mobile: type`` nor the focused element (``GET /element/active``)
gets the keys on the element the page source shows focused, found by its id. Failures name the
Appium server and quote its message, with every secret of the capabilities masked.
"""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import InfrastructureError, ToolFailure
from trailblaze.device import masking
from trailblaze.device.commands import DeviceInfo, ViewNode, action, query
from trailblaze.drivers.appium import actions
from trailblaze.drivers.appium.sessions import Sessions
from trailblaze.drivers.mobile.device import MobileDevice
from trailblaze.drivers.mobile.gestures import Fingers

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver as Remote

    from trailblaze.api.results import RemoteSession
    from trailblaze.drivers.mobile.worker import DeviceWorker
    from trailblaze.trail.model import Trail

DRIVER_KEY = "appium"
#: Android key codes (KeyEvent) of the keys trailblaze presses
KEY_CODES = {"BACK": 4, "HOME": 3, "ENTER": 66, "BACKSPACE": 67, "TAB": 61, "ESCAPE": 111}
_TYPED_KEYS = {"ENTER": "\n", "BACKSPACE": "\b", "TAB": "\t"}
#: XCUIApplicationState / Appium's app states: 4 is in front
RUNNING_FOREGROUND = 4
TABLET_MIN_DP = 600


class AppiumDevice(MobileDevice):
    """One capability set's phone: a new Appium session per trail (:class:`Sessions`)."""

    def __init__(
        self, info: DeviceInfo, worker: DeviceWorker, sessions: Sessions, *, timeout: float, settle_timeout: float
    ) -> None:
        super().__init__(info, worker, timeout=timeout, settle_timeout=settle_timeout)
        self.sessions = sessions
        #: the first failed step of the trail running now (what the cloud is told), if any
        self.failure: str | None = None
        self.trail_failed = False
        self._in_trail = False

    @property
    def secrets(self) -> frozenset[str]:
        return self.sessions.secrets

    @property
    def client(self) -> Remote:
        """The session's client; outside a trail (``trailblaze mcp``) a new session when none is
        open. Within a trail whose session the server ended, an error: a new session would show
        a freshly started app, not the trail's screen."""
        driver = self.sessions.driver
        if driver is not None:
            return driver
        if self._in_trail:
            raise InfrastructureError(f"{self._name()}: the trail's session is gone")
        return self.begin(None)

    # -- sessions -------------------------------------------------------------------------------------

    def begin(self, name: str | None) -> Remote:
        """Start a session and learn the device from it (on the worker thread)."""
        driver = self.sessions.start(name)
        try:
            self.device = self._describe(driver)
        except self.client_errors() as exc:
            self.sessions.abandon()
            raise self._infrastructure(exc) from None
        return driver

    def _describe(self, driver: Remote) -> DeviceInfo:
        from trailblaze.drivers.appium import client
        from trailblaze.drivers.appium.settings import capability, platform_of
        from trailblaze.drivers.appium.source import source_platform

        caps: dict[str, Any] = dict(driver.caps or {})
        wanted = self.sessions.device
        platform = (
            wanted.platform or platform_of(caps) or source_platform(str(driver.page_source)) or self.device.platform
        )
        rect = driver.get_window_rect()
        if not isinstance(rect, dict):  # what a 401 mid-session becomes in the client
            raise InfrastructureError(f"{self._name()}: the server answered {str(rect)[:200]!r} for the window's size")
        width, height = int(rect.get("width") or 0), int(rect.get("height") or 0)
        name = str(capability(caps, "deviceModel") or capability(caps, "deviceName") or wanted.model or "")
        if platform == "android":
            density = capability(caps, "deviceScreenDensity")
            if density is None:
                try:
                    density = client.mobile(driver, "getDisplayDensity")
                except client.client_errors():
                    density = None
            classifiers = _android_classifiers(width, height, int(density or 0))
        else:
            classifiers = ("ios-ipad" if "ipad" in name.lower() else "ios-iphone", "ios")
        return DeviceInfo(
            id=wanted.id,
            platform=platform,
            driver=DRIVER_KEY,
            width=width,
            height=height,
            model=name or None,
            classifiers=classifiers,
        )

    async def start_trail(self, trail: Trail) -> None:
        """A session for the trail, named after its title."""
        self.failure, self.trail_failed = None, False
        self.sessions.ended = None
        self._in_trail = True
        if self.sessions.driver is None:
            self._snapshot = None
            await self.call(self.begin, trail.title)
        else:
            await self.call(self.sessions.name, trail.title)

    async def end_trail(self, trail: Trail) -> None:
        """Tell the cloud how the trail went (``report_status: true``), then delete its session."""
        self._snapshot = self._ref_screen = None
        self._in_trail = False
        await self.call(self.sessions.end, not self.trail_failed, self.failure)

    def note_step(self, status: str, error: str | None) -> None:
        """A step of the current trail ended (the plugin's ``trailblaze_step_finish``)."""
        if status in ("failed", "error") and not self.trail_failed:
            self.trail_failed = True
            self.failure = masking.redact(" ".join((error or status).split()), self.secrets)

    @property
    def remote_session(self) -> RemoteSession | None:
        """The session the last trail ran in (what its result names)."""
        return self.sessions.ended

    async def close(self) -> None:
        if self._closed:
            return
        import asyncio

        self._closed = True
        try:  # not on the worker: Ctrl-C must not wait behind a request in flight
            await asyncio.to_thread(self.sessions.abandon)
        finally:
            self.worker.close()

    # -- the platform primitives ----------------------------------------------------------------------

    def dump(self) -> str:
        return str(self.client.page_source)

    def parse(self, raw: str) -> ViewNode:
        from trailblaze.drivers.appium.source import read_source

        return read_source(raw)[1]

    def tap_at(self, x: int, y: int, duration_ms: int | None) -> None:
        self._perform(actions.tap(x, y, duration_ms))

    def swipe_between(self, start: tuple[int, int], end: tuple[int, int], duration_ms: int) -> None:
        self._perform(actions.swipe(start, end, duration_ms))

    def pinch_between(self, start: Fingers, end: Fingers, duration_ms: int) -> None:
        self._perform(actions.pinch(start, end, duration_ms))

    def _perform(self, sources: list[dict[str, Any]]) -> None:
        from trailblaze.drivers.appium import client

        client.perform(self.client, sources)

    def type_text(self, text: str) -> None:
        from trailblaze.drivers.appium import client

        if self.android:
            try:
                self._mobile("type", text=text)
                return
            except client.client_errors() as exc:
                if not client.unsupported(exc):
                    raise
        self._focused_element().send_keys(text)

    def _focused_element(self) -> Any:
        from trailblaze.drivers.appium import client

        driver = self.client
        try:
            return driver.switch_to.active_element
        except client.client_errors() as exc:
            if client.no_element(exc):
                raise ToolFailure("no text field has focus to type into: tap one first") from None
            if not client.unsupported(exc):
                raise
        node = next((n for n in self._fetch().screen.nodes if n.focused and n.id), None)
        if node is None:
            raise ToolFailure("no text field with an id has focus to type into: tap one first")
        return driver.find_element("id" if self.android else "accessibility id", node.id)

    def erase(self, count: int | None, current: str | None) -> None:
        if count is None:
            self._focused_element().clear()
            return
        presses = count if current is None else min(count, len(current))
        if not presses:
            return
        if self.android:
            for _ in range(presses):
                self._mobile("pressKey", keycode=KEY_CODES["BACKSPACE"])
        else:
            self._focused_element().send_keys("\b" * presses)

    def press(self, key: str) -> None:
        if self.android:
            self._mobile("pressKey", keycode=KEY_CODES[key])
        elif key == "HOME":
            self._mobile("pressButton", name="home")
        elif key == "BACK":  # iOS has no back button: the system's edge swipe
            height = self.device.height
            self._perform(actions.swipe((1, height // 2), (int(self.device.width * 0.6), height // 2), 100))
        elif key in _TYPED_KEYS:
            self.type_text(_TYPED_KEYS[key])
        else:
            raise ToolFailure(f"iOS has no {key} key")

    def dismiss_keyboard(self) -> bool:
        if not self._mobile("isKeyboardShown"):
            return False
        self._mobile("hideKeyboard")
        return True

    def start_app(self, app_id: str, mode: str, timeout: float, arguments: dict[str, Any] | None = None) -> None:
        from trailblaze.drivers.appium import client

        try:
            if self.android:
                if arguments:
                    raise ToolFailure(
                        f"launchApp {app_id}: launch arguments (intent extras) need the app's activity on Android "
                        f"through Appium; start it with mobile: startActivity in a tool of your own"
                    )
                if mode == "REINSTALL":
                    self._mobile("clearApp", appId=app_id)
                elif mode == "FORCE_RESTART":
                    self._mobile("terminateApp", appId=app_id)
                self._mobile("activateApp", appId=app_id)
            elif mode == "RESUME" and not arguments:
                self._mobile("activateApp", bundleId=app_id)
            else:  # XCUITest cannot clear an app's data: REINSTALL restarts, like FORCE_RESTART
                from trailblaze.drivers.ios.driver import launch_arguments

                self._mobile("terminateApp", bundleId=app_id)
                self._mobile("launchApp", bundleId=app_id, arguments=launch_arguments(arguments or {}))
        except client.client_errors() as exc:
            if client.session_gone(exc) or client.unreachable(exc):
                raise
            raise ToolFailure(f"launchApp {app_id}: {self._said(exc)}") from None
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

    def app_state_of(self, app_id: str) -> int:
        key = "appId" if self.android else "bundleId"
        return int(self._mobile("queryAppState", **{key: app_id}) or 0)

    def set_permissions(self, app_id: str, permissions: dict[str, str]) -> None:
        if not self.android:
            raise NotImplementedError("setting app permissions is not supported on iOS through Appium here")
        for name, state in permissions.items():
            verb = "grant" if state.lower() == "allow" else "revoke"
            self._mobile("changePermissions", permissions=name, appPackage=app_id, action=verb)

    def airplane_mode(self, enabled: bool | None) -> bool:
        if not self.android:
            raise NotImplementedError("airplane mode cannot be switched on iOS through Appium")
        if enabled is None:
            enabled = not bool((self._mobile("getConnectivity", services=["airplaneMode"]) or {}).get("airplaneMode"))
        self._mobile("setConnectivity", airplaneMode=enabled)
        return enabled

    def set_clipboard_text(self, text: str) -> None:
        if self.android:
            encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
            self._mobile("setClipboard", content=encoded, contentType="plaintext")
        else:
            self._mobile("setPasteboard", content=text, encoding="utf8")

    def clipboard_text(self) -> str:
        if self.android:
            return base64.b64decode(self._mobile("getClipboard") or "").decode("utf-8")
        return str(self._mobile("getPasteboard", encoding="utf8") or "")

    def terminate_app(self, app_id: str) -> None:
        self._mobile("terminateApp", **{"appId" if self.android else "bundleId": app_id})

    def wipe_app(self, app_id: str) -> None:
        if not self.android:
            raise NotImplementedError(
                f"clearing the data of {app_id} is not possible through XCUITest; reinstall the app instead"
            )
        self._mobile("clearApp", appId=app_id)

    def open_link(self, url: str) -> None:
        from trailblaze.drivers.appium import client

        try:
            self._mobile("deepLink", url=url)
        except client.client_errors() as exc:
            if client.session_gone(exc) or client.unreachable(exc):
                raise
            raise ToolFailure(f"openUrl {url}: {self._said(exc)}") from None

    def screenshot(self) -> tuple[bytes, str]:
        return base64.b64decode(self.client.get_screenshot_as_base64()), "png"

    def release(self) -> None:
        self.sessions.abandon()

    # -- errors ---------------------------------------------------------------------------------------

    def client_errors(self) -> tuple[type[BaseException], ...]:
        from trailblaze.drivers.appium import client

        return client.client_errors()

    def explain(self, exc: BaseException) -> str:
        from trailblaze.drivers.appium import client

        reason = client.unreachable(exc)
        if reason is not None:
            return masking.redact(f"the Appium server does not answer ({reason})", self.secrets)
        if client.session_gone(exc):
            gone = self.sessions.current
            self.sessions.lost()
            which = f"session {gone.id}" if gone is not None else "the session"
            return f"{which} is gone: {self._said(exc)}"
        return self._said(exc)

    def _name(self) -> str:
        return f"appium device {self.device.id} at {self.sessions.hub.url}"

    def _said(self, exc: BaseException) -> str:
        from trailblaze.drivers.appium import client

        return masking.redact(f'"{client.message(exc)}"', self.secrets)

    def _infrastructure(self, exc: BaseException) -> Exception:
        return InfrastructureError(f"{self._name()}: {self.explain(exc)}")

    # -- helpers --------------------------------------------------------------------------------------

    @property
    def android(self) -> bool:
        return self.device.platform == "android"

    def _mobile(self, method: str, **arguments: Any) -> Any:
        from trailblaze.drivers.appium import client

        return client.mobile(self.client, method, **arguments)

    # -- platform extras ------------------------------------------------------------------------------

    @action
    async def adb_shell(self, command: str | list[str]) -> dict[str, Any]:
        """Run a shell command on an Android device (``mobile: shell``: the Appium server must
        allow ``uiautomator2:adb_shell``); its output and exit code."""
        from trailblaze.drivers.appium import client

        argv = command.split() if isinstance(command, str) else list(command)

        def run() -> dict[str, Any]:
            try:
                found = self._mobile("shell", command=argv[0], args=argv[1:], includeStderr=True)
            except client.client_errors() as exc:
                said = client.message(exc)
                if "adb_shell" in said or "insecure" in said.lower():
                    raise ToolFailure(
                        "adb shell needs the Appium server started with --allow-insecure=uiautomator2:adb_shell "
                        f"(a cloud may not allow it): {masking.redact(said, self.secrets)}"
                    ) from None
                if client.session_gone(exc) or client.unreachable(exc) or client.unsupported(exc):
                    raise
                return {"output": said, "exitCode": 1}
            if isinstance(found, dict):
                return {"output": f"{found.get('stdout') or ''}{found.get('stderr') or ''}", "exitCode": 0}
            return {"output": str(found or ""), "exitCode": 0}

        return await self.act(run)

    @action
    async def grant_permission(self, app_id: str, permission: str) -> None:
        await self.call(self.set_permissions, app_id, {permission: "allow"})

    @query
    async def app_state(self, app_id: str) -> int:
        """The app's state: 0 not installed, 1 not running, 3 in the background, 4 in front."""
        return await self.call(self.app_state_of, app_id)

    @query
    async def current_session(self) -> dict[str, Any] | None:
        """The Appium session open now: its id, service, hub and dashboard page."""
        session = self.sessions.current
        return session.to_dict() if session is not None else None


def _android_classifiers(width: int, height: int, density: int) -> tuple[str, ...]:
    if not (width and height and density):
        return ("android",)
    smallest_dp = min(width, height) * 160 / density
    return ("android-tablet" if smallest_dp >= TABLET_MIN_DP else "android-phone", "android")
