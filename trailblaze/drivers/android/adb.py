"""The adb server, reached through adbutils — without its two surprises.

* **It never starts an adb daemon.** adbutils runs ``adb start-server`` whenever it cannot
  connect, leaving a daemon behind; a test runner must not do that as a side effect (and a
  remote ``ANDROID_ADB_SERVER_HOST`` cannot be started from here anyway). A missing server is a
  clear :class:`~trailblaze.core.errors.InfrastructureError` telling the user to start one.
* **No delayed-ACK stall.** uiautomator2 sends each JSON-RPC request as two writes (headers,
  then body) on a socket without ``TCP_NODELAY``; Nagle's algorithm holds the body back until
  the server acknowledges the headers, which a delayed ACK postpones by ~40 ms — on every call.
  Connections made here set ``TCP_NODELAY``, which only changes *when* bytes are sent, never
  what is sent, so it is safe for every adb service. The server's version (asked before every
  device connection) is remembered for the client's lifetime.

The server address is ``ANDROID_ADB_SERVER_HOST``/``ANDROID_ADB_SERVER_PORT`` (adb's own
variables; default 127.0.0.1:5037), read when the client is made, not when adbutils is imported.
This module imports adbutils at the top: import it lazily.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

import adbutils
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from trailblaze.core.errors import InfrastructureError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5037
CONNECT_TIMEOUT = 3.0


@dataclass(frozen=True, slots=True)
class ServerAddress:
    host: str
    port: int

    @classmethod
    def from_env(cls) -> ServerAddress:
        host = os.environ.get("ANDROID_ADB_SERVER_HOST") or DEFAULT_HOST
        raw = os.environ.get("ANDROID_ADB_SERVER_PORT") or str(DEFAULT_PORT)
        try:
            port = int(raw)
        except ValueError:
            raise InfrastructureError(f"ANDROID_ADB_SERVER_PORT={raw!r} is not a port number") from None
        return cls(host, port)

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


class _Connection(adbutils.AdbConnection):
    """One connection to the adb server: no daemon started on failure, TCP_NODELAY on success."""

    def __init__(self, host: str, port: int, nodelay: bool) -> None:
        self._address = (host, port)
        self._nodelay = nodelay
        super().__init__(host, port)

    def _safe_connect(self) -> socket.socket:
        try:
            sock = socket.create_connection(self._address, timeout=CONNECT_TIMEOUT)
        except TimeoutError:
            raise AdbTimeout("connect to adb server timeout") from None
        except OSError as exc:
            raise AdbConnectionError(f"connect to adb server failed: {exc}") from None
        sock.settimeout(None)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        if self._nodelay:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def check_okay(self) -> None:
        """adbutils leaves a connection open when the server refuses a request; close it."""
        try:
            super().check_okay()
        except AdbError:
            self.close()
            raise


class AdbClient(adbutils.AdbClient):
    """adbutils' client with the behaviour described in the module docstring."""

    def __init__(self, address: ServerAddress, *, nodelay: bool = True, socket_timeout: float | None = None) -> None:
        super().__init__(address.host, address.port, socket_timeout)
        self.address = address
        self.nodelay = nodelay
        self._socket_timeout = socket_timeout
        self._version: int | None = None

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        connection = _Connection(self.host, self.port, self.nodelay)
        limit = timeout or self._socket_timeout
        if limit:
            connection.conn.settimeout(limit)
        return connection

    def server_version(self) -> int:
        if self._version is None:
            self._version = int(super().server_version())
        return self._version


def connect_server(address: ServerAddress | None = None, *, nodelay: bool = True) -> AdbClient:
    """A client for the adb server at ``address`` (default: from the environment), checked to be
    listening."""
    client = AdbClient(address or ServerAddress.from_env(), nodelay=nodelay)
    try:
        client.server_version()
    except (AdbConnectionError, AdbTimeout, OSError) as exc:
        raise InfrastructureError(no_server_message(client.address, exc)) from None
    except AdbError as exc:
        raise InfrastructureError(f"the adb server at {client.address} does not answer like one: {exc}") from None
    return client


def no_server_message(address: ServerAddress, exc: BaseException) -> str:
    cause = " ".join(str(exc).split()) or type(exc).__name__
    return (
        f"no adb server at {address} ({cause}); start one with `adb start-server` "
        f"(or set ANDROID_ADB_SERVER_HOST/ANDROID_ADB_SERVER_PORT) — trailblaze never starts one itself"
    )
