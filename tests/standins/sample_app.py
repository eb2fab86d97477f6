"""A small app, modelled once and shown through both fake phones (Android and iOS).

It is shaped after upstream Trailblaze's sample app so that upstream's recorded trails replay
against it: a bottom navigation with Home, Forms and Lists tabs; the Forms tab has Name and Email
fields, a Subscribe switch, Submit and Clear All buttons and a submission result. Some behaviour
is deliberately slow or animated so that waiting is exercised for real: the app starts after a
short splash, switching tabs slides the content in, a submission shows up after a delay and
"Show details" loads for half a second; the link ``sampleapp://ticker`` opens a screen that
never stops changing. "Reset counter" opens a modal alert.

Layout is in virtual units on a 360×800 screen; a renderer scales it (Android ×3 → 1080×2400
pixels, iOS ×1 → points). Time comes from ``clock`` so tests may run it as they like.

This is test scaffolding, not a product feature.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.standins.clock_app import DeskClock

SAMPLE_APP = "xyz.block.trailblaze.examples.sampleapp"
#: installed, starts, and dies at once (its window never gets focus)
CRASHING_APP = "com.example.crashes"
#: AOSP's Desk Clock, modelled in :mod:`tests.standins.clock_app` (Android only; install it to use it)
DESK_CLOCK = "com.android.deskclock"
LAUNCHER = "com.android.launcher3"
WIDTH, HEIGHT = 360, 800
LAUNCH_DELAY = 0.1
SPLASH = 0.2
TAB_SLIDE = 0.25
RESULT_DELAY = 0.3
DETAILS_DELAY = 0.5
ITEMS = 40
ITEM_HEIGHT = 64
LIST_TOP, LIST_BOTTOM = 80, 720
PERMISSIONS = ("android.permission.CAMERA", "android.permission.POST_NOTIFICATIONS")


@dataclass
class Widget:
    """One element of the neutral tree the renderers turn into XML."""

    kind: str  # root, bar, container, text, button, field, tab, switch, list, item, alert, keyboard, icon
    key: str = ""  # what a tap on it means to the app
    label: str = ""  # visible text / accessibility label
    desc: str = ""  # content description, when it is not the label (an icon button, a dial's number)
    value: str = ""  # a field's content
    rid: str = ""  # test tag: resource id / accessibility identifier
    box: tuple[int, int, int, int] = (0, 0, 0, 0)  # left, top, right, bottom
    children: list[Widget] = field(default_factory=list)
    clickable: bool = False
    focused: bool = False
    selected: bool = False
    checked: bool | None = None
    enabled: bool = True
    scrollable: bool = False

    def walk(self) -> list[Widget]:
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


@dataclass
class UiState:
    tab: str = "Home"
    tab_changed: float = -1.0
    name: str = ""
    email: str = ""
    subscribe: bool = False
    focused: str | None = None
    keyboard: bool = False
    submitted: tuple[str, str] | None = None
    submitted_at: float = 0.0
    details_at: float | None = None
    list_offset: int = 0
    pinned: set[int] = field(default_factory=set)
    alert: bool = False


class SampleApp:
    """The app and the bit of system around it (launcher, installed packages, app data)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self.installed = {SAMPLE_APP, CRASHING_APP}
        self.submissions = 0  # persisted: survives a restart, not a data clear
        self.granted: set[str] = set()
        #: the launch arguments the app was last started with (intent extras / iOS arguments)
        self.launch_arguments: dict[str, object] = {}
        self.running = False
        self.front: str | None = None  # package in front; None is the launcher
        self.started_at = 0.0
        self.front_at = 0.0
        self.ui = UiState()
        #: a second app, shown on Android only: upstream's clock trails run against it
        from tests.standins.clock_app import DeskClock  # it builds on this module's Widget

        self.desk_clock: DeskClock = DeskClock()
        self.opened_links: list[str] = []
        self.frames = 0

    # -- the system ------------------------------------------------------------------------------

    def launch(self, package: str, tab: str | None = None) -> bool:
        """Start (or bring back) an app; False if it is not installed."""
        with self.lock:
            if package not in self.installed:
                return False
            if package == CRASHING_APP:
                return True  # starts and dies before its window ever has focus
            if package == DESK_CLOCK:
                if not self.desk_clock.running:
                    self.desk_clock.start()
                if self.front != package:
                    self.front_at = self.clock() + LAUNCH_DELAY
                self.front = package
                return True
            if not self.running:
                self.running = True
                self.started_at = self.clock()
                self.ui = UiState()
            if self.front != package:  # its window takes focus a moment later
                self.front_at = self.clock() + LAUNCH_DELAY
            self.front = package
            if tab is not None:
                self._switch(tab)
            return True

    def force_stop(self, package: str) -> None:
        with self.lock:
            if package == DESK_CLOCK:
                self.desk_clock.stop()
                if self.front == DESK_CLOCK:
                    self.front = None
            if package == SAMPLE_APP:
                self.running = False
                if self.front == SAMPLE_APP:
                    self.front = None

    def clear_data(self, package: str) -> bool:
        with self.lock:
            if package not in self.installed:
                return False
            self.force_stop(package)
            if package == SAMPLE_APP:
                self.submissions = 0
                self.granted.clear()
            return True

    def revoke(self, package: str, permission: str) -> str | None:
        """None when revoked, else the error Android prints."""
        with self.lock:
            if package not in self.installed:
                return f"Unknown package: {package}"
            if package != SAMPLE_APP or permission not in PERMISSIONS:
                return f"Package {package} has not requested permission {permission}"
            self.granted.discard(permission)
            return None

    def grant(self, package: str, permission: str) -> str | None:
        """None when granted, else the error Android prints."""
        with self.lock:
            if package not in self.installed:
                return f"Unknown package: {package}"
            if package != SAMPLE_APP or permission not in PERMISSIONS:
                return f"Package {package} has not requested permission {permission}"
            self.granted.add(permission)
            return None

    def open_link(self, url: str) -> bool:
        with self.lock:
            self.opened_links.append(url)
            if not url.startswith("sampleapp://"):
                return False
            tab = url.removeprefix("sampleapp://").strip("/").capitalize() or "Home"
            return self.launch(SAMPLE_APP, tab if tab in ("Home", "Forms", "Lists", "Ticker") else "Home")

    def home(self) -> None:
        with self.lock:
            self.front = None

    @property
    def in_front(self) -> bool:
        return self.front == SAMPLE_APP and self.running and self.clock() >= self.front_at

    @property
    def showing(self) -> str:
        """The package whose window is on screen (the launcher's when no app's is)."""
        if self.in_front:
            return SAMPLE_APP
        if self.front == DESK_CLOCK and self.desk_clock.running and self.clock() >= self.front_at:
            return DESK_CLOCK
        return LAUNCHER

    # -- input ------------------------------------------------------------------------------------

    def tap(self, x: int, y: int, long: bool = False) -> str | None:
        """Tap at virtual coordinates; returns the key of what was hit."""
        with self.lock:
            screen = self.render()
            hit = _hit(screen, x, y)
            if hit is None:
                if self.ui.keyboard and self.ui.focused is not None:
                    self.ui.focused = None
                    self.ui.keyboard = False
                return None
            self._activate(hit.key, long)
            return hit.key

    def _activate(self, key: str, long: bool) -> None:
        ui = self.ui
        kind, _, name = key.partition(":")
        if kind == "launcher":
            self.launch(name)
        elif kind == "clock":
            self.desk_clock.activate(name)
        elif kind == "tab":
            self._switch(name)
        elif kind == "field":
            ui.focused = name
            ui.keyboard = True
        elif kind == "submit":
            ui.submitted = (ui.name, ui.email)
            ui.submitted_at = self.clock()
            self.submissions += 1
            ui.focused, ui.keyboard = None, False
        elif kind == "clear":
            ui.name = ui.email = ""
            ui.submitted = None
            ui.focused, ui.keyboard = None, False
        elif kind == "subscribe":
            ui.subscribe = not ui.subscribe
        elif kind == "details":
            ui.details_at = self.clock() + DETAILS_DELAY
        elif kind == "reset":
            ui.alert = True
        elif kind == "alert":
            if name == "Reset":
                self.submissions = 0
            ui.alert = False
        elif kind == "item" and long:
            ui.pinned ^= {int(name)}

    def _switch(self, tab: str) -> None:
        if tab != self.ui.tab:
            self.ui.tab = tab
            self.ui.tab_changed = self.clock()
        self.ui.focused, self.ui.keyboard = None, False

    def type(self, text: str) -> bool:
        """Type into the focused field; False when no field has focus."""
        with self.lock:
            if not (self.in_front and self.ui.focused):
                return False
            setattr(self.ui, self.ui.focused, getattr(self.ui, self.ui.focused) + text)
            return True

    def erase(self, count: int | None) -> bool:
        with self.lock:
            if not (self.in_front and self.ui.focused):
                return False
            current = getattr(self.ui, self.ui.focused)
            setattr(self.ui, self.ui.focused, "" if count is None else current[: max(0, len(current) - count)])
            return True

    def back(self) -> None:
        with self.lock:
            if self.ui.keyboard:
                self.ui.keyboard = False
            elif self.in_front and self.ui.alert:
                self.ui.alert = False
            else:
                self.front = None

    def hide_keyboard(self) -> bool:
        with self.lock:
            shown = self.ui.keyboard and self.in_front
            self.ui.keyboard = False
            return shown

    def swipe(self, x1: int, y1: int, x2: int, y2: int) -> None:
        with self.lock:
            if self.in_front and self.ui.tab == "Lists" and LIST_TOP <= y1 <= LIST_BOTTOM:
                most = ITEMS * ITEM_HEIGHT - (LIST_BOTTOM - LIST_TOP)
                self.ui.list_offset = min(max(0, self.ui.list_offset + (y1 - y2)), most)

    def keyboard_shown(self) -> bool:
        with self.lock:
            return self.in_front and self.ui.keyboard

    # -- what is on screen ---------------------------------------------------------------------------

    def render(self) -> Widget:
        with self.lock:
            if self.showing == DESK_CLOCK:
                return self.desk_clock.render()
            if not self.in_front:
                return _launcher()
            now = self.clock()
            if now - self.started_at < LAUNCH_DELAY + SPLASH:  # a cold start shows a splash first
                return Widget("root", children=[Widget("text", label="Loading…", box=(120, 380, 240, 420))])
            return self._app(now)

    def _app(self, now: float) -> Widget:
        ui = self.ui
        slide = 0
        if ui.tab_changed >= 0 and now - ui.tab_changed < TAB_SLIDE:
            slide = int(WIDTH * (1 - (now - ui.tab_changed) / TAB_SLIDE))
        screens = {"Home": self._home, "Forms": self._forms, "Lists": self._lists, "Ticker": self._ticker}
        content = screens[ui.tab](now)
        for widget in content:
            _shift(widget, slide)
        tabs = [
            Widget(
                "tab",
                key=f"tab:{name}",
                label=name,
                rid=f"tab_{name.lower()}",
                box=(i * 120, 720, (i + 1) * 120, 800),
                clickable=True,
                selected=ui.tab == name,
            )
            for i, name in enumerate(("Home", "Forms", "Lists"))
        ]
        body = [
            Widget("bar", label="Trailblaze Sample", box=(0, 24, WIDTH, 80)),
            Widget("container", box=(0, 80, WIDTH, 720), children=content),
            Widget("container", rid="bottom_nav", box=(0, 720, WIDTH, 800), children=tabs),
        ]
        if ui.keyboard:
            body.append(Widget("keyboard", box=(0, 520, WIDTH, 800)))
        if ui.alert:
            body.append(
                Widget(
                    "alert",
                    label="Reset the counter?",
                    box=(40, 300, 320, 480),
                    children=[
                        Widget("button", key="alert:Cancel", label="Cancel", box=(60, 420, 170, 470), clickable=True),
                        Widget("button", key="alert:Reset", label="Reset", box=(190, 420, 300, 470), clickable=True),
                    ],
                )
            )
        return Widget("root", children=body)

    def _home(self, now: float) -> list[Widget]:
        ui = self.ui
        camera = "granted" if "android.permission.CAMERA" in self.granted else "denied"
        widgets = [
            Widget("text", label="Welcome to the sample app", rid="welcome", box=(16, 100, 344, 140)),
            Widget("text", label=f"Submissions: {self.submissions}", rid="submissions", box=(16, 150, 344, 190)),
            Widget("text", label=f"Camera: {camera}", rid="camera", box=(16, 200, 344, 240)),
            Widget(
                "button",
                key="details",
                label="Show details",
                rid="details_button",
                box=(16, 250, 344, 298),
                clickable=True,
            ),
            Widget(
                "button",
                key="reset",
                label="Reset counter",
                rid="reset_button",
                box=(16, 360, 344, 408),
                clickable=True,
            ),
        ]
        if ui.details_at is not None and now >= ui.details_at:
            widgets.append(Widget("text", label="Details loaded", rid="details", box=(16, 310, 344, 350)))
        return widgets

    def _forms(self, now: float) -> list[Widget]:
        ui = self.ui
        widgets = [
            Widget(
                "field",
                key="field:name",
                label="Name",
                value=ui.name,
                rid="name_input",
                box=(16, 100, 344, 160),
                clickable=True,
                focused=ui.focused == "name",
            ),
            Widget(
                "field",
                key="field:email",
                label="Email",
                value=ui.email,
                rid="email_input",
                box=(16, 176, 344, 236),
                clickable=True,
                focused=ui.focused == "email",
            ),
            Widget(
                "switch",
                key="subscribe",
                label="Subscribe to updates",
                rid="subscribe_switch",
                box=(16, 252, 344, 300),
                clickable=True,
                checked=ui.subscribe,
            ),
            Widget(
                "button", key="submit", label="Submit", rid="submit_button", box=(16, 316, 172, 364), clickable=True
            ),
            Widget(
                "button", key="clear", label="Clear All", rid="clear_button", box=(188, 316, 344, 364), clickable=True
            ),
        ]
        if ui.submitted is not None and now - ui.submitted_at >= RESULT_DELAY:
            name, email = ui.submitted
            widgets.append(
                Widget("text", label=f"Name: {name}\nEmail: {email}", rid="result_text", box=(16, 380, 344, 440))
            )
        return widgets

    def _ticker(self, now: float) -> list[Widget]:
        """A screen that never stops changing (only reachable by the link sampleapp://ticker)."""
        self.frames += 1  # every look at it is different
        return [Widget("text", label=f"Frame {self.frames}", box=(16, 100, 344, 140))]

    def _lists(self, now: float) -> list[Widget]:
        items = []
        for i in range(ITEMS):
            top = LIST_TOP + i * ITEM_HEIGHT - self.ui.list_offset
            if top + ITEM_HEIGHT <= LIST_TOP or top >= LIST_BOTTOM:
                continue
            label = f"Item {i + 1}" + (" ★" if i + 1 in self.ui.pinned else "")
            items.append(
                Widget(
                    "item",
                    key=f"item:{i + 1}",
                    label=label,
                    box=(0, max(top, LIST_TOP), WIDTH, min(top + ITEM_HEIGHT, LIST_BOTTOM)),
                    clickable=True,
                )
            )
        return [Widget("list", rid="item_list", box=(0, LIST_TOP, WIDTH, LIST_BOTTOM), children=items, scrollable=True)]


def _launcher() -> Widget:
    return Widget(
        "root",
        key="launcher",
        children=[
            Widget("icon", key=f"launcher:{SAMPLE_APP}", label="Sample App", box=(30, 600, 110, 700), clickable=True),
            Widget("icon", key=f"launcher:{CRASHING_APP}", label="Crashes", box=(140, 600, 220, 700), clickable=True),
        ],
    )


def _shift(widget: Widget, dx: int) -> None:
    if not dx:
        return
    for w in widget.walk():
        left, top, right, bottom = w.box
        w.box = (left + dx, top, right + dx, bottom)


def _hit(root: Widget, x: int, y: int) -> Widget | None:
    """The deepest clickable widget at (x, y); a modal alert takes every tap."""
    modal = next((w for w in root.children if w.kind == "alert"), None)
    scope = modal if modal is not None else root
    found = None
    for widget in scope.walk():
        left, top, right, bottom = widget.box
        if widget.clickable and left <= x < right and top <= y < bottom:
            found = widget
    return found
