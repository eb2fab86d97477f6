"""``null-test``: an in-process driver for testing the engine, not a device.

It keeps a small screen (a list of texts) and records every action, so tests of planning,
lanes, delegation and reporting can check exactly what the engine did without a browser.
Load it with ``-p tests.support.null_driver`` (the repository root on PYTHONPATH).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar

import trailblaze
from trailblaze import Device, DeviceInfo, Driver, ToolContext, ToolFailure, ViewNode
from trailblaze.device.commands import action, query

#: Everything every NullDevice did, in order: (device id, action, argument).
ACTIONS: list[tuple[str, str, Any]] = []


class NullDevice(Device):
    selector_tap_tool: ClassVar[str] = "null_tap"

    def __init__(self, device_id: str, texts: list[str]) -> None:
        self.device = DeviceInfo(device_id, "test", NullDriver.key, 320, 640, model="null", classifiers=("test",))
        self.texts = list(texts)
        self.trails: list[str] = []

    async def start_trail(self, trail: Any) -> None:
        self.trails.append(trail.id)

    async def find(self, *, text: str | None = None, id: str | None = None, selector: Any = None) -> list[Any]:
        return [t for t in self.texts if text is None or t == text]

    @action
    async def tap(
        self, text: str | None = None, id: str | None = None, index: int | None = None, selector: Any = None
    ) -> None:
        await asyncio.sleep(0)  # a device round trip: the engine must not block the loop meanwhile
        if text is not None and text not in self.texts:
            raise ToolFailure(f"no {text!r} on screen")
        ACTIONS.append((self.device.id, "tap", text))

    @action
    async def input_text(self, text: str) -> None:
        ACTIONS.append((self.device.id, "input_text", text))
        self.texts.append(text)

    @query
    async def view_hierarchy(self) -> ViewNode:
        return ViewNode(class_name="screen", children=[ViewNode(text=t, ref=f"n{i}") for i, t in enumerate(self.texts)])

    @query
    async def selector_for_ref(self, ref: str) -> dict[str, Any] | None:
        index = int(ref[1:]) if ref[1:].isdigit() else -1
        return {"text": self.texts[index]} if 0 <= index < len(self.texts) else None


class NullDriver(Driver):
    key: ClassVar[str] = "null-test"
    aliases: ClassVar[tuple[str, ...]] = ("null",)
    platform: ClassVar[str] = "test"
    sessions_per_device: ClassVar[int] = 4
    #: what `devices()` reports
    DEVICES: ClassVar[list[str]] = ["null-1", "null-2", "null-3"]
    SCREEN: ClassVar[list[str]] = ["Home", "Sign in", "Welcome"]

    async def devices(self) -> list[DeviceInfo]:
        return [DeviceInfo(d, "test", self.key, 320, 640, model="null") for d in self.DEVICES]

    async def open(self, device_id: str | None) -> NullDevice:
        if device_id is not None and device_id not in self.DEVICES:
            raise trailblaze.core.errors.InfrastructureError(f"null device {device_id!r} is not connected")
        await asyncio.sleep(0)
        return NullDevice(device_id or self.DEVICES[0], self.SCREEN)


@trailblaze.tool(name="null_tap", platforms=["test"])
async def null_tap(ctx: ToolContext, text: str | None = None) -> str:
    """Tap a text on the null screen."""
    await ctx.commands.tap(text=text)
    return f"tapped {text}"


@trailblaze.tool(name="null_type", platforms=["test"])
async def null_type(ctx: ToolContext, text: str) -> None:
    """Type text on the null device."""
    await ctx.commands.input_text(text)


@trailblaze.tool(name="null_see", platforms=["test"], verification=True)
async def null_see(ctx: ToolContext, text: str) -> None:
    """Check that a text is on the null screen."""
    await ctx.commands.assert_visible(text=text, timeout_ms=0)


@trailblaze.tool(name="null_noop", platforms=["test"])
def null_noop() -> None:
    """Do nothing (engine overhead measurements)."""


@trailblaze.tool(name="null_signIn", platforms=["test"], delegating=True)
async def null_sign_in(ctx: ToolContext, user: str) -> list[trailblaze.Delegate]:
    """Sign in: tap, type (a delegating tool)."""
    if await ctx.commands.is_visible(text="Dashboard"):
        return []
    return [trailblaze.Delegate("null_tap", {"text": "Sign in"}), trailblaze.Delegate("null_type", {"text": user})]


@trailblaze.hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    register(NullDriver)


@trailblaze.hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    for fn in (null_tap, null_type, null_see, null_noop, null_sign_in):
        register(fn)
