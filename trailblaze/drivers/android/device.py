"""One Android device for one session: the mobile device's primitives on uiautomator2 (the
screen, gestures, keys) and on ``adb shell`` (apps, permissions, settings), and the Android-only
commands of seed 000 (``adb_shell``, ``install_app``, ``log_lines``…).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.core.errors import ToolFailure
from trailblaze.device.commands import DeviceInfo, ViewNode, action, query
from trailblaze.drivers.android.shell import (
    first_line,
    focused_package,
    intent_extras,
    one_line,
    package_ids,
    package_info,
    permission_names,
    requested_permissions,
)
from trailblaze.drivers.mobile.device import MobileDevice
from trailblaze.drivers.mobile.gestures import Fingers

if TYPE_CHECKING:
    import uiautomator2

    from trailblaze.drivers.android.adb import AdbClient
    from trailblaze.drivers.mobile.worker import DeviceWorker

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
        package = focused_package(self.shell(["dumpsys", "window", "windows"]))
        if package:
            return package
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
            response = self.u2.shell(command)
            output = str(response.output)
            if response.exit_code != 0:  # "logcat: not found" is the shell's answer, not a log line
                said = first_line(output) or "no output"
                raise ToolFailure(f"logcat failed on the device (exit code {response.exit_code}): {said}")
            return output.splitlines()

        return await self.call(dump)

    @query
    async def current_app(self) -> str | None:
        """The package of the window that has focus."""
        return await self.call(self.foreground_package)
