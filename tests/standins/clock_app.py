"""A small fake of the AOSP Desk Clock app (``com.android.deskclock``) for the Android stand-in.

It models only what upstream's ``clock`` trails select, behaving as the real app does: four
bottom-nav tabs (``android:id/text1``: ALARM, CLOCK, TIMER, STOPWATCH; a launch lands on CLOCK);
on the ALARM tab the add-alarm FAB opens the time picker, whose radial dial exposes one node per
hour (then per five minutes) by content description, and picking an hour moves to the minutes as
the real dial does; the picker starts at the device's time (3:00 PM, so AM must be chosen to get
an AM alarm); OK adds the alarm picked — the list shows that time, its arrow expands it and
Delete removes it. Alarms survive a force-stop (they are the app's data); the screen state does not.

Widgets use full resource ids (``android:id/…``, ``com.android.deskclock:id/…``); a tap on one
reaches :meth:`DeskClock.activate` through its key ``clock:<action>``.

This is test scaffolding, not a product feature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tests.standins.sample_app import DESK_CLOCK, WIDTH, Widget

TABS = ("ALARM", "CLOCK", "TIMER", "STOPWATCH")
#: the device's time (hour 0-23, minute): where the picker starts
DEVICE_TIME = (15, 0)
_ID = f"{DESK_CLOCK}:id"


def label(hour: int, minute: int) -> str:
    """How the app shows a time in 12-hour format: ``7:30 AM``."""
    return f"{(hour - 1) % 12 + 1}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


@dataclass
class Picker:
    hour: int = DEVICE_TIME[0]
    minute: int = DEVICE_TIME[1]
    minutes_view: bool = False


@dataclass
class DeskClock:
    """The app's data (alarms) and its screen state (tab, picker, expanded alarm)."""

    alarms: list[tuple[int, int]] = field(default_factory=list)
    running: bool = False
    tab: str = "CLOCK"
    picker: Picker | None = None
    expanded: int | None = None

    def start(self) -> None:
        self.running, self.tab, self.picker, self.expanded = True, "CLOCK", None, None

    def stop(self) -> None:
        self.running = False

    def activate(self, action: str) -> None:
        verb, _, arg = action.partition(":")
        picker = self.picker
        if verb == "tab":
            self.tab, self.expanded = arg, None
        elif verb == "add":
            self.picker = Picker()
        elif picker is not None and verb == "pick":
            if picker.minutes_view:
                picker.minute = int(arg)
            else:  # the dial keeps the half of the day; picking an hour moves on to the minutes
                picker.hour = int(arg) % 12 + (12 if picker.hour >= 12 else 0)
                picker.minutes_view = True
        elif picker is not None and verb in ("hours", "minutes"):
            picker.minutes_view = verb == "minutes"
        elif picker is not None and verb in ("am", "pm"):
            picker.hour = picker.hour % 12 + (12 if verb == "pm" else 0)
        elif picker is not None and verb == "ok":
            self.alarms = sorted([*self.alarms, (picker.hour, picker.minute)])
            self.picker = None
        elif verb == "cancel":
            self.picker = None
        elif verb == "expand":
            self.expanded = None if self.expanded == int(arg) else int(arg)
        elif verb == "delete":
            del self.alarms[int(arg)]
            self.expanded = None

    def render(self) -> Widget:
        if self.picker is not None:  # a dialog: nothing behind it takes a tap
            return Widget("root", children=[self._picker(self.picker)])
        tabs = [
            Widget(
                "text",
                key=f"clock:tab:{name}",
                label=name,
                rid="android:id/text1",
                box=(i * 90, 720, (i + 1) * 90, 800),
                clickable=True,
                selected=self.tab == name,
            )
            for i, name in enumerate(TABS)
        ]
        content = (
            self._alarms() if self.tab == "ALARM" else [Widget("text", label=self.tab.title(), box=(16, 100, 344, 140))]
        )
        return Widget(
            "root",
            children=[
                Widget("container", rid=f"{_ID}/content", box=(0, 24, WIDTH, 720), children=content),
                Widget("container", rid=f"{_ID}/tabs", box=(0, 720, WIDTH, 800), children=tabs),
            ],
        )

    def _alarms(self) -> list[Widget]:
        rows: list[Widget] = []
        top = 40
        for i, (hour, minute) in enumerate(self.alarms):
            open_ = self.expanded == i
            row = [
                Widget("text", label=label(hour, minute), rid=f"{_ID}/digital_clock", box=(16, top, 250, top + 60)),
                Widget(
                    "view",
                    key=f"clock:expand:{i}",
                    desc="Collapse alarm" if open_ else "Expand alarm",
                    rid=f"{_ID}/arrow",
                    box=(296, top + 10, 344, top + 58),
                    clickable=True,
                ),
            ]
            if open_:
                row.append(
                    Widget(
                        "text",
                        key=f"clock:delete:{i}",
                        label="Delete",
                        rid=f"{_ID}/delete",
                        box=(16, top + 70, 150, top + 110),
                        clickable=True,
                    )
                )
            bottom = top + (120 if open_ else 70)
            rows.append(Widget("container", rid=f"{_ID}/alarm_item", box=(0, top, WIDTH, bottom), children=row))
            top = bottom
        if not rows:
            rows.append(Widget("text", label="No alarms", rid=f"{_ID}/alarms_empty_view", box=(16, 300, 344, 340)))
        fab = Widget(
            "view", key="clock:add", desc="Add alarm", rid=f"{_ID}/fab", box=(148, 630, 212, 694), clickable=True
        )
        return [*rows, fab]

    def _picker(self, p: Picker) -> Widget:
        am = p.hour < 12
        header = [
            Widget(
                "text",
                key="clock:hours",
                label=str((p.hour - 1) % 12 + 1),
                rid="android:id/hours",
                box=(60, 170, 120, 230),
                clickable=True,
            ),
            Widget(
                "text",
                key="clock:minutes",
                label=f"{p.minute:02d}",
                rid="android:id/minutes",
                box=(130, 170, 190, 230),
                clickable=True,
            ),
            Widget(
                "text",
                key="clock:am",
                label="AM",
                rid="android:id/am_label",
                box=(220, 170, 280, 200),
                clickable=True,
                checked=am,
            ),
            Widget(
                "text",
                key="clock:pm",
                label="PM",
                rid="android:id/pm_label",
                box=(220, 200, 280, 230),
                clickable=True,
                checked=not am,
            ),
        ]
        values = [m * 5 for m in range(12)] if p.minutes_view else [12, *range(1, 12)]
        dial = []
        for i, value in enumerate(values):  # clockwise from the top, as on the dial
            x = 180 + round(110 * math.sin(i * math.pi / 6))
            y = 400 - round(110 * math.cos(i * math.pi / 6))
            dial.append(
                Widget(
                    "view",
                    key=f"clock:pick:{value}",
                    desc=str(value),
                    box=(x - 15, y - 15, x + 15, y + 15),
                    clickable=True,
                )
            )
        buttons = [
            Widget(
                "text",
                key="clock:cancel",
                label="Cancel",
                rid="android:id/button2",
                box=(140, 580, 230, 630),
                clickable=True,
            ),
            Widget(
                "text", key="clock:ok", label="OK", rid="android:id/button1", box=(240, 580, 320, 630), clickable=True
            ),
        ]
        return Widget(
            "container",
            rid="android:id/time_picker",
            box=(30, 150, 330, 650),
            children=[
                *header,
                Widget("container", rid="android:id/radial_picker", box=(55, 275, 305, 525), children=dial),
                *buttons,
            ],
        )
