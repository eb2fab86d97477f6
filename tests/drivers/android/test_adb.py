"""The adb client (trailblaze/drivers/android/adb.py): never starts an adb daemon, sets TCP_NODELAY,
asks the server's version once, finds the server through adb's own variables."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.fixtures import run
from trailblaze.api.driver import DriverOptions
from trailblaze.core.errors import InfrastructureError
from trailblaze.drivers.android.adb import AdbClient, ServerAddress, connect_server
from trailblaze.drivers.android.driver import AndroidDriver


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def adb_trap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An "adb" that only records that someone tried to run it, with nothing at the adb port."""
    marker = tmp_path / "adb-was-run"
    fake = tmp_path / "adb"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {marker}\nexit 1\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("ADBUTILS_ADB_PATH", str(fake))
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port()))
    return marker


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # adbutils leaks the failed socket
@pytest.mark.filterwarnings("ignore::ResourceWarning")  # the same leak, when the collector finds it here
def test_adbutils_on_its_own_would_start_a_daemon(adb_trap: Path) -> None:
    """The control: without trailblaze's client, adbutils runs `adb start-server`."""
    import adbutils

    with pytest.raises(adbutils.AdbError):
        adbutils.AdbClient().server_version()
    assert "start-server" in adb_trap.read_text()


def test_no_server_is_a_clear_error_and_no_daemon_is_started(adb_trap: Path) -> None:
    with pytest.raises(InfrastructureError, match=r"no adb server at 127\.0\.0\.1:\d+ .*adb start-server"):
        connect_server()
    with pytest.raises(InfrastructureError, match="no adb server"):
        run(AndroidDriver(DriverOptions()).open(None))
    with pytest.raises(InfrastructureError, match="no adb server"):
        run(AndroidDriver(DriverOptions()).devices())
    assert not adb_trap.exists()


def test_the_server_address_comes_from_adbs_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "10.0.0.7")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "5099")
    assert str(ServerAddress.from_env()) == "10.0.0.7:5099"
    monkeypatch.delenv("ANDROID_ADB_SERVER_HOST")
    monkeypatch.delenv("ANDROID_ADB_SERVER_PORT")
    assert str(ServerAddress.from_env()) == "127.0.0.1:5037"
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "fifty")
    with pytest.raises(InfrastructureError, match="ANDROID_ADB_SERVER_PORT='fifty'"):
        ServerAddress.from_env()


def test_connections_send_small_writes_at_once(adb: AdbHostStandIn) -> None:
    address = ServerAddress(str(adb.host), int(adb.port))
    with AdbClient(address).make_connection() as connection:
        assert connection.conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    with AdbClient(address, nodelay=False).make_connection() as connection:
        assert connection.conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0


def test_the_server_version_is_asked_once_per_client(adb: AdbHostStandIn) -> None:
    client = connect_server()
    device = client.device("emulator-5554")
    for _ in range(3):
        assert device.shell("echo hi") == "hi"
    assert adb.requests.count("host:version") == 1
    assert adb.requests.count("host:tport:serial:emulator-5554") == 3
