"""Android: each trailblaze primitive against the same uiautomator2 calls made directly.

Everything runs against the stand-in adb server and phone from tests/standins (real
uiautomator2 and adbutils, no phone needed). For every primitive the benchmark first records
which calls trailblaze sends over the wire (hierarchy dumps, clicks, shell commands), then times

* **trailblaze**: the primitive through ``AndroidDevice`` (worker thread, hierarchy parsing,
  selector matching, settling);
* **direct**: exactly those uiautomator2 calls from a script, with no trailblaze in between;

both over the same transport, interleaved, medians compared. It checks that both really sent the
same calls. Two transports are measured: trailblaze's adb client (TCP_NODELAY), and the one
``u2.connect(serial)`` uses by default, where every JSON-RPC call waits ~40 ms for a delayed ACK.
The last figure is what TCP_NODELAY gains a trailblaze tap.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP

NAME_FIELD = {"containsChild": {"textRegex": "Name"}}
SUBMIT = {"androidAccessibility": {"resourceIdRegex": ".*submit_button"}}


@dataclass
class Timing:
    primitive: str
    trailblaze: float
    direct: float


@contextmanager
def stand_in() -> Any:
    phone = FakeAndroid("bench-1")
    with AdbHostStandIn(phone) as adb:
        saved = {k: os.environ.get(k) for k in adb.env}
        os.environ.update(adb.env)
        try:
            yield phone
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def settle_the_app(phone: FakeAndroid) -> None:
    """Open the Forms tab and stop the clock: a still screen, as between the steps of a trail."""
    app = phone.app
    app.launch(SAMPLE_APP, "Forms")
    app.clock = lambda: 1e9


def primitives(device: Any) -> dict[str, Callable[[], Awaitable[Any]]]:
    async def tap() -> None:
        device._snapshot = None  # a fresh look at the screen each time: no reuse of the last one
        await device.tap(selector=SUBMIT)

    async def type_text() -> None:
        await device.input_text("a")

    async def check() -> None:
        device._snapshot = None
        await device.assert_visible(selector=NAME_FIELD)

    async def hierarchy() -> None:
        await device.view_hierarchy()

    async def back() -> None:
        await device.press_back()

    return {
        "tap (selector)": tap,
        "inputText": type_text,
        "assertVisible (selector)": check,
        "view hierarchy": hierarchy,
        "pressBack": back,
    }


def direct_calls(u2: Any, phone: FakeAndroid, log: list[tuple[str, str]]) -> Callable[[], None]:
    """A script making the calls in ``log`` (as recorded from trailblaze) straight through uiautomator2."""
    steps: list[Callable[[], Any]] = []
    for kind, what in log:
        if kind == "rpc" and what == "dumpWindowHierarchy":
            steps.append(u2.dump_hierarchy)
        elif kind == "rpc" and what == "click":
            steps.append(lambda: u2.click(282, 1020))  # the centre of Submit
        elif kind == "rpc" and what == "pressKey":
            steps.append(lambda: u2.press("back"))
        elif kind == "rpc" and what in ("setClipboard", "getClipboard", "pasteClipboard"):
            continue  # one send_keys below makes all three
        elif kind == "shell" and what.startswith("ime list"):
            steps.append(lambda: u2.send_keys("a"))
        elif kind == "shell":
            command = what.removesuffix("; echo X4EXIT:$?")
            steps.append(lambda command=command: u2.shell(command))  # type: ignore[misc]
        else:
            raise AssertionError(f"no direct equivalent for {kind} {what}")

    def script() -> None:
        for step in steps:
            step()

    return script


async def elapsed(fn: Callable[..., Awaitable[Any]], *args: Any) -> float:
    start = time.perf_counter()
    await fn(*args)
    return time.perf_counter() - start


def measure(runs: int, *, nodelay: bool, direct_transport: str) -> list[Timing]:
    """Interleaved medians of every primitive and its direct equivalent."""
    import adbutils
    import uiautomator2

    from trailblaze.api.driver import DriverOptions
    from trailblaze.drivers.android.adb import ServerAddress, connect_server
    from trailblaze.drivers.android.driver import AndroidDriver

    with stand_in() as phone:
        settle_the_app(phone)

        async def main() -> list[Timing]:
            driver = AndroidDriver(DriverOptions(timeout=5), nodelay=nodelay)
            device = await driver.open("bench-1")
            if direct_transport == "trailblaze":
                client: Any = connect_server(nodelay=nodelay)
            else:  # what `u2.connect(serial)` builds
                address = ServerAddress.from_env()
                client = adbutils.AdbClient(address.host, address.port)
            u2 = await asyncio.to_thread(uiautomator2.connect, client.device("bench-1"))
            timings = []
            try:
                for name, primitive in primitives(device).items():
                    await primitive()  # warm up, and record the calls it makes
                    mark = len(phone.calls)
                    await primitive()
                    log = phone.calls[mark:]
                    script = direct_calls(u2, phone, log)
                    mark = len(phone.calls)
                    await asyncio.to_thread(script)
                    direct_log = phone.calls[mark:]
                    assert [k for k, _ in direct_log] == [k for k, _ in log], (name, log, direct_log)
                    ours: list[float] = []
                    theirs: list[float] = []
                    for i in range(runs):  # alternate who goes first, so neither always follows the other
                        if i % 2:
                            theirs.append(await elapsed(asyncio.to_thread, script))
                            ours.append(await elapsed(primitive))
                        else:
                            ours.append(await elapsed(primitive))
                            theirs.append(await elapsed(asyncio.to_thread, script))
                    timings.append(Timing(name, statistics.median(ours), statistics.median(theirs)))
            finally:
                await asyncio.to_thread(u2.stop_uiautomator, wait=False)
                await device.close()
            return timings

        return asyncio.run(main())
