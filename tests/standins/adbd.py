"""A stand-in adbd: the adb device transport protocol over TCP, for a fake phone.

A real adb server reaches it with ``adb connect 127.0.0.1:PORT`` (``host:connect:…``), exactly
as it reaches an emulator or a phone in TCP mode, so the chain under test is
uiautomator2 → adbutils → **Google's adb server** → this → :class:`FakeAndroid`.

The protocol (adb's protocol.txt): 24-byte little-endian headers ``command, arg0, arg1,
data_length, data_check, magic`` and a payload. The host opens with ``CNXN``; the device answers
``CNXN`` with its banner (no authentication: an ``ro.adb.secure=0`` device). Streams are opened
with ``OPEN(local, 0, "service\\0")`` and accepted with ``OKAY`` or refused with ``CLSE``; data
flows in ``WRTE`` packets, each acknowledged with ``OKAY`` before the next one is sent on that
stream; either side ends a stream with ``CLSE``. This is test scaffolding, not a product feature.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from typing import Any

from tests.standins.android_phone import FakeAndroid, Service

A_SYNC, A_CNXN, A_OPEN, A_OKAY = 0x434E5953, 0x4E584E43, 0x4E45504F, 0x59414B4F
A_CLSE, A_WRTE, A_AUTH = 0x45534C43, 0x45545257, 0x48545541
A_VERSION = 0x01000001
MAX_PAYLOAD = 256 * 1024
_HEADER = struct.Struct("<6I")


class AdbdStandIn:
    """Listens on 127.0.0.1; each accepted connection is one adb transport to ``phone``."""

    def __init__(self, phone: FakeAndroid) -> None:
        self.phone = phone
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self.address = f"127.0.0.1:{self.port}"
        self._transports: list[_Transport] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="adbd-stand-in", daemon=True)

    def __enter__(self) -> AdbdStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for transport in self._transports:
            transport.shutdown()
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            transport = _Transport(conn, self.phone)
            self._transports.append(transport)
            threading.Thread(target=transport.run, name="adbd-transport", daemon=True).start()


class _Transport:
    def __init__(self, sock: socket.socket, phone: FakeAndroid) -> None:
        self.sock = sock
        self.phone = phone
        self.max_payload = 4096
        self.streams: dict[int, _Stream] = {}
        self._send_lock = threading.Lock()
        self._next_id = 1
        self.packets: list[tuple[int, str]] = []

    def shutdown(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        header = _HEADER.pack(command, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF, command ^ 0xFFFFFFFF)
        with self._send_lock:
            self.sock.sendall(header + data)

    def run(self) -> None:
        try:
            while True:
                header = self._read(_HEADER.size)
                if header is None:
                    return
                command, arg0, arg1, length, _, _ = _HEADER.unpack(header)
                payload = self._read(length) if length else b""
                if payload is None:
                    return
                self._dispatch(command, arg0, arg1, payload)
        except OSError:
            return
        finally:
            for stream in list(self.streams.values()):
                stream.closed_by_host()

    def _read(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def _dispatch(self, command: int, arg0: int, arg1: int, payload: bytes) -> None:
        if command == A_CNXN:
            self.max_payload = min(arg1, MAX_PAYLOAD)
            model = self.phone.model.replace(" ", "_")
            banner = f"device::ro.product.name=sample;ro.product.model={model};ro.product.device=sample;features=cmd\0"
            self.send(A_CNXN, A_VERSION, MAX_PAYLOAD, banner.encode())
        elif command == A_OPEN:
            name = payload.rstrip(b"\0").decode()
            self.packets.append((command, name))
            service = self.phone.open_service(name)
            if isinstance(service, str):
                self.send(A_CLSE, 0, arg0)
                return
            local, self._next_id = self._next_id, self._next_id + 1
            stream = _Stream(self, local, arg0)
            self.streams[local] = stream
            self.send(A_OKAY, local, arg0)
            threading.Thread(target=self._serve, args=(stream, service), daemon=True).start()
        elif command == A_WRTE:
            stream = self.streams.get(arg1)
            if stream is not None:
                stream.feed(payload)
                self.send(A_OKAY, arg1, arg0)
        elif command == A_OKAY:
            stream = self.streams.get(arg1)
            if stream is not None:
                stream.acknowledged()
        elif command == A_CLSE:
            stream = self.streams.pop(arg1, None)
            if stream is not None:
                stream.closed_by_host()

    def _serve(self, stream: _Stream, service: Service) -> None:
        try:
            service(stream)
        except OSError:
            pass
        finally:
            stream.close()


class _Stream:
    """One adb stream, as the byte stream a device service reads and writes."""

    def __init__(self, transport: _Transport, local: int, remote: int) -> None:
        self.transport = transport
        self.local = local
        self.remote = remote
        self._inbox = bytearray()
        self._arrived = threading.Condition()
        self._window = threading.Event()
        self._window.set()
        self._closed = False

    def feed(self, data: bytes) -> None:
        with self._arrived:
            self._inbox += data
            self._arrived.notify_all()

    def acknowledged(self) -> None:
        self._window.set()

    def closed_by_host(self) -> None:
        with self._arrived:
            self._closed = True
            self._arrived.notify_all()
        self._window.set()

    def recv(self, n: int) -> bytes:
        with self._arrived:
            while not self._inbox and not self._closed:
                self._arrived.wait()
            data = bytes(self._inbox[:n])
            del self._inbox[:n]
            return data

    def sendall(self, data: bytes) -> None:
        size = self.transport.max_payload
        for start in range(0, len(data), size):
            self._window.wait()
            if self._closed:
                raise OSError("the host closed the stream")
            self._window.clear()
            self.transport.send(A_WRTE, self.local, self.remote, data[start : start + size])

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.transport.streams.pop(self.local, None)
        with contextlib.suppress(OSError):
            self.transport.send(A_CLSE, self.local, self.remote)
