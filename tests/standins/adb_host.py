"""A stand-in adb server: the adb *host* protocol on a TCP port, for fake phones.

What adbutils (and so uiautomator2) sends to an adb server, answered the way adb answers it:
each request is four hex digits of length and the request; the reply is ``OKAY`` or ``FAIL``
plus a length-prefixed message. Implemented: ``host:version``, ``host:devices``,
``host:devices-l``, ``host:tport:serial:S`` / ``host:transport:S`` (the connection then carries
one device service: ``shell:``, ``tcp:PORT``, ``sync:``), ``host-serial:S:get-state``,
``host-serial:S:features`` and ``host:kill``.

:meth:`AdbHostStandIn.unplug` takes a phone away mid-run: it disappears from the device list,
and every connection to it is cut. Point clients at it with ``ANDROID_ADB_SERVER_PORT``.
This is test scaffolding, not a product feature.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import struct
import threading
from typing import Any

from tests.standins.android_phone import FakeAndroid

ADB_VERSION = 41


class _Socket:
    """The connection, as the stream a device service reads and writes."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def recv(self, n: int) -> bytes:
        try:
            return self.sock.recv(n)
        except OSError:
            return b""

    def sendall(self, data: bytes) -> None:
        self.sock.sendall(data)


class AdbHostStandIn:
    def __init__(self, *phones: FakeAndroid, host: str = "127.0.0.1") -> None:
        self.phones: dict[str, FakeAndroid] = {p.serial: p for p in phones}
        self.requests: list[str] = []
        self._connections: dict[str, set[socket.socket]] = {}
        self._lock = threading.Lock()
        stand_in = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                stand_in._handle(self.request)

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._server = Server((host, 0), Handler)
        self.host, self.port = self._server.server_address[:2]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="adb-host-stand-in", daemon=True
        )

    def __enter__(self) -> AdbHostStandIn:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> AdbHostStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        for serial in list(self._connections):
            self._cut(serial)

    @property
    def env(self) -> dict[str, str]:
        """The variables that send adb clients here (and stop adbutils from starting a real adb)."""
        return {
            "ANDROID_ADB_SERVER_HOST": str(self.host),
            "ANDROID_ADB_SERVER_PORT": str(self.port),
            "ADBUTILS_ADB_PATH": "/bin/false",
        }

    def add(self, phone: FakeAndroid) -> None:
        self.phones[phone.serial] = phone

    def unplug(self, serial: str) -> None:
        """The phone goes away: gone from the list, its connections cut."""
        phone = self.phones.pop(serial, None)
        if phone is not None:
            phone.state = "gone"
            phone.u2_running = False
        self._cut(serial)

    def _cut(self, serial: str) -> None:
        with self._lock:
            sockets = self._connections.pop(serial, set())
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    # -- the protocol -------------------------------------------------------------------------------

    def _handle(self, sock: socket.socket) -> None:
        stream = _Socket(sock)
        request = _read_request(stream)
        if request is None:
            return
        self.requests.append(request)
        if request == "host:version":
            _okay(sock, f"{ADB_VERSION:04x}")
        elif request in ("host:devices", "host:devices-l"):
            _okay(sock, self._device_list(extended=request.endswith("-l")))
        elif request == "host:kill":
            sock.sendall(b"OKAY")
        elif request.startswith(("host:tport:serial:", "host:transport:")):
            serial = request.removeprefix("host:transport:").removeprefix("host:tport:serial:")
            self._transport(sock, stream, serial, with_id=request.startswith("host:tport:"))
        elif request.startswith("host-serial:"):
            serial, _, what = request[len("host-serial:") :].rpartition(":")
            phone = self.phones.get(serial)
            if phone is None:
                _fail(sock, f"device '{serial}' not found")
            elif what == "get-state":
                _okay(sock, phone.state)
            elif what == "features":
                _okay(sock, "cmd,stat_v2")
            else:
                _fail(sock, f"unknown host service {what}")
        else:
            _fail(sock, f"unknown host service {request}")

    def _device_list(self, *, extended: bool) -> str:
        lines = []
        for i, phone in enumerate(self.phones.values(), start=1):
            line = f"{phone.serial}\t{phone.state}"
            if extended:
                model = phone.model.replace(" ", "_")
                line = f"{phone.serial:<22} {phone.state} product:sample model:{model} device:sample transport_id:{i}"
            lines.append(line + "\n")
        return "".join(lines)

    def _transport(self, sock: socket.socket, stream: _Socket, serial: str, *, with_id: bool) -> None:
        phone = self.phones.get(serial)
        if phone is None:
            _fail(sock, f"device '{serial}' not found")
            return
        if phone.state != "device":
            _fail(sock, f"device '{serial}' {phone.state}")
            return
        sock.sendall(b"OKAY" + (struct.pack("<Q", 1) if with_id else b""))
        service_name = _read_request(stream)
        if service_name is None:
            return
        service = phone.open_service(service_name)
        if isinstance(service, str):
            _fail(sock, service)
            return
        with self._lock:
            self._connections.setdefault(serial, set()).add(sock)
        try:
            sock.sendall(b"OKAY")
            service(stream)
        except OSError:
            pass
        finally:
            with self._lock:
                self._connections.get(serial, set()).discard(sock)


def _read_request(stream: _Socket) -> str | None:
    header = b""
    while len(header) < 4:
        chunk = stream.recv(4 - len(header))
        if not chunk:
            return None
        header += chunk
    length = int(header, 16)
    body = b""
    while len(body) < length:
        chunk = stream.recv(length - len(body))
        if not chunk:
            return None
        body += chunk
    return body.decode()


def _okay(sock: socket.socket, message: str) -> None:
    data = message.encode()
    sock.sendall(b"OKAY" + f"{len(data):04x}".encode() + data)


def _fail(sock: socket.socket, message: str) -> None:
    data = message.encode()
    sock.sendall(b"FAIL" + f"{len(data):04x}".encode() + data)
