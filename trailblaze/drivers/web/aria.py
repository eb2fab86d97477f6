"""Read Playwright's ARIA snapshot (``aria_snapshot(mode="ai")``) into the shared ViewNode model.

Each line is ``- role "name" [attr=value] [ref=e5]: inline text``; indentation nests children;
``- /url: …`` lines are properties of their parent. Playwright writes its own handles as refs
(``aria-ref=e5`` locates the element while the snapshot is current); the web driver shows
upstream's page-elements ids in their place (:func:`with_refs`, :mod:`trailblaze.drivers.web.elements`).

Which handles are the top document's is read from the snapshot's structure, never from the
handles' spelling: Playwright 1.59 writes ``e5`` for the top document and ``f1e2`` inside a
frame, while 1.6x also prefixes the top document's handles once the page has navigated
(``f2e5``). A frame's content is what is nested under an ``iframe`` line.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping

from trailblaze.device.commands import ViewNode

_LINE = re.compile(r"^(?P<indent>\s*)- (?P<body>.*)$")
_ATTR = re.compile(r"\[(?P<key>[\w-]+)(?:=(?P<value>[^\]]*))?\]")
_NAME = re.compile(r'"(?:[^"\\]|\\.)*"')
_HANDLE = re.compile(r" ?\[ref=(?P<handle>[^\]\s]+)\]")


def parse_snapshot(text: str) -> ViewNode:
    """The snapshot as a tree under a synthetic ``document`` root."""
    root = ViewNode(class_name="document")
    stack: list[tuple[int, ViewNode]] = [(-1, root)]
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if not m:
            continue
        indent = len(m.group("indent"))
        body = m.group("body")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else root
        if body.startswith("/"):
            key, _, value = body[1:].partition(":")
            parent.attributes[key.strip()] = value.strip()
            continue
        node = _parse_line(body)
        node.parent = parent
        parent.children.append(node)
        stack.append((indent, node))
    return root


def in_frames(lines: list[str]) -> list[bool]:
    """For each line of an AI-mode snapshot, whether it is inside a frame (nested under an
    ``iframe`` line) rather than the top document's."""
    inside: list[bool] = []
    frame_indent: int | None = None
    for raw in lines:
        m = _LINE.match(raw)
        if m is None:  # a continuation of the line above: where that one is
            inside.append(bool(inside) and inside[-1])
            continue
        indent = len(m.group("indent"))
        if frame_indent is not None and indent <= frame_indent:
            frame_indent = None
        inside.append(frame_indent is not None)
        if frame_indent is None and _split_role(m.group("body"))[0] == "iframe":
            frame_indent = indent
    return inside


def handle(line: str) -> str | None:
    """Playwright's handle on a snapshot line (``e5``, ``f2e5``), or None."""
    m = _HANDLE.search(line)
    return m.group("handle") if m else None


def with_refs(text: str, refs: Mapping[int, str]) -> str:
    """The snapshot with other refs: ``refs`` gives the ref of a line by its index; Playwright's
    handles of the top document are dropped, those inside frames kept (upstream's list does
    not enter frames, so a frame's elements are acted on by their handles)."""
    lines = text.splitlines()
    framed = in_frames(lines)
    for index, raw in enumerate(lines):
        m = _LINE.match(raw)
        if not m or m.group("body").startswith("/"):
            continue
        body = m.group("body") if framed[index] else _HANDLE.sub("", m.group("body"))
        if index in refs:
            end = _head_length(body)
            body = f"{body[:end]} [ref={refs[index]}]{body[end:]}"
        lines[index] = m.group("indent") + "- " + body
    return "\n".join(lines)


def role_and_name(line: str) -> tuple[str, str | None]:
    """A snapshot line's role and accessible name: the quoted name, unescaped (a paragraph's or
    a text's inline text is its content, not its name)."""
    m = _LINE.match(line)
    if not m or m.group("body").startswith("/"):
        return "", None
    role, rest = _split_role(m.group("body"))
    rest = rest.lstrip()
    quoted = _NAME.match(rest) if rest.startswith('"') else None
    if quoted is None:
        return role, None
    try:
        name = json.loads(quoted.group(0))
    except json.JSONDecodeError:
        name = quoted.group(0)[1:-1]
    return role, name if isinstance(name, str) else None


def _head_length(body: str) -> int:
    """Where a line's role, name and attributes end (its inline text or ``:`` follows)."""
    at = len(body) - len(_split_role(body)[1])
    while True:
        stripped = body[at:].lstrip()
        m = _NAME.match(stripped) if stripped.startswith('"') else _ATTR.match(stripped)
        if not m:
            return at
        at = len(body) - len(stripped) + m.end()


def _parse_line(body: str) -> ViewNode:
    role, rest = _split_role(body)
    name: str | None = None
    rest = rest.lstrip()
    if rest.startswith('"'):
        m = _NAME.match(rest)
        if m:
            try:
                name = json.loads(m.group(0))
            except json.JSONDecodeError:
                name = m.group(0)[1:-1]
            rest = rest[m.end() :]
    attrs: dict[str, str | bool] = {}
    while True:
        rest = rest.lstrip()
        m = _ATTR.match(rest)
        if not m:
            break
        attrs[m.group("key")] = m.group("value") if m.group("value") is not None else True
        rest = rest[m.end() :]
    inline = None
    if rest.startswith(":"):
        inline = rest[1:].strip() or None
        if inline and inline.startswith('"') and inline.endswith('"'):
            with contextlib.suppress(json.JSONDecodeError):
                inline = json.loads(inline)
    ref = attrs.pop("ref", None)
    node = ViewNode(
        class_name=role,
        text=name if name is not None else (inline if role in ("text", "generic", "paragraph") else None),
        ref=ref if isinstance(ref, str) else None,
        enabled=not attrs.get("disabled", False),
        checked=_flag(attrs.get("checked")),
        selected=bool(attrs.get("selected", False)),
        focused=bool(attrs.get("active", False)),
        clickable=role in _CLICKABLE or attrs.get("cursor") == "pointer",
        attributes={k: v for k, v in attrs.items() if k not in ("disabled", "checked", "selected", "active")},
    )
    if inline is not None and node.text != inline:
        node.attributes["value"] = inline
    return node


def _split_role(body: str) -> tuple[str, str]:
    m = re.match(r"[\w-]+", body)
    if not m:
        return "text", body
    return m.group(0), body[m.end() :]


def _flag(value: str | bool | None) -> bool | None:
    if value is None:
        return None
    if value is True or value == "true":
        return True
    if value == "mixed":
        return None
    return False


_CLICKABLE = frozenset(
    {
        "button",
        "link",
        "checkbox",
        "radio",
        "switch",
        "tab",
        "menuitem",
        "option",
        "combobox",
        "textbox",
        "searchbox",
    }
)


def descriptor(node: ViewNode) -> str:
    """Upstream's ARIA descriptor of a node: ``role "name"`` (or just ``role``)."""
    role = node.class_name or "generic"
    return f"{role} {json.dumps(node.text)}" if node.text else role
