"""A fake Android phone: what adbd and uiautomator2's on-device server would answer.

``FakeAndroid`` holds the device side of everything trailblaze reaches through adb: files
(``sync:`` pushes u2.jar), the shell commands uiautomator2, adbutils and trailblaze run, and
uiautomator2's JSON-RPC server (``POST /jsonrpc/0`` behind ``tcp:9008``) answering from hierarchy
XML in uiautomator2's exact dump format, rendered from :mod:`tests.standins.sample_app`.

The transports that carry these services live elsewhere: :mod:`tests.standins.adb_host` speaks
the adb *host* protocol (it replaces the adb server), :mod:`tests.standins.adbd` speaks the
device transport protocol behind a real adb server. Both call :meth:`FakeAndroid.open_service`.

Every service request is logged in ``calls`` (``("rpc", method)``, ``("shell", command)``…) so
tests can check exactly what went over the wire. This is test scaffolding, not a product feature.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import time
from collections.abc import Callable
from typing import Any, Protocol

from tests.standins.android_screen import PhoneScreen
from tests.standins.android_shell import PhoneShell
from tests.standins.sample_app import (
    CRASHING_APP,
    LAUNCHER,
    SAMPLE_APP,
    Widget,
)

U2_PORT = 9008


class Stream(Protocol):
    """A byte stream to the host: a socket (host protocol) or an adb stream (device protocol)."""

    def recv(self, n: int) -> bytes: ...

    def sendall(self, data: bytes) -> None: ...


Service = Callable[[Stream], None]


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class FakeAndroid(PhoneScreen, PhoneShell):
    """One phone. ``scale`` maps the app's 360×800 layout to pixels; ``density`` is the dpi.
    Its state is :class:`~tests.standins.android_state.PhoneState`'s; what it shows and its shell
    are the two classes it is made of, the services and uiautomator2's server are here."""

    # -- services (what the host may open on the device) ------------------------------------------

    def open_service(self, name: str) -> Service | str:
        """The handler for a device service, or the reason it is refused."""
        if self.state != "device":
            return "device offline"
        if name.startswith("shell:"):
            command = name[len("shell:") :]
            self.log("shell", command)
            if "app_process" in command and "com.wetest.uia2.Main" in command:
                return self._uiautomator_process
            return lambda stream: stream.sendall(self.shell(command))
        if name.startswith("tcp:"):
            port = int(name[len("tcp:") :])
            if port != U2_PORT or not self.u2_running:
                return "closed"
            return self._serve_http
        if name == "sync:":
            return self._serve_sync
        return f"unknown service {name.split(':', 1)[0]}"

    # -- uiautomator2's server ------------------------------------------------------------------------

    def _uiautomator_process(self, stream: Stream) -> None:
        """``app_process … com.wetest.uia2.Main``: runs until the host closes the stream."""
        if "/data/local/tmp/u2.jar" not in self.files:
            stream.sendall(b"Error: Could not find or load main class com.wetest.uia2.Main\n")
            return
        self.u2_running = True
        try:
            stream.sendall(b"[server] INFO: [UiAutomator2Server] Starting Server\n")
            while stream.recv(4096):
                pass
        except OSError:
            pass
        finally:
            self.u2_running = False

    def _serve_http(self, stream: Stream) -> None:
        """HTTP/1.1 for ``GET /ping`` and ``POST /jsonrpc/0``; each response in one write."""
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                chunk = stream.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            length = int(headers.get("content-length", "0"))
            while len(buffer) < length:
                chunk = stream.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            body, buffer = buffer[:length], buffer[length:]
            status, payload = self._http(method, path, body)
            reason = "OK" if status == 200 else "Not Found"
            stream.sendall(
                f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\n\r\n".encode()
                + payload
            )
            if headers.get("connection", "").lower() == "close":
                return

    def _http(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        if method == "GET" and path == "/ping":
            return 200, b"pong"
        if method == "POST" and path == "/jsonrpc/0":
            request = json.loads(body)
            params = request.get("params") or []
            self.log("rpc", request["method"])
            try:
                result = self.rpc(request["method"], params)
                response = {"jsonrpc": "2.0", "id": request.get("id"), "result": result}
            except RpcError as exc:
                response = {
                    "jsonrpc": "2.0",
                    "id": request.get("id"),
                    "error": {"code": exc.code, "message": exc.message, "data": ""},
                }
            return 200, json.dumps(response).encode()
        return 404, b"{}"

    def rpc(self, method: str, params: Any) -> Any:
        """uiautomator2's JSON-RPC methods (the subset trailblaze and its benchmarks use)."""
        args = list(params) if isinstance(params, list) else []
        app, s = self.app, self.scale
        if method == "deviceInfo":
            return {
                "currentPackageName": app.front or LAUNCHER,
                "displayWidth": self.width,
                "displayHeight": self.height,
                "displayRotation": 0,
                "displaySizeDpX": self.width * 160 // self.density,
                "displaySizeDpY": self.height * 160 // self.density,
                "productName": "sample_phone",
                "screenOn": True,
                "sdkInt": 34,
                "naturalOrientation": True,
            }
        if method == "dumpWindowHierarchy":
            return self.dump()
        if method == "click":
            x, y = args[0], args[1]
            app.tap(x // s, y // s, long=len(args) > 2 and args[2] >= 500)
            return True
        if method == "swipe":
            fx, fy, tx, ty = args[:4]
            app.swipe(fx // s, fy // s, tx // s, ty // s)
            return True
        if method == "gesture":  # selector, start1, start2, end1, end2, steps
            self.gestures.append(tuple((point["x"] // s, point["y"] // s) for point in args[1:5]))
            return True
        if method == "pressKey":
            return self.key(str(args[0]))
        if method == "pressKeyCode":
            names = {4: "back", 3: "home", 66: "enter", 67: "del", 61: "tab", 111: "escape"}
            return self.key(names.get(int(args[0]), "unknown"))
        if method == "setClipboard":
            self.clipboard = str(args[1])
            return None
        if method == "getClipboard":
            return self.clipboard
        if method == "pasteClipboard":
            app.type(self.clipboard)
            return None
        if method == "clearInputText":
            app.erase(None)
            return None
        if method == "takeScreenshot":
            return base64.b64encode(self.screenshot()).decode()
        if method in ("waitForExists", "objInfo"):
            node = self.find_widget(args[0] if args else {})
            if method == "waitForExists":
                return node is not None
            if node is None:
                raise RpcError(-32002, "androidx.test.uiautomator.UiObjectNotFoundException: UiSelector")
            left, top, right, bottom = (v * s for v in node.box)
            box = {"left": left, "top": top, "right": right, "bottom": bottom}
            return {"bounds": box, "visibleBounds": box, "text": node.label, "clickable": node.clickable}
        raise RpcError(-32601, f"Method not found: {method}")

    def find_widget(self, selector: dict[str, Any]) -> Widget | None:
        for widget in self.app.render().walk():
            texts = [widget.label] if widget.kind in ("text", "bar", "icon") else []
            if widget.kind in ("button", "tab", "item", "switch"):
                texts = [widget.label]
            if "text" in selector and selector["text"] not in texts:
                continue
            if "resourceId" in selector and selector["resourceId"] != self.resource_id(widget.rid):
                continue
            return widget
        return None

    def screenshot(self) -> bytes:
        if self._screenshot is None:
            from PIL import Image

            buffer = io.BytesIO()
            Image.new("RGB", (self.width // 10, self.height // 10), (230, 230, 240)).save(buffer, "JPEG", quality=80)
            self._screenshot = buffer.getvalue()
        return self._screenshot

    # -- sync (adb push/stat) ---------------------------------------------------------------------------

    def _serve_sync(self, stream: Stream) -> None:
        while True:
            header = _read_exact(stream, 8)
            if header is None:
                return
            command, length = header[:4], struct.unpack("<I", header[4:])[0]
            if command == b"QUIT":
                return
            payload = _read_exact(stream, length) or b""
            path = payload.decode()
            if command == b"STAT":
                self.log("sync", f"STAT {path}")
                data = self.files.get(path)
                if data is None and path in ("/data/local/tmp", "/data/local/tmp/"):
                    stream.sendall(b"STAT" + struct.pack("<III", 0o40771, 4096, int(time.time())))
                elif data is None:
                    stream.sendall(b"STAT" + struct.pack("<III", 0, 0, 0))
                else:
                    stream.sendall(b"STAT" + struct.pack("<III", 0o100644, len(data), int(time.time())))
            elif command == b"SEND":
                target = path.rsplit(",", 1)[0]
                self.log("sync", f"SEND {target}")
                content = bytearray()
                while True:
                    chunk_header = _read_exact(stream, 8)
                    if chunk_header is None:
                        return
                    kind, size = chunk_header[:4], struct.unpack("<I", chunk_header[4:])[0]
                    if kind == b"DONE":
                        break
                    content += _read_exact(stream, size) or b""
                self.files[target] = bytes(content)
                stream.sendall(b"OKAY" + struct.pack("<I", 0))
            elif command == b"RECV":
                data = self.files.get(path)
                if data is None:
                    message = b"No such file or directory"
                    stream.sendall(b"FAIL" + struct.pack("<I", len(message)) + message)
                    continue
                for start in range(0, len(data), 65536):
                    chunk = data[start : start + 65536]
                    stream.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                stream.sendall(b"DONE" + struct.pack("<I", 0))
            else:
                message = b"unknown sync command"
                stream.sendall(b"FAIL" + struct.pack("<I", len(message)) + message)
                return


def _read_exact(stream: Stream, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = stream.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


__all__ = ["CRASHING_APP", "SAMPLE_APP", "FakeAndroid", "RpcError", "Service", "Stream"]
