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
import hashlib
import io
import json
import shlex
import struct
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol
from xml.sax.saxutils import quoteattr

from tests.standins.sample_app import (
    CRASHING_APP,
    HEIGHT,
    LAUNCHER,
    PERMISSIONS,
    SAMPLE_APP,
    WIDTH,
    SampleApp,
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


class FakeAndroid:
    """One phone. ``scale`` maps the app's 360×800 layout to pixels; ``density`` is the dpi."""

    def __init__(
        self,
        serial: str = "emulator-5554",
        *,
        model: str = "Pixel 7",
        scale: int = 3,
        density: int = 480,
        app: SampleApp | None = None,
    ) -> None:
        self.serial = serial
        self.model = model
        self.scale = scale
        self.density = density
        self.app = app or SampleApp()
        self.state = "device"
        self.files: dict[str, bytes] = {}
        self.clipboard = ""
        #: ``settings put`` values by (namespace, key); ``am broadcast`` intents as sent
        self.settings: dict[tuple[str, str], str] = {}
        self.broadcasts: list[dict[str, object]] = []
        self.app_ops: dict[tuple[str, str], str] = {}
        self.airplane_mode = False
        #: packages that come with the system image (``pm list packages -s``)
        self.system_packages = {LAUNCHER, "com.android.settings"}
        self.u2_running = False
        #: the log buffer ``logcat`` dumps: (seconds since the epoch, pid, priority, tag, message)
        self.logcat: list[tuple[float, int, str, str, str]] = []
        #: commands this phone's shell does not have (a stripped-down image without ``logcat``)
        self.missing_commands: set[str] = set()
        self.calls: list[tuple[str, str]] = []
        self.call_times: list[float] = []
        #: two-finger gestures (uiautomator2's ``gesture``): start and end of each finger, in layout units
        self.gestures: list[tuple[tuple[int, int], ...]] = []
        self.lock = threading.RLock()
        self._screenshot: bytes | None = None

    @property
    def width(self) -> int:
        return WIDTH * self.scale

    @property
    def height(self) -> int:
        return HEIGHT * self.scale

    def log(self, kind: str, what: str) -> None:
        with self.lock:
            self.calls.append((kind, what))
            self.call_times.append(time.monotonic())

    def add_log(self, tag: str, message: str, priority: str = "I", *, at: float | None = None, pid: int = 4242) -> None:
        """An entry in the device's log, logged now (or ``at``, seconds since the epoch)."""
        with self.lock:
            self.logcat.append((time.time() if at is None else at, pid, priority, tag, message))

    def rpc_methods(self) -> list[str]:
        return [what for kind, what in self.calls if kind == "rpc"]

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

    def key(self, name: str) -> bool:
        app = self.app
        if name == "back":
            app.back()
        elif name == "home":
            app.home()
        elif name == "del":
            app.erase(1)
        return True

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

    # -- the hierarchy, as uiautomator2 dumps it --------------------------------------------------------

    def resource_id(self, rid: str) -> str:
        if ":" in rid:  # a full id (android:id/text1, another app's)
            return rid
        return f"{SAMPLE_APP}:id/{rid}" if rid else ""

    def dump(self) -> str:
        screen = self.app.render()
        package = self.app.showing
        lines = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", '<hierarchy rotation="0">']
        status_bar = _Node(
            "android.widget.FrameLayout",
            "com.android.systemui",
            (0, 0, self.width, 24 * self.scale),
            children=[_Node("android.widget.TextView", "com.android.systemui", (30, 10, 150, 60), text="12:00")],
        )
        window = _Node("android.widget.FrameLayout", package, (0, 0, self.width, self.height))
        window.children = [self._node(child, package) for child in screen.children]
        for index, node in enumerate([window, status_bar]):
            node.write(lines, 1, index)
        lines.append("</hierarchy>")
        return "\r\n".join(lines)

    def _node(self, w: Widget, package: str) -> _Node:
        s = self.scale
        box = tuple(v * s for v in w.box)
        rid = self.resource_id(w.rid) if package != LAUNCHER else ""
        if w.kind in ("text", "bar"):
            return _Node(
                "android.widget.TextView",
                package,
                box,
                text=w.label,
                rid=rid,
                desc=w.desc,
                clickable=w.clickable,
                selected=w.selected,
                checkable=w.checked is not None,
                checked=bool(w.checked),
            )
        if w.kind == "icon":
            return _Node("android.widget.TextView", package, box, text=w.label, desc=w.label, clickable=True)
        if w.kind in ("button", "tab", "item"):
            label = _Node("android.widget.TextView", package, _inset(box, 8 * s), text=w.label)
            return _Node(
                "android.view.View", package, box, rid=rid, clickable=True, selected=w.selected, children=[label]
            )
        if w.kind == "field":
            label = _Node(
                "android.widget.TextView",
                package,
                (box[0] + 12 * s, box[1] + 4 * s, box[0] + 120 * s, box[1] + 20 * s),
                text=w.label,
            )
            return _Node(
                "android.widget.EditText",
                package,
                box,
                text=w.value,
                rid=rid,
                clickable=True,
                focusable=True,
                focused=w.focused,
                children=[label],
            )
        if w.kind == "switch":
            return _Node(
                "android.widget.Switch",
                package,
                box,
                text=w.label,
                rid=rid,
                clickable=True,
                checkable=True,
                checked=bool(w.checked),
            )
        if w.kind == "list":
            return _Node(
                "android.view.View",
                package,
                box,
                rid=rid,
                scrollable=True,
                children=[self._node(child, package) for child in w.children],
            )
        if w.kind == "alert":
            title = _Node(
                "android.widget.TextView", package, _inset(box, 16 * s), text=w.label, rid="android:id/alertTitle"
            )
            buttons = [
                _Node(
                    "android.widget.Button",
                    package,
                    tuple(v * s for v in b.box),
                    text=b.label.upper(),
                    rid="android:id/button1" if b.label == "Reset" else "android:id/button2",
                    clickable=True,
                )
                for b in w.children
            ]
            return _Node("android.widget.FrameLayout", package, box, children=[title, *buttons])
        if w.kind == "keyboard":
            return _Node("android.view.View", package, (0, 0, 0, 0), visible=False)
        return _Node(
            "android.view.View",
            package,
            box,
            rid=rid,
            desc=w.desc,
            clickable=w.clickable,
            children=[self._node(c, package) for c in w.children],
        )

    # -- the shell ------------------------------------------------------------------------------------

    def shell(self, command: str) -> bytes:
        """Run a command line; ``; echo X4EXIT:$?`` (adbutils' exit-code trick) is honoured."""
        marker = "; echo X4EXIT:$?"
        wants_code = command.endswith(marker)
        if wants_code:
            command = command[: -len(marker)]
        output, code = "", 0
        for part in _split_commands(command):
            out, code = self.run(part)
            output += out
        if wants_code:
            output += f"X4EXIT:{code}\n"
        return output.encode()

    def run(self, line: str) -> tuple[str, int]:
        try:
            argv = shlex.split(line)
        except ValueError:
            return "/system/bin/sh: syntax error\n", 2
        if not argv:
            return "", 0
        app = self.app
        name, args = argv[0], argv[1:]
        if name in self.missing_commands:
            return f"/system/bin/sh: {name}: not found\n", 127
        if name == "toybox" and args[:1] == ["md5sum"]:
            path = args[1]
            if path not in self.files:
                return f"md5sum: {path}: No such file or directory\n", 1
            return f"{hashlib.md5(self.files[path]).hexdigest()}  {path}\n", 0
        if name == "getprop":
            props = {"ro.product.model": self.model, "ro.build.version.sdk": "34", "ro.serialno": self.serial}
            return props.get(args[0], "") + "\n", 0
        if name == "wm" and args[:1] == ["size"]:
            return f"Physical size: {self.width}x{self.height}\n", 0
        if name == "wm" and args[:1] == ["density"]:
            return f"Physical density: {self.density}\n", 0
        if name == "dumpsys" and args[:1] == ["window"]:
            front = app.showing if app.showing != LAUNCHER else None
            focus = f"{front}/{front}.MainActivity" if front else f"{LAUNCHER}/{LAUNCHER}.Launcher"
            return f"  mCurrentFocus=Window{{4f1c2a u0 {focus}}}\n  mFocusedApp=ActivityRecord{{1 u0 {focus}}}\n", 0
        if name == "dumpsys" and args[:1] == ["input_method"]:
            return f"  mInputShown={'true' if app.keyboard_shown() else 'false'}\n", 0
        if name == "dumpsys" and args[:1] == ["display"]:
            return "  mCurrentOrientation=0\n  orientation=0\n", 0
        if name == "ime" and args[:1] == ["list"]:
            return "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n", 0
        if name == "cmd" and args[:2] == ["package", "resolve-activity"]:
            package = args[-1]
            if package not in app.installed:
                return "No activity found\n", 0
            return f"priority=0 preferredOrder=0 match=0x108000 isDefault=true\n{package}/.MainActivity\n", 0
        if name == "am" and args[:1] == ["start"]:
            return self._am_start(args[1:])
        if name == "am" and args[:1] == ["broadcast"]:
            return self._am_broadcast(args[1:])
        if name == "dumpsys" and args[:1] == ["package"] and len(args) > 1:
            return self._dumpsys_package(args[1])
        if name == "cmd" and args[:2] == ["connectivity", "airplane-mode"]:
            if args[2:] == ["enable"]:
                self.airplane_mode = True
            elif args[2:] == ["disable"]:
                self.airplane_mode = False
            elif args[2:]:
                return f"Unknown airplane-mode command: {args[2]}\n", 255
            return ("enabled\n" if self.airplane_mode else "disabled\n") if not args[2:] else "", 0
        if name == "settings" and len(args) >= 3 and args[0] in ("put", "get"):
            key = (args[1], args[2])
            if args[0] == "put":
                self.settings[key] = " ".join(args[3:])
                return "", 0
            return self.settings.get(key, "null") + "\n", 0
        if name == "appops" and args[:1] == ["set"] and len(args) == 4:
            if args[1] not in app.installed:
                return f"Error: Unknown package: {args[1]}\n", 255
            self.app_ops[(args[1], args[2])] = args[3]
            return "", 0
        if name == "appops" and args[:1] == ["get"] and len(args) == 3:
            return f"{args[2]}: {self.app_ops.get((args[1], args[2]), 'default')}\n", 0
        if name == "mkdir":
            return "", 0
        if name == "am" and args[:1] == ["force-stop"]:
            app.force_stop(args[1])
            return "", 0
        if name == "pm":
            return self._pm(args)
        if name == "monkey":
            package = args[args.index("-p") + 1]
            if not app.launch(package):
                return "** No activities found to run, monkey aborted.\n", 252
            self._log_start(package)
            return "Events injected: 1\n", 0
        if name == "logcat":
            return self._logcat(args)
        if name == "input" and args[:1] == ["keyevent"]:
            for code in args[1:]:
                self.key({"4": "back", "3": "home", "67": "del"}.get(code, code.lower()))
            return "", 0
        if name == "rm":
            for path in (a for a in args if not a.startswith("-")):
                self.files.pop(path, None)
            return "", 0
        if name in ("echo",):
            return " ".join(args) + "\n", 0
        if name == "ps":
            running = f"u0_a100  4242  1 0 0 0 0 S {SAMPLE_APP}\n" if app.running else ""
            return "USER PID PPID VSZ RSS WCHAN ADDR S NAME\n" + running, 0
        return f"/system/bin/sh: {name}: inaccessible or not found\n", 127

    def _log_start(self, package: str) -> None:
        self.add_log("ActivityTaskManager", f"START u0 {{cmp={package}/.MainActivity}} from uid 2000", pid=1000)

    def _logcat(self, args: list[str]) -> tuple[str, int]:
        """``logcat -d [-v epoch] [-v printable] [-t SECONDS.MILLIS]``: the buffer, oldest first, in
        the threadtime layout (``TIME  PID  TID P TAG     : message``), each message line its own."""
        if "-d" not in args:
            return "logcat: the stand-in only dumps (-d); it does not follow the log\n", 1
        formats = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "-v"]
        since = None
        if "-t" in args:
            value = args[args.index("-t") + 1]
            try:
                since = float(value)
            except ValueError:
                return f"logcat: the stand-in reads -t as seconds.millis, not {value!r}\n", 1
        lines = []
        with self.lock:
            entries = sorted(self.logcat)
        for at, pid, priority, tag, message in entries:
            if since is not None and at < since:
                continue
            if "epoch" in formats:
                stamp = f"{at:17.3f}"
            else:
                stamp = time.strftime("%m-%d %H:%M:%S", time.localtime(at)) + f".{int(at % 1 * 1000):03d}"
            if "printable" in formats:
                message = "".join(c if c.isprintable() or c == "\n" else f"\\x{ord(c):02x}" for c in message)
            lines += [f"{stamp} {pid:5d} {pid:5d} {priority} {tag:<8}: {part}\n" for part in message.split("\n")]
        return "".join(lines), 0

    def _am_broadcast(self, args: list[str]) -> tuple[str, int]:
        intent: dict[str, object] = {"extras": _extras(args)}
        if "-a" in args:
            intent["action"] = args[args.index("-a") + 1]
        if "-n" in args:
            intent["component"] = args[args.index("-n") + 1]
        self.broadcasts.append(intent)
        return f"Broadcasting: Intent {{ act={intent.get('action')} flg=0x400000 }}\nBroadcast completed: result=0\n", 0

    def _dumpsys_package(self, package: str) -> tuple[str, int]:
        if package not in self.app.installed | self.system_packages:
            return f"Unable to find package: {package}\n", 0
        system = package in self.system_packages
        lines = [
            "Packages:",
            f"  Package [{package}] (4f1c2a):",
            f"    codePath={self._code_path(package)}",
            "    versionCode=42 minSdk=24 targetSdk=34",
            f"    versionName={'14' if system else '1.2.3'}",
            f"    pkgFlags=[ {'SYSTEM ' if system else ''}HAS_CODE ALLOW_CLEAR_USER_DATA ]",
        ]
        if package == SAMPLE_APP:
            requested = (*PERMISSIONS, "android.permission.INTERNET")
            lines += ["    requested permissions:", *(f"      {p}" for p in requested)]
            lines += ["    install permissions:", "      android.permission.INTERNET: granted=true"]
        return "\n".join(lines) + "\n", 0

    def _code_path(self, package: str) -> str:
        if package in self.system_packages:
            return f"/system/priv-app/{package.rsplit('.', 1)[-1]}"
        return f"/data/app/~~x1y2/{package}-1"

    def _am_start(self, args: list[str]) -> tuple[str, int]:
        app = self.app
        if "-n" in args:
            component = args[args.index("-n") + 1]
            package = component.split("/", 1)[0]
            if package not in app.installed:
                return (
                    f"Starting: Intent {{ cmp={component} }}\nError type 3\n"
                    f"Error: Activity class {{{component}}} does not exist.\n",
                    0,
                )
            app.launch(package)
            self._log_start(package)
            app.launch_arguments = _extras(args)
            return f"Starting: Intent {{ act=android.intent.action.MAIN cmp={component} }}\n", 0
        if "-d" in args:
            url = args[args.index("-d") + 1]
            if not app.open_link(url):
                return (
                    f"Starting: Intent {{ act=android.intent.action.VIEW dat={url} }}\n"
                    "Error: Activity not started, unable to resolve Intent "
                    f"{{ act=android.intent.action.VIEW dat={url} }}\n",
                    0,
                )
            return f"Starting: Intent {{ act=android.intent.action.VIEW dat={url} }}\n", 0
        if "-p" in args:  # the package's launcher activity (`-a MAIN -c LAUNCHER -p PACKAGE`)
            package = args[args.index("-p") + 1]
            intent = f"act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] pkg={package}"
            if not app.launch(package):
                return f"Starting: Intent {{ {intent} }}\nError: Activity not started, unable to resolve Intent\n", 0
            self._log_start(package)
            return f"Starting: Intent {{ {intent} }}\n", 0
        return "Error: no intent given\n", 1

    def _pm(self, args: list[str]) -> tuple[str, int]:
        app = self.app
        verb = args[0] if args else ""
        if verb == "clear":
            return ("Success\n", 0) if app.clear_data(args[1]) else ("Failed\n", 1)
        if verb == "grant":
            error = app.grant(args[1], args[2])
            if error is None:
                return "", 0
            return f"Exception occurred while executing 'grant':\njava.lang.IllegalArgumentException: {error}\n", 255
        if verb == "revoke":
            error = app.revoke(args[1], args[2])
            if error is None:
                return "", 0
            return f"Exception occurred while executing 'revoke':\njava.lang.IllegalArgumentException: {error}\n", 255
        if verb == "list" and args[1:2] == ["packages"]:
            flags = set(args[2:])
            packages = app.installed | self.system_packages
            if "-s" in flags:
                packages = packages & self.system_packages
            if "-3" in flags:
                packages = packages - self.system_packages
            if "-f" in flags:
                return "".join(f"package:{self._code_path(p)}/base.apk={p}\n" for p in sorted(packages)), 0
            return "".join(f"package:{p}\n" for p in sorted(packages)), 0
        if verb == "install":
            data = self.files.get(args[-1], b"")
            if not data.startswith(b"FAKEAPK:"):
                return "Failure [INSTALL_PARSE_FAILED_NOT_APK: not an APK]\n", 1
            app.installed.add(data[len(b"FAKEAPK:") :].decode().strip())
            return "Performing Streamed Install\nSuccess\n", 0
        if verb == "uninstall":
            if args[-1] not in app.installed:
                return "Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1
            app.installed.discard(args[-1])
            return "Success\n", 0
        return f"Unknown command: {verb}\n", 1

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


class _Node:
    """One ``<node>`` of a uiautomator dump, written with its attributes in the server's order."""

    def __init__(
        self,
        cls: str,
        package: str,
        box: tuple[int, ...],
        *,
        text: str = "",
        rid: str = "",
        desc: str = "",
        clickable: bool = False,
        focusable: bool = False,
        focused: bool = False,
        selected: bool = False,
        scrollable: bool = False,
        checkable: bool = False,
        checked: bool = False,
        visible: bool = True,
        children: list[_Node] | None = None,
    ) -> None:
        self.attrs = {
            "text": text,
            "resource-id": rid,
            "class": cls,
            "package": package,
            "content-desc": desc,
            "checkable": checkable,
            "checked": checked,
            "clickable": clickable,
            "enabled": True,
            "focusable": focusable or clickable,
            "focused": focused,
            "scrollable": scrollable,
            "long-clickable": clickable and cls == "android.view.View",
            "password": False,
            "selected": selected,
            "visible-to-user": visible,
            "bounds": "[{},{}][{},{}]".format(*box),
        }
        self.children = children or []

    def write(self, lines: list[str], depth: int, index: int) -> None:
        parts = [f"index={quoteattr(str(index))}"]
        for key, value in self.attrs.items():
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            parts.append(f"{key}={quoteattr(text, {chr(10): '&#10;'})}")
        parts += ['drawing-order="0"', 'hint=""', 'display-id="0"']
        indent = "  " * depth
        if not self.children:
            lines.append(f"{indent}<node {' '.join(parts)} />")
            return
        lines.append(f"{indent}<node {' '.join(parts)}>")
        for i, child in enumerate(self.children):
            child.write(lines, depth + 1, i)
        lines.append(f"{indent}</node>")


def _extras(args: list[str]) -> dict[str, object]:
    """Intent extras of an ``am`` command line, typed as the flags say."""
    kinds = {"-e": str, "--es": str, "--ei": int, "--el": int, "--ef": float, "--ez": lambda v: v == "true"}
    extras: dict[str, object] = {}
    i = 0
    while i < len(args):
        convert = kinds.get(args[i])
        if convert is not None and i + 2 < len(args):
            extras[args[i + 1]] = convert(args[i + 2])  # type: ignore[operator]
            i += 3
        else:
            i += 1
    return extras


def _inset(box: tuple[int, ...], by: int) -> tuple[int, int, int, int]:
    left, top, right, bottom = box
    return left + by, top + by, right - by, bottom - by


def _split_commands(command: str) -> list[str]:
    """Split ``a; b`` outside quotes."""
    parts, current, quote = [], "", ""
    for char in command:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ";":
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def _read_exact(stream: Stream, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = stream.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


__all__ = ["CRASHING_APP", "SAMPLE_APP", "FakeAndroid", "RpcError", "Service", "Stream"]
