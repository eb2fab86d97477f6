"""The ``device`` session tool: connect a browser or a phone, list what is reachable, describe the
connected device.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import TrailblazeError
from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver.calls import Call, Reply, ToolError, parse_args
from trailblaze.mcpserver.catalog import SESSION_TOOL_NAMES
from trailblaze.mcpserver.state import ClientState, pick_driver
from trailblaze.runner.listing import list_devices

if TYPE_CHECKING:
    from trailblaze.mcpserver.device import DeviceSession


async def device(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.DeviceArgs = parse_args(A.DeviceArgs, arguments)
    state = call.state
    project = state.project
    if args.action is A.DeviceAction.LIST:
        return Reply({"devices": (await list_devices(project)).rows})
    if args.action is A.DeviceAction.INFO:
        if state.device is None:
            return Reply({"connected": False, "message": "no device connected: device(action=WEB|ANDROID|IOS)"})
        return Reply({"connected": True, **await _device_info(state.device, args.detail)})
    if args.action is A.DeviceAction.CONNECT:
        driver_key, device_id = await _driver_for_device(call, args.deviceId)
    else:
        platform = args.action.value.lower()
        driver_key = pick_driver(project, platform, state.defaults.driver)
        device_id = None if args.action is A.DeviceAction.WEB else args.deviceId
        if device_id is None and state.defaults.device and _driver_has(project, state.defaults.driver, driver_key):
            device_id = state.defaults.device
    before = state.device
    async with state.lock:
        connected = await connect(state, driver_key, device_id, args.headless)
        if args.testName:
            state.new_recording(args.testName)
    if connected is not before:
        await call.tools_changed()
    tools = len(state.device_tools(SESSION_TOOL_NAMES))
    return Reply(
        {
            "connected": True,
            **connected.describe(),
            "recording": state.recording.summary(),
            "tools": tools,
            "message": f"connected; {tools} device tools are offered (tools/list). The session is recorded: "
            f'save it with trail(action=SAVE, name="...")',
        }
    )


async def connect(state: ClientState, driver_key: str, device_id: str | None, headless: bool | None) -> DeviceSession:
    try:
        return await state.connect(driver_key, device_id, headless)
    except TrailblazeError as exc:
        raise ToolError(f"cannot connect {driver_key}{f' {device_id}' if device_id else ''}: {exc}") from None


def _driver_has(project: Any, requested: str | None, driver_key: str) -> bool:
    if not requested:
        return False
    with contextlib.suppress(TrailblazeError):
        return bool(project.drivers.resolve(requested).key == driver_key)
    return False


async def _driver_for_device(call: Call, device_id: str | None) -> tuple[str, str | None]:
    """The driver that reaches ``device_id`` (without one: the default driver and device)."""
    state = call.state
    if device_id is None:
        return state.default_driver(), state.defaults.device
    if "://" in device_id:
        return pick_driver(state.project, "ios", state.defaults.driver), device_id
    rows = (await list_devices(state.project)).rows
    for row in rows:
        if row.get("id") == device_id:
            return str(row["driver"]), device_id
    known = ", ".join(f"{r['id']} ({r['driver']})" for r in rows if "id" in r) or "none"
    raise ToolError(f"no device {device_id!r} is reachable; devices: {known}")


async def _device_info(device: DeviceSession, detail: A.DeviceDetail) -> dict[str, Any]:
    info = device.describe()
    if detail is A.DeviceDetail.SUMMARY:
        return info
    commands = device.live.device
    if hasattr(commands, "adb_shell"):
        output = str((await commands.adb_shell("pm list packages")).get("output") or "")
        info["apps"] = sorted(line.removeprefix("package:").strip() for line in output.splitlines() if line.strip())
    else:
        info["apps"] = None
        info["apps_note"] = f"a {device.platform} device has no installed apps to list"
    if detail is A.DeviceDetail.FULL:
        info["tools"] = [spec.name for spec in device.tools()]
    return info
