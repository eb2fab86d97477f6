"""The fake Android phone's screen as uiautomator2 dumps it: the sample app's widgets as
hierarchy XML in uiautomator2's exact format (a part of :class:`tests.standins.android_phone.FakeAndroid`)."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from tests.standins.android_state import PhoneState
from tests.standins.sample_app import (
    LAUNCHER,
    SAMPLE_APP,
    Widget,
)


class PhoneScreen(PhoneState):
    """What :class:`~tests.standins.android_phone.FakeAndroid` shows: its hierarchy dump."""

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


def _inset(box: tuple[int, ...], by: int) -> tuple[int, int, int, int]:
    left, top, right, bottom = box
    return left + by, top + by, right - by, bottom - by
