"""What the Android driver reads from ``adb shell`` output and writes into its commands: screen
metrics, the focused window, packages and their permissions, launch arguments as intent extras.
Plain text in, values out: nothing here talks to a device.
"""

from __future__ import annotations

import re
from typing import Any

from trailblaze.core.errors import ToolFailure

_FOCUSED_APP = re.compile(r"mCurrentFocus=Window\{[^}]*\s(?P<package>[^\s/}]+)/(?P<activity>[^\s}]+)\}")
_SIZE = re.compile(r"(?:Override|Physical) size: (\d+)x(\d+)")
_DENSITY = re.compile(r"(?:Override|Physical) density: (\d+)")


def screen_metrics(output: str) -> tuple[int, int, int]:
    """Width, height (pixels) and density (dpi) from ``wm size; wm density``; the override wins."""
    sizes = _SIZE.findall(output)
    densities = _DENSITY.findall(output)
    width, height = (int(v) for v in sizes[-1]) if sizes else (0, 0)
    return width, height, int(densities[-1]) if densities else 0


def focused_package(dumpsys_window: str) -> str | None:
    """The package whose window has focus, from ``dumpsys window windows``'s ``mCurrentFocus``."""
    m = _FOCUSED_APP.search(dumpsys_window)
    return m.group("package") if m else None


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
