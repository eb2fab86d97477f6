"""The second tier: Google's real adb server in the chain. The stand-in plays the phone's adbd
(``adb connect 127.0.0.1:PORT``, as for an emulator or a phone in TCP mode), so trailblaze →
uiautomator2 → adbutils → adb server → adbd stand-in → fake phone.

The server is adbutils' own adb binary (or one on PATH), started by this fixture on a private
port with a private HOME (its keys and logs stay in the test's folder) and killed afterwards.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.standins.adbd import AdbdStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.fixtures import run
from tests.standins.sample_app import SAMPLE_APP
from trailblaze.api.driver import DriverOptions
from trailblaze.drivers.android.driver import AndroidDriver

pytestmark = pytest.mark.slow


def adb_binary() -> str | None:
    import adbutils

    bundled = Path(adbutils.__file__).parent / "binaries" / "adb"
    return str(bundled) if bundled.is_file() else shutil.which("adb")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def adb_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int, dict[str, str]]]:
    adb = adb_binary()
    if adb is None:
        pytest.skip("no adb binary (adbutils ships one; or install Debian's adb)")
    port = free_port()
    home = tmp_path / "adb-home"
    home.mkdir()
    env = {"HOME": str(home), "ANDROID_USER_HOME": str(home / ".android"), "TMPDIR": str(home), "PATH": "/usr/bin:/bin"}
    started = subprocess.run(
        [adb, "-P", str(port), "start-server"], env=env, capture_output=True, text=True, timeout=60
    )
    assert started.returncode == 0, started.stderr
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    try:
        yield adb, port, env
    finally:
        subprocess.run([adb, "-P", str(port), "kill-server"], env=env, capture_output=True, timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the daemon is gone when its port is
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) != 0:
                    break
            time.sleep(0.1)
        else:
            pytest.fail(f"the adb server on port {port} did not stop")


def test_through_googles_adb_server(adb_server: tuple[str, int, dict[str, str]]) -> None:
    import adbutils

    _, port, _ = adb_server
    phone = FakeAndroid("ignored", model="Pixel 8")
    with AdbdStandIn(phone) as adbd:
        client = adbutils.AdbClient("127.0.0.1", port)
        assert "connected to" in client.connect(adbd.address, timeout=10)
        deadline = time.monotonic() + 10
        while [(d.serial, d.state) for d in client.list()] != [(adbd.address, "device")]:
            assert time.monotonic() < deadline, client.list()
            time.sleep(0.05)

        async def scenario() -> tuple[str, list[str]]:
            driver = AndroidDriver(DriverOptions(timeout=5))
            listed = [f"{d.id} {d.model} {d.width}x{d.height} {d.state}" for d in await driver.devices()]
            device = await driver.open(adbd.address)
            try:
                await device.launch_app(SAMPLE_APP)
                await device.tap(text="Forms")
                await device.tap(selector={"containsChild": {"textRegex": "Name"}})
                await device.input_text("Real Server")
                await device.tap(text="Submit")
                await device.assert_visible(text="Name: Real Server\nEmail: ")
                return device.device.model or "", listed
            finally:
                await device.close()

        model, listed = run(scenario())
    assert model == "Pixel 8"
    assert listed == [f"{adbd.address} Pixel 8 1080x2400 available"]
    assert phone.app.submissions == 1
    assert {"sync:", "tcp:9008"} <= {name for t in adbd._transports for _, name in t.packets}
