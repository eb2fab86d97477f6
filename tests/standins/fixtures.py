"""pytest fixtures for the stand-ins (registered from tests/conftest.py).

Importing this module sets ``ADBUTILS_ADB_PATH=/bin/false`` for the test process and every
CLI subprocess it starts: should anything ever ask adbutils to start an adb daemon, it runs
``/bin/false`` instead, and no daemon is left behind.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.wda import FakeIphone, WdaStandIn

os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@pytest.fixture
def phone() -> FakeAndroid:
    return FakeAndroid("emulator-5554")


@pytest.fixture
def adb(phone: FakeAndroid, monkeypatch: pytest.MonkeyPatch) -> Iterator[AdbHostStandIn]:
    """A stand-in adb server with ``phone`` plugged in; the adb variables point at it."""
    with AdbHostStandIn(phone) as server:
        for key, value in server.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        yield server


@pytest.fixture
def iphone() -> FakeIphone:
    return FakeIphone()


@pytest.fixture
def wda_server(iphone: FakeIphone, monkeypatch: pytest.MonkeyPatch) -> Iterator[WdaStandIn]:
    with WdaStandIn(iphone) as server:
        monkeypatch.delenv("WDA_URL", raising=False)
        yield server
