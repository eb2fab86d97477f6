"""A stand-in WebDriverAgent: WDA's JSON-over-HTTP dialect, for a fake iPhone.

It answers what facebook-wda sends (``/status``, sessions, ``/source?format=xml``, ``/wda/tap``,
``/wda/keys``, ``/wda/apps/*``, alerts, ``/window/size``, ``/screenshot``…) from the same
sample app the fake Android phone shows (:mod:`tests.standins.sample_app`), rendered as XCUI
elements in points. Replies are ``{"value": …, "sessionId": …}``; errors carry WDA's
``{"error": …, "message": …}`` values. Whole numbers are JSON integers: facebook-wda reads a float
coordinate as a percentage of the screen.

:meth:`WdaStandIn.stop` makes the endpoint unreachable mid-run. This is test scaffolding.
"""

from __future__ import annotations

import base64
import io
import json
import re
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlparse
from xml.sax.saxutils import quoteattr

from tests.standins.httpserver import StandInServer
from tests.standins.sample_app import HEIGHT, SAMPLE_APP, WIDTH, SampleApp, Widget

_SESSION = re.compile(r"^/session/(?P<sid>[^/]+)(?P<rest>/.*)?$")
_NO_ALERT = {
    "error": "no such alert",
    "message": "An attempt was made to operate on a modal dialog when one was not open",
}


class WdaError(Exception):
    def __init__(self, status: int, value: dict[str, str]) -> None:
        super().__init__(value.get("message"))
        self.status = status
        self.value = value


class FakeIphone:
    """The device behind the endpoint: the sample app plus SpringBoard, in points."""

    def __init__(self, *, name: str = "Test iPhone", model: str = "iPhone", idiom: int = 0) -> None:
        self.name = name
        self.model = model
        self.idiom = idiom
        self.app = SampleApp()
        self.app.installed.add("com.apple.Preferences")
        self.locked = False
        self.calls: list[tuple[str, str]] = []
        self.pasteboard = ""
        #: multi-finger W3C actions: per finger, where it went down and where it lifted
        self.gestures: list[list[tuple[tuple[int, int], tuple[int, int]]]] = []

    def source(self) -> str:
        app = self.app
        screen = app.render()
        lines = ['<?xml version="1.0" encoding="UTF-8"?>']
        if not app.in_front:
            root = _El("XCUIElementTypeApplication", (0, 0, WIDTH, HEIGHT), name="SpringBoard", label=" ")
            root.children = [
                _El("XCUIElementTypeIcon", _box(w), name=w.label, label=w.label, accessible=True)
                for w in screen.children
            ]
        else:
            window = _El("XCUIElementTypeWindow", (0, 0, WIDTH, HEIGHT))
            window.children = [self._element(w) for w in screen.children]
            root = _El("XCUIElementTypeApplication", (0, 0, WIDTH, HEIGHT), name="Sample", label="Sample")
            root.children = [window]
        root.write(lines, 0, 0)
        return "\n".join(lines)

    def _element(self, w: Widget) -> _El:
        box = _box(w)
        if w.kind in ("text", "bar"):
            return _El(
                "XCUIElementTypeStaticText", box, name=w.rid or w.label, label=w.label, value=w.label, accessible=True
            )
        if w.kind in ("button", "item"):
            kind = "XCUIElementTypeButton" if w.kind == "button" else "XCUIElementTypeCell"
            return _El(kind, box, name=w.rid or w.label, label=w.label, accessible=True)
        if w.kind == "tab":
            return _El("XCUIElementTypeButton", box, name=w.label, label=w.label, selected=w.selected, accessible=True)
        if w.kind == "field":
            return _El(
                "XCUIElementTypeTextField",
                box,
                name=w.rid,
                label=w.label,
                value=w.value or w.label,
                placeholder=w.label,
                focused=w.focused,
                accessible=True,
            )
        if w.kind == "switch":
            return _El(
                "XCUIElementTypeSwitch",
                box,
                name=w.rid,
                label=w.label,
                value="1" if w.checked else "0",
                accessible=True,
            )
        if w.kind == "keyboard":
            return _El("XCUIElementTypeKeyboard", box)
        if w.kind == "alert":
            alert = _El("XCUIElementTypeAlert", box, name=w.label, label=w.label, accessible=True)
            alert.children = [_El("XCUIElementTypeStaticText", box, name=w.label, label=w.label, value=w.label)]
            alert.children += [self._element(b) for b in w.children]
            return alert
        kind = "XCUIElementTypeTable" if w.kind == "list" else "XCUIElementTypeOther"
        element = _El(kind, box, name=w.rid)
        element.children = [self._element(c) for c in w.children]
        return element

    def screenshot(self) -> bytes:
        from PIL import Image

        buffer = io.BytesIO()
        Image.new("RGB", (WIDTH // 4, HEIGHT // 4), (240, 240, 245)).save(buffer, "PNG")
        return buffer.getvalue()


class WdaStandIn(StandInServer):
    """The HTTP endpoint. ``url`` is what ``--device``/``WDA_URL`` take."""

    name = "wda-stand-in"

    def __init__(self, phone: FakeIphone | None = None, host: str = "127.0.0.1") -> None:
        self.phone = phone or FakeIphone()
        self.session_id: str | None = None
        # facebook-wda never closes its connections: a server that keeps them alive would leave
        # one open socket per request in the client
        self._listen(host, "HTTP/1.0")

    # -- requests ------------------------------------------------------------------------------------

    def _respond(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else {}
        parsed = urlparse(handler.path)
        path, sid = parsed.path.rstrip("/") or "/", None
        m = _SESSION.match(path)
        if m is not None:
            sid, path = m.group("sid"), m.group("rest") or "/"
        self.phone.calls.append((method, path))
        try:
            if sid is not None and sid != self.session_id:
                raise WdaError(404, {"error": "invalid session id", "message": "Session does not exist"})
            value = self._route(method, path, body, parsed.query, sid)
            status, payload = 200, {"value": value, "sessionId": self.session_id}
        except WdaError as exc:
            status, payload = exc.status, {"value": {**exc.value, "traceback": ""}, "sessionId": self.session_id}
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json;charset=UTF-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _route(self, method: str, path: str, body: dict[str, Any], query: str, sid: str | None) -> Any:
        phone, app = self.phone, self.phone.app
        if (method, path) == ("GET", "/status"):
            return {
                "message": "WebDriverAgent is ready to accept commands",
                "state": "success",
                "os": {"name": "iOS", "version": "17.5", "sdkVersion": "17.5"},
                "ios": {"ip": "127.0.0.1"},
                "ready": True,
                "device": "ipad" if phone.idiom == 1 else "iphone",
                "build": {"productBundleIdentifier": "com.facebook.WebDriverAgentRunner"},
            }
        if (method, path) == ("GET", "/wda/locked"):
            return phone.locked
        if (method, path) == ("POST", "/wda/unlock"):
            phone.locked = False
            return None
        if (method, path) == ("POST", "/session"):
            self.session_id = str(uuid.uuid4()).upper()
            return {"sessionId": self.session_id, "capabilities": {"device": "iphone", "sdkVersion": "17.5"}}
        if method == "DELETE" and path == "/":
            self.session_id = None
            return None
        if (method, path) == ("GET", "/source"):
            return phone.source()
        if (method, path) == ("GET", "/screenshot"):
            return base64.b64encode(phone.screenshot()).decode()
        if (method, path) == ("POST", "/wda/homescreen"):
            app.home()
            return None
        if sid is None:
            raise WdaError(404, {"error": "unknown command", "message": f"Unhandled endpoint: {path}"})
        return self._session_route(method, path, body)

    def _session_route(self, method: str, path: str, body: dict[str, Any]) -> Any:
        phone, app = self.phone, self.phone.app
        if (method, path) == ("GET", "/window/size"):
            return {"width": WIDTH, "height": HEIGHT}
        if (method, path) == ("GET", "/wda/device/info"):
            return {"name": phone.name, "model": phone.model, "userInterfaceIdiom": phone.idiom, "isSimulator": True}
        if (method, path) == ("GET", "/wda/screen"):
            return {"scale": 3, "statusBarSize": {"width": WIDTH, "height": 24}}
        if (method, path) in (("POST", "/wda/tap"), ("POST", "/wda/tap/0")):
            app.tap(_int(body["x"]), _int(body["y"]))
            return None
        if (method, path) == ("POST", "/wda/touchAndHold"):
            app.tap(_int(body["x"]), _int(body["y"]), long=True)
            return None
        if (method, path) == ("POST", "/wda/dragfromtoforduration"):
            x1, y1, x2, y2 = (_int(body[k]) for k in ("fromX", "fromY", "toX", "toY"))
            if x1 <= 2 and x2 > x1 + 100:  # the back gesture from the left edge
                app.back()
            else:
                app.swipe(x1, y1, x2, y2)
            return None
        if (method, path) == ("POST", "/actions"):
            phone.gestures.append([_finger_path(source) for source in body["actions"]])
            return None
        if (method, path) == ("POST", "/wda/keys"):
            if not app.keyboard_shown():
                raise WdaError(
                    400,
                    {
                        "error": "invalid element state",
                        "message": "The on-screen keyboard must be present to send keys",
                    },
                )
            text = "".join(body.get("value") or [])
            for part in re.split("(\x08|\n)", text):
                if part == "\b":
                    app.erase(1)
                elif part == "\n":
                    app.hide_keyboard()
                elif part:
                    app.type(part)
            return None
        if (method, path) == ("POST", "/wda/keyboard/dismiss"):
            if not app.hide_keyboard():
                raise WdaError(400, {"error": "invalid element state", "message": "The keyboard is not present"})
            return None
        if (method, path) == ("POST", "/wda/apps/launch"):
            bundle = body["bundleId"]
            if not app.launch(bundle):
                raise WdaError(
                    500, {"error": "invalid argument", "message": f"The application '{bundle}' is not installed"}
                )
            if "arguments" in body:
                arguments = list(body["arguments"])
                app.launch_arguments = dict(zip(arguments[::2], arguments[1::2], strict=False))
            return None
        if (method, path) == ("POST", "/wda/setPasteboard"):
            phone.pasteboard = base64.b64decode(body["content"]).decode()
            return None
        if (method, path) == ("POST", "/wda/getPasteboard"):
            return base64.b64encode(phone.pasteboard.encode()).decode()
        if (method, path) == ("POST", "/wda/apps/terminate"):
            app.force_stop(body["bundleId"])
            return True
        if (method, path) == ("POST", "/wda/apps/state"):
            bundle = body["bundleId"]
            if bundle == SAMPLE_APP and app.running:
                return 4 if app.in_front else 3
            return 1
        if (method, path) == ("POST", "/url"):
            if not app.open_link(body["url"]):
                raise WdaError(500, {"error": "unknown error", "message": f"Failed to open {body['url']}"})
            return None
        if path.startswith("/alert") or path == "/wda/alert/buttons":
            return self._alert(method, path, body)
        raise WdaError(404, {"error": "unknown command", "message": f"Unhandled endpoint: {path}"})

    def _alert(self, method: str, path: str, body: dict[str, Any]) -> Any:
        app = self.phone.app
        if not (app.in_front and app.ui.alert):
            raise WdaError(404, _NO_ALERT)
        if (method, path) == ("GET", "/alert/text"):
            return "Reset the counter?"
        if (method, path) == ("GET", "/wda/alert/buttons"):
            return ["Cancel", "Reset"]
        if (method, path) == ("POST", "/alert/accept"):
            app._activate(f"alert:{body.get('name') or 'Reset'}", False)
            return None
        if (method, path) == ("POST", "/alert/dismiss"):
            app._activate("alert:Cancel", False)
            return None
        raise WdaError(404, {"error": "unknown command", "message": f"Unhandled endpoint: {path}"})


class _El:
    def __init__(
        self,
        kind: str,
        box: tuple[int, int, int, int],
        *,
        name: str = "",
        label: str = "",
        value: str | None = None,
        placeholder: str | None = None,
        selected: bool = False,
        focused: bool = False,
        accessible: bool = False,
    ) -> None:
        left, top, right, bottom = box
        self.attrs: dict[str, str] = {"type": kind}
        if value is not None:
            self.attrs["value"] = value
        if name:
            self.attrs["name"] = name
        if label:
            self.attrs["label"] = label
        if placeholder is not None:
            self.attrs["placeholderValue"] = placeholder
        self.attrs.update(
            enabled="true",
            visible="true",
            accessible="true" if accessible else "false",
            x=str(left),
            y=str(top),
            width=str(right - left),
            height=str(bottom - top),
        )
        if selected:
            self.attrs["selected"] = "true"
        if focused:
            self.attrs["focused"] = "true"
        self.kind = kind
        self.children: list[_El] = []

    def write(self, lines: list[str], depth: int, index: int) -> None:
        attrs = " ".join(
            f"{k}={quoteattr(v, {chr(10): '&#10;'})}" for k, v in {**self.attrs, "index": str(index)}.items()
        )
        indent = "  " * depth
        if not self.children:
            lines.append(f"{indent}<{self.kind} {attrs}/>")
            return
        lines.append(f"{indent}<{self.kind} {attrs}>")
        for i, child in enumerate(self.children):
            child.write(lines, depth + 1, i)
        lines.append(f"{indent}</{self.kind}>")


def _box(w: Widget) -> tuple[int, int, int, int]:
    return w.box


def _finger_path(source: dict[str, Any]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where a W3C touch pointer went down and where it lifted (WebDriverAgent refuses other
    input sources in a touch gesture)."""
    if source.get("type") != "pointer" or source.get("parameters", {}).get("pointerType") != "touch":
        raise WdaError(400, {"error": "invalid argument", "message": f"not a touch pointer: {source}"})
    position, down, up = None, None, None
    for step in source["actions"]:
        if step["type"] == "pointerMove":
            position = (_int(step["x"]), _int(step["y"]))
        elif step["type"] == "pointerDown":
            down = position
        elif step["type"] == "pointerUp":
            up = position
    if down is None or up is None:
        raise WdaError(400, {"error": "invalid argument", "message": "a touch needs pointerDown and pointerUp"})
    return down, up


def _int(value: Any) -> int:
    return round(float(value))
