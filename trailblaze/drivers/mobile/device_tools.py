"""Upstream's device tools beyond the screen: installed apps, the clipboard, and Android's
broadcasts, app-ops, demo mode and files (``mobile_*``/``android_*``, upstream's names and
arguments). Declared by the tool files in ``trailblaze/trailmaps/{mobile,android}/tools/``.

Android works through adb (``pm``, ``dumpsys``, ``am broadcast``, ``appops``, ``adb push``). iOS
through WebDriverAgent has a clipboard but no list of installed apps; asking for one says so.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from trailblaze.core.errors import ToolFailure
from trailblaze.drivers.mobile.tools import MOBILE, AppId, device
from trailblaze.tools.authoring import tool
from trailblaze.tools.model import ToolContext

if TYPE_CHECKING:
    from trailblaze.drivers.android.device import AndroidDevice

DOWNLOADS = "/sdcard/Download"
#: what android_systemUiDemoMode sends to SystemUI (a frozen clock, full bars, no notifications)
DEMO_MODE_ON = (
    ["settings", "put", "global", "sysui_demo_allowed", "1"],
    ["am", "broadcast", "-a", "com.android.systemui.demo", "-e", "command", "enter"],
    ["am", "broadcast", "-a", "com.android.systemui.demo", "-e", "command", "clock", "-e", "hhmm", "1200"],
    [
        "am",
        "broadcast",
        "-a",
        "com.android.systemui.demo",
        "-e",
        "command",
        "network",
        "-e",
        "wifi",
        "show",
        "-e",
        "level",
        "4",
    ],
    [
        "am",
        "broadcast",
        "-a",
        "com.android.systemui.demo",
        "-e",
        "command",
        "network",
        "-e",
        "mobile",
        "show",
        "-e",
        "datatype",
        "lte",
        "-e",
        "level",
        "4",
    ],
    [
        "am",
        "broadcast",
        "-a",
        "com.android.systemui.demo",
        "-e",
        "command",
        "battery",
        "-e",
        "plugged",
        "false",
        "-e",
        "level",
        "100",
    ],
    ["am", "broadcast", "-a", "com.android.systemui.demo", "-e", "command", "notifications", "-e", "visible", "false"],
    [
        "am",
        "broadcast",
        "-a",
        "com.android.systemui.demo",
        "-e",
        "command",
        "status",
        "-e",
        "volume",
        "vibrate",
        "-e",
        "bluetooth",
        "connected",
        "-e",
        "location",
        "show",
        "-e",
        "alarm",
        "false",
    ],
)
DEMO_MODE_OFF = (["am", "broadcast", "-a", "com.android.systemui.demo", "-e", "command", "exit"],)
_EXTRA_FLAGS = {"string": "--es", "boolean": "--ez", "int": "--ei", "long": "--el", "float": "--ef"}


def android(ctx: ToolContext) -> AndroidDevice:
    from trailblaze.drivers.android.device import AndroidDevice

    found = ctx.driver
    if not isinstance(found, AndroidDevice):
        raise NotImplementedError(f"{ctx.tool.name} needs the android-uiautomator2 driver")
    return found


async def shell_ok(ctx: ToolContext, command: list[str]) -> str:
    result = await android(ctx).adb_shell(command)
    output = str(result["output"])
    if result["exitCode"] != 0 or "Exception" in output or output.startswith("Error"):
        raise ToolFailure(f"`{' '.join(command)}` failed ({result['exitCode']}): {output.strip()[:300]}")
    return output


# -- apps ----------------------------------------------------------------------------------------


@tool(name="mobile_listInstalledApps", platforms=MOBILE, query=True)
async def list_installed_apps(ctx: ToolContext) -> dict[str, Any]:
    """The app ids (bundle ids) installed on the device, sorted: {"appIds": [...]}."""
    apps = await _installed(ctx, detailed=False)
    return {"appIds": [a["appId"] for a in apps]}


@tool(name="mobile_listInstalledAppsDetailed", platforms=MOBILE, query=True, exposed_to_llm=False)
async def list_installed_apps_detailed(
    ctx: ToolContext,
    includeSystemApps: Annotated[bool, Field(description="List the system's own apps too")] = True,
) -> dict[str, Any]:
    """The installed apps with their details, sorted by id: {"apps": [{appId, isSystemApp, label,
    version, buildNumber, installPath}]}; includeSystemApps=false leaves out the system's own."""
    apps = await _installed(ctx, detailed=True)
    return {"apps": [a for a in apps if includeSystemApps or not a["isSystemApp"]]}


async def _installed(ctx: ToolContext, *, detailed: bool) -> list[dict[str, Any]]:
    if ctx.device.platform != "android":
        raise NotImplementedError(f"{ctx.tool.name}: WebDriverAgent cannot list the apps installed on an iPhone")
    return await android(ctx).installed_apps(detailed)


# -- clipboard -----------------------------------------------------------------------------------


@tool(name="mobile_setClipboard", platforms=MOBILE)
async def set_clipboard(
    ctx: ToolContext, text: Annotated[str, Field(description="The text to put on the clipboard")]
) -> str:
    """Put text on the device's clipboard."""
    await device(ctx).set_clipboard(text)
    return f"set the clipboard ({len(text)} characters)"


@tool(name="mobile_pasteClipboard", platforms=MOBILE)
async def paste_clipboard(ctx: ToolContext) -> str:
    """Type the clipboard's text into the focused field."""
    mobile = device(ctx)
    text = await mobile.get_clipboard()
    if not text:
        raise ToolFailure("the clipboard is empty: call mobile_setClipboard (or copy something) first")
    await mobile.input_text(text)
    return f"pasted {len(text)} characters"


# -- Android -------------------------------------------------------------------------------------


class BroadcastExtra(BaseModel):
    """One intent extra, as upstream writes it: a key, a value (as text) and its type."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="The extra's name, as the receiving app reads it")
    value: str = Field(description="Its value, written as text (true or false for a boolean)")
    type: Literal["string", "boolean", "int", "long", "float"] = Field(
        default="string", description="What the app receives it as: am broadcast's --es, --ez, --ei, --el or --ef"
    )


@tool(name="android_sendBroadcast", platforms=["android"], recordable=False, exposed_to_llm=False)
async def send_broadcast(
    ctx: ToolContext,
    action: Annotated[str, Field(description="The intent's action, e.g. com.example.app.RESET")],
    componentPackage: Annotated[str, Field(description="The package of the component that receives it")],
    componentClass: Annotated[str, Field(description="The receiver's class name (fully qualified, or .Relative)")],
    extras: Annotated[
        list[BroadcastExtra] | None,
        Field(description="Intent extras: {key, value, type} each (type: string by default)"),
    ] = None,
) -> str:
    """Send a broadcast intent to a component of an app."""
    given = extras or []
    blank = next((i for i, e in enumerate(given) if not e.key.strip()), None)
    if blank is not None:
        raise ToolFailure(f"the extra at index {blank} has a blank key")
    keys = [e.key for e in given]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ToolFailure(f"extra key(s) {', '.join(twice)} given more than once")
    command = ["am", "broadcast", "-a", action, "-n", f"{componentPackage}/{componentClass}"]
    for extra in given:
        command += [_EXTRA_FLAGS[extra.type], extra.key, _typed(extra)]
    await shell_ok(ctx, command)
    return f"sent {action} to {componentPackage}/{componentClass}"


def _typed(extra: BroadcastExtra) -> str:
    """The value as ``am`` wants it, checked against its type (the value itself is never echoed)."""
    value = extra.value
    try:
        if extra.type == "boolean":
            if value not in ("true", "false"):
                raise ValueError
        elif extra.type in ("int", "long"):
            int(value)
        elif extra.type == "float":
            float(value)
    except ValueError:
        raise ToolFailure(f"the extra {extra.key!r} is not a valid {extra.type}") from None
    return value


@tool(name="android_grantAppOpsPermission", platforms=["android"], exposed_to_llm=False)
async def grant_app_ops_permission(
    ctx: ToolContext,
    appId: AppId,
    permission: Annotated[str, Field(description="The AppOps operation's bare name, e.g. MANAGE_EXTERNAL_STORAGE")],
) -> str:
    """Allow an AppOps operation for an app (``appops set APP OP allow``): MANAGE_EXTERNAL_STORAGE,
    SYSTEM_ALERT_WINDOW, REQUEST_INSTALL_PACKAGES… (the bare op name, not android.permission.*)."""
    await shell_ok(ctx, ["appops", "set", appId, permission, "allow"])
    return f"allowed {permission} for {appId}"


@tool(name="android_systemUiDemoMode", platforms=["android"], exposed_to_llm=False)
async def system_ui_demo_mode(
    ctx: ToolContext, enable: Annotated[bool, Field(description="true turns demo mode on, false off")] = True
) -> str:
    """Turn SystemUI's demo mode on (a frozen 12:00 clock, full signal and battery, no
    notifications) or off."""
    for command in DEMO_MODE_ON if enable else DEMO_MODE_OFF:
        await shell_ok(ctx, list(command))
    return f"demo mode {'on' if enable else 'off'}"


@tool(name="android_writeFileToDownloads", platforms=["android"], recordable=False, exposed_to_llm=False)
async def write_file_to_downloads(
    ctx: ToolContext,
    fileName: Annotated[str, Field(description="A bare file name (no folders), e.g. report.csv")],
    content: Annotated[str, Field(description="The file's text, written as UTF-8")],
) -> str:
    """Write a UTF-8 text file into the device's Downloads folder."""
    if not fileName.strip():
        raise ToolFailure("fileName must not be blank")
    if "/" in fileName or "\\" in fileName or fileName in (".", ".."):
        raise ToolFailure(f"fileName must be a bare file name, got {fileName!r}")
    data = content.encode("utf-8")
    await android(ctx).write_file(f"{DOWNLOADS}/{fileName}", data)
    return f"wrote {len(data)} bytes to Downloads/{fileName}"


@tool(name="android_writeBytesToFile", platforms=["android"], recordable=False, exposed_to_llm=False)
async def write_bytes_to_file(
    ctx: ToolContext,
    devicePath: Annotated[str, Field(description="An absolute path to a file on the device")],
    base64Content: Annotated[SecretStr, Field(description="The bytes, base64-encoded (masked in reports)")],
) -> str:
    """Write bytes (given as base64) to an absolute path on the device, creating its folder."""
    if not devicePath.startswith("/") or "/../" in f"{devicePath}/" or devicePath.endswith("/"):
        raise ToolFailure(f"devicePath must be an absolute path to a file, got {devicePath!r}")
    try:
        data = base64.b64decode(base64Content.get_secret_value(), validate=True)
    except (binascii.Error, ValueError):
        raise ToolFailure("base64Content is not valid base64") from None
    await android(ctx).write_file(devicePath, data)
    return f"wrote {len(data)} bytes to {devicePath}"


@tool(name="networkConnection", platforms=MOBILE)
async def network_connection(
    ctx: ToolContext, connected: Annotated[bool, Field(description="true: online; false: airplane mode")]
) -> str:
    """Put the device online (connected) or offline (airplane mode)."""
    on = await device(ctx).set_airplane_mode(not connected)
    return "offline (airplane mode)" if on else "online"
