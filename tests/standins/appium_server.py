"""A stand-in Appium server with its UiAutomator2 driver: W3C WebDriver JSON over HTTP, for the
fake Android phone.

It answers what Appium-Python-Client sends for the ``appium`` driver — ``/status``, new and
deleted sessions, ``/source``, ``/screenshot``, ``/window/rect``, W3C ``/actions``, the focused
element and element values, and the UiAutomator2 driver's ``mobile:`` methods (``type``,
``pressKey``, ``activateApp``, ``queryAppState``, ``deepLink``…) — from the same phone and
sample app the uiautomator2 stand-in shows (:mod:`tests.standins.android_phone`). The page source
is uiautomator's hierarchy as Appium's UiAutomator2 driver serves it: elements named after their
class, ``displayed`` instead of ``visible-to-user``, the screen's size on ``<hierarchy>``.

Like a cloud's hub it can require credentials (``credentials=``: HTTP basic auth, or a vendor's
``userName``/``accessKey`` capabilities, quoted back in its refusal as some hubs do), record the
scripts a client runs (``browserstack_executor:``, ``sauce:job-result=``, ``lambda-status=``),
wrap its page source (``wrapper=``, as a proxy might), and end every open session mid-trail
(:meth:`AppiumStandIn.end_sessions`, as a cloud does on a timeout or quota). Errors are W3C's:
``{"value": {"error", "message", "stacktrace"}}`` with the HTTP status the protocol gives them.
Every request is logged in ``requests`` as ``(method, path)`` with the session id left out.

This is test scaffolding, not a product feature.
"""

from __future__ import annotations

import base64
import io
import json
import re
import threading
import uuid
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.standins.android_phone import FakeAndroid
from tests.standins.httpserver import StandInServer
from tests.standins.sample_app import LAUNCHER

_SESSION = re.compile(r"^/session/(?P<sid>[^/]+)(?P<rest>/.*)?$")
_ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
#: UiAutomator2's key codes → the fake phone's key names
_KEYS = {4: "back", 3: "home", 67: "del", 66: "enter", 61: "tab", 111: "escape"}


class W3CError(Exception):
    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


def _not_found(what: str) -> W3CError:
    return W3CError(404, "no such element", f"An element could not be located on the page using {what}")


class AppiumStandIn(StandInServer):
    """The HTTP endpoint; ``url`` is what ``appium: url:`` takes."""

    name = "appium-stand-in"

    def __init__(
        self,
        phone: FakeAndroid | None = None,
        *,
        more_phones: tuple[FakeAndroid, ...] = (),
        shared: bool = False,
        credentials: tuple[str, str] | None = None,
        wrapper: str | None = None,
        adb_shell: bool = False,
        host: str = "127.0.0.1",
    ) -> None:
        self.phone = phone or FakeAndroid()
        #: the phones a session may get, as a cloud rents them: each open session holds one
        self.phones = [self.phone, *more_phones]
        self._phone_of: dict[str, FakeAndroid] = {}
        #: every session gets the first phone (two clients on one screen, as a benchmark compares them)
        self.shared = shared
        self.credentials = credentials
        #: the page source is put in place of ``{source}`` in this document, when given
        self.wrapper = wrapper
        self.adb_shell = adb_shell
        #: open sessions: id → the capabilities they were created with
        self.sessions: dict[str, dict[str, Any]] = {}
        #: every session ever created, in order: (id, capabilities)
        self.created: list[tuple[str, dict[str, Any]]] = []
        self.deleted: list[str] = []
        #: sessions the server ended itself, with the message it answers them with
        self.ended: dict[str, str] = {}
        #: scripts run that are not ``mobile:`` methods (a cloud's executors): (session, script)
        self.scripts: list[tuple[str, str]] = []
        #: W3C action sequences performed, as sent
        self.actions: list[list[dict[str, Any]]] = []
        #: ``(method, path, message)``: the first such request ends every open session instead of
        #: being answered (a cloud's timeout in the middle of a trail)
        self.ending: tuple[str, str, str] | None = None
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.RLock()
        # Appium keeps connections alive; so does its client
        self._listen(host, "HTTP/1.1", nodelay=True)

    def end_sessions(self, message: str) -> None:
        """End every open session, as a cloud does when one runs out of time: from now on they
        are answered with ``invalid session id`` and ``message``."""
        with self.lock:
            for sid in list(self.sessions):
                self.ended[sid] = message
                del self.sessions[sid]
                self._phone_of.pop(sid, None)

    def source_requests(self) -> int:
        return sum(1 for request in self.requests if request == ("GET", "/source"))

    # -- requests ------------------------------------------------------------------------------------

    def _respond(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        path, sid = handler.path.split("?", 1)[0].rstrip("/") or "/", None
        for prefix in ("/wd/hub",):  # a hub's path, as Appium 1 and Selenium Grid 3 had it
            if path.startswith(prefix + "/"):
                path = path[len(prefix) :]
        m = _SESSION.match(path)
        if m is not None:
            sid, path = m.group("sid"), m.group("rest") or "/"
        with self.lock:
            self.requests.append((method, path))
        try:
            authorized = self._authorize(handler, sid)
            body = json.loads(raw) if raw else {}
            value = self._route(method, path, body, sid, authorized)
            status, payload = 200, {"value": value}
        except W3CError as exc:
            status = exc.status
            payload = {"value": {"error": exc.error, "message": exc.message, "stacktrace": "stand-in"}}
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _authorize(self, handler: BaseHTTPRequestHandler, sid: str | None) -> bool:
        """Whether the request carries the hub's credentials (HTTP basic auth); a session's own
        commands need none (its id is the credential), nor does ``/status``. A new session
        without them may still name them among its capabilities."""
        if self.credentials is None or sid is not None or handler.path.rstrip("/").endswith("/status"):
            return True
        header = handler.headers.get("Authorization")
        expected = base64.b64encode(":".join(self.credentials).encode()).decode()
        if header == f"Basic {expected}":
            return True
        if header is None and handler.command == "POST" and handler.path.rstrip("/").endswith("/session"):
            return False
        raise W3CError(401, "unknown error", "Authorization Required")

    def _route(self, method: str, path: str, body: dict[str, Any], sid: str | None, authorized: bool) -> Any:
        if sid is None:
            if (method, path) == ("GET", "/status"):
                return {"ready": True, "message": "The server is ready to accept new connections", "build": {}}
            if (method, path) == ("POST", "/session"):
                return self._new_session(body, authorized)
            raise W3CError(404, "unknown command", f"The requested resource could not be found: {method} {path}")
        with self.lock:
            if self.ending is not None and self.ending[:2] == (method, path):
                message, self.ending = self.ending[2], None
                self.end_sessions(message)
            if sid in self.ended:
                raise W3CError(404, "invalid session id", self.ended[sid])
            if sid not in self.sessions:
                raise W3CError(404, "invalid session id", f"A session is either terminated or not started ({sid})")
        if (method, path) == ("DELETE", "/"):
            with self.lock:
                del self.sessions[sid]
                self._phone_of.pop(sid, None)
                self.deleted.append(sid)
            return None
        return self._command(method, path, body, sid, self._phone_of[sid])

    def _new_session(self, body: dict[str, Any], authorized: bool) -> dict[str, Any]:
        caps = dict((body.get("capabilities") or {}).get("alwaysMatch") or {})
        for extra in (body.get("capabilities") or {}).get("firstMatch") or [{}]:
            caps.update(extra)
            break
        if not authorized:
            options = next((v for k, v in caps.items() if k.endswith(":options") and isinstance(v, dict)), {})
            given = (options.get("userName"), options.get("accessKey"))
            if given != self.credentials:
                raise W3CError(
                    500, "session not created", f"Invalid username or access key: {given[0]}:{given[1]} was not found"
                )
        platform = str(caps.get("platformName") or "")
        automation = str(caps.get("appium:automationName") or "")
        if platform.lower() != "android" or automation.lower() != "uiautomator2":
            raise W3CError(
                500,
                "session not created",
                f"A new session could not be created. Details: Could not find a driver for automationName "
                f"'{automation}' and platformName '{platform}'. Have you installed a driver that supports those "
                f"capabilities?",
            )
        sid = uuid.uuid4().hex
        with self.lock:
            busy = set() if self.shared else set(map(id, self._phone_of.values()))
            phone = next((p for p in self.phones if id(p) not in busy), None)
            if phone is None:
                raise W3CError(
                    500, "session not created", f"All {len(self.phones)} devices are busy: your plan allows no more"
                )
            self.sessions[sid] = caps
            self._phone_of[sid] = phone
            self.created.append((sid, caps))
        returned = {**caps, "platformName": "Android", "deviceUDID": phone.serial, "deviceModel": phone.model}
        return {"sessionId": sid, "capabilities": returned}

    # -- session commands ------------------------------------------------------------------------------

    def _command(self, method: str, path: str, body: dict[str, Any], sid: str, phone: FakeAndroid) -> Any:
        if (method, path) == ("GET", "/source"):
            source = appium_source(phone)
            return self.wrapper.replace("{source}", source.split("?>", 1)[1]) if self.wrapper else source
        if (method, path) == ("GET", "/screenshot"):
            return base64.b64encode(_png(phone)).decode()
        if (method, path) == ("GET", "/window/rect"):
            return {"x": 0, "y": 0, "width": phone.width, "height": phone.height}
        if (method, path) == ("POST", "/timeouts") or (method, path) == ("DELETE", "/actions"):
            return None
        if (method, path) == ("POST", "/actions"):
            sources = body.get("actions") or []
            with self.lock:
                self.actions.append(sources)
            _perform(phone, sources)
            return None
        if (method, path) == ("POST", "/execute/sync"):
            return self._execute(str(body.get("script") or ""), body.get("args") or [], sid, phone)
        if (method, path) == ("GET", "/element/active"):
            if not (phone.app.in_front and phone.app.ui.focused):
                raise _not_found("the active element")
            return {_ELEMENT_KEY: f"field:{phone.app.ui.focused}"}
        if (method, path) == ("POST", "/element"):
            return _find(phone, body)
        m = re.fullmatch(r"/element/(?P<eid>[^/]+)/(?P<what>value|clear)", path)
        if method == "POST" and m is not None:
            return _element(phone, m.group("eid"), m.group("what"), body)
        raise W3CError(405, "unknown method", f"Method has not yet been implemented: {method} {path}")

    def _execute(self, script: str, args: list[Any], sid: str, phone: FakeAndroid) -> Any:
        if not script.startswith("mobile:"):
            with self.lock:
                self.scripts.append((sid, script))
            return None
        if script.removeprefix("mobile:").strip() == "shell" and not self.adb_shell:
            raise W3CError(
                500,
                "unknown error",
                "Potentially insecure feature 'adb_shell' has not been enabled. If you want to enable this "
                "feature and accept the security ramifications, please do so by following the documented "
                "instructions at http://appium.io/docs/en/latest/guides/security/",
            )
        return _mobile(phone, script, args[0] if args and isinstance(args[0], dict) else {})


def _find(phone: FakeAndroid, body: dict[str, Any]) -> dict[str, str]:
    using, value = body.get("using"), str(body.get("value") or "")
    if using == "id":
        for widget in phone.app.render().walk():
            if widget.kind == "field" and value in (phone.resource_id(widget.rid), widget.rid):
                return {_ELEMENT_KEY: f"field:{widget.key.partition(':')[2]}"}
    raise _not_found(f"{using} {value!r}")


def _element(phone: FakeAndroid, eid: str, what: str, body: dict[str, Any]) -> None:
    app = phone.app
    kind, _, name = eid.partition(":")
    if kind != "field" or not app.in_front:
        raise W3CError(404, "stale element reference", "The element is no longer attached to the DOM")
    with app.lock:
        app.ui.focused = name
        if what == "clear":
            setattr(app.ui, name, "")
        else:  # UiAutomator2 sets the element's text: it replaces what is there
            setattr(app.ui, name, str(body.get("text") or "".join(body.get("value") or [])))


def _perform(phone: FakeAndroid, sources: list[dict[str, Any]]) -> None:
    """Touches: one finger down and up at one point is a tap (held ≥ 500 ms: a long press),
    moved while down a swipe; two fingers a gesture the phone records."""
    s = phone.scale
    paths = []
    for finger in (source for source in sources if source.get("type") == "pointer"):
        steps = finger.get("actions", [])
        points = [(a["x"], a["y"]) for a in steps if a.get("type") == "pointerMove"]
        held = sum(int(a.get("duration") or 0) for a in steps if a.get("type") == "pause")
        paths.append((points, held))
    if len(paths) == 1 and paths[0][0]:
        points, held = paths[0]
        (x1, y1), (x2, y2) = points[0], points[-1]
        if (x1, y1) == (x2, y2):
            phone.app.tap(x1 // s, y1 // s, long=held >= 500)
        else:
            phone.app.swipe(x1 // s, y1 // s, x2 // s, y2 // s)
    elif len(paths) == 2:
        phone.gestures.append(tuple((p[0][i][0] // s, p[0][i][1] // s) for i in (0, -1) for p in paths))


def _mobile(phone: FakeAndroid, script: str, params: dict[str, Any]) -> Any:
    """The UiAutomator2 driver's ``mobile:`` methods, on the fake phone."""
    method = script.removeprefix("mobile:").strip()
    app = phone.app
    if method == "type":
        if not app.type(str(params.get("text") or "")):
            raise W3CError(400, "invalid element state", "Cannot type: no element has the input focus")
        return None
    if method == "pressKey":
        phone.key(_KEYS.get(int(params["keycode"]), "unknown"))
        return None
    if method == "isKeyboardShown":
        return app.keyboard_shown()
    if method == "hideKeyboard":
        return app.hide_keyboard()
    if method == "getDisplayDensity":
        return phone.density
    if method in ("activateApp", "terminateApp", "clearApp", "queryAppState"):
        return _app(phone, method, str(params.get("appId") or ""))
    if method == "deepLink":
        if not app.open_link(str(params.get("url") or "")):
            raise W3CError(500, "unknown error", f"No activity can handle the link {params.get('url')}")
        return None
    if method == "setClipboard":
        phone.clipboard = base64.b64decode(params.get("content") or "").decode()
        return None
    if method == "getClipboard":
        return base64.b64encode(phone.clipboard.encode()).decode()
    if method == "changePermissions":
        names = params["permissions"]
        for permission in [names] if isinstance(names, str) else names:
            change = app.grant if params.get("action", "grant") == "grant" else app.revoke
            error = change(str(params.get("appPackage")), permission)
            if error:
                raise W3CError(500, "unknown error", error)
        return None
    if method == "getConnectivity":
        return {"airplaneMode": phone.airplane_mode}
    if method == "setConnectivity":
        phone.airplane_mode = bool(params.get("airplaneMode"))
        return None
    if method == "shell":
        command = " ".join([str(params["command"]), *map(str, params.get("args") or [])])
        return {"stdout": phone.shell(command).decode(), "stderr": ""}
    raise W3CError(
        500,
        "unsupported operation",
        f"Unsupported execute method '{script}'. Make sure the installed AndroidUiautomator2Driver is up-to-date.",
    )


def _app(phone: FakeAndroid, method: str, app_id: str) -> Any:
    app = phone.app
    if app_id not in app.installed:
        if method == "queryAppState":
            return 0
        raise W3CError(500, "unknown error", f"The application '{app_id}' is not installed on the device")
    if method == "activateApp":
        app.launch(app_id)
        return None
    if method == "terminateApp":
        app.force_stop(app_id)
        return True
    if method == "clearApp":
        app.clear_data(app_id)
        return "Success"
    if app.showing == app_id:
        return 4
    return 3 if app.running and app_id != LAUNCHER else 1


def appium_source(phone: FakeAndroid) -> str:
    """The phone's hierarchy as Appium's UiAutomator2 driver serves it."""
    dump = ET.fromstring(phone.dump())
    root = ET.Element(
        "hierarchy",
        {"index": "0", "class": "hierarchy", "rotation": "0", "width": str(phone.width), "height": str(phone.height)},
    )

    def convert(node: ET.Element, parent: ET.Element) -> None:
        attrs = dict(node.attrib)
        attrs["displayed"] = attrs.pop("visible-to-user", "true")
        for dropped in ("drawing-order", "display-id"):
            attrs.pop(dropped, None)
        element = ET.SubElement(parent, attrs.get("class") or "android.view.View", attrs)
        for child in node:
            convert(child, element)

    for child in dump:
        convert(child, root)
    return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" + ET.tostring(root, encoding="unicode")


def _png(phone: FakeAndroid) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (phone.width // 10, phone.height // 10), (230, 230, 240)).save(buffer, "PNG")
    return buffer.getvalue()
