"""The screen as an agent reads it: the ``ViewNode`` tree, one element per line, with refs.

Both a person (``interactive``) and an LLM (``openai``) act on the short ephemeral refs shown
here (``[e12]``); Trailblaze turns a ref into a stable selector before the call runs. Nodes
that carry nothing to read or act on (anonymous wrappers) are left out and their children
moved up, so the view stays compact.
"""

from __future__ import annotations

import json

from trailblaze.device.commands import ViewNode

#: more lines than this are cut (with a note): a screen is read, not archived
MAX_LINES = 400
#: a label or value longer than this is cut (a field holding a 200 KB text is one line)
MAX_TEXT = 200
_SHOWN_ATTRIBUTES = ("level", "value", "url", "placeholder")


def render_screen(root: ViewNode, max_lines: int = MAX_LINES, more: str = "") -> str:
    """The screen, one element per line; past ``max_lines`` a note of how many were left out,
    followed by ``more`` (how the reader can see the rest)."""
    lines: list[str] = []
    omitted = 0

    def visit(node: ViewNode, depth: int) -> None:
        nonlocal omitted
        shown = _worth_showing(node)
        if shown:
            if len(lines) >= max_lines:
                omitted += 1
            else:
                lines.append("  " * depth + _describe(node))
        for child in node.children:
            visit(child, depth + 1 if shown else depth)

    for child in root.children if root.class_name == "document" else [root]:
        visit(child, 0)
    if omitted:
        lines.append(f"… {omitted} more elements not shown{more}")
    return "\n".join(lines) if lines else "(the screen is empty)"


def _worth_showing(node: ViewNode) -> bool:
    return bool(node.ref or node.text or node.description or node.id or node.attributes.get("value"))


def _describe(node: ViewNode) -> str:
    parts = [node.class_name or "node"]
    label = node.text or node.description
    if label:
        parts.append(json.dumps(_short(label), ensure_ascii=False))
    if node.id and not node.ref:
        parts.append(f"id={node.id}")
    for key in _SHOWN_ATTRIBUTES:
        value = node.attributes.get(key)
        if value not in (None, "", True):
            value = _short(str(value))
            parts.append(f"{key}={json.dumps(value, ensure_ascii=False) if ' ' in value else value}")
    if node.checked:
        parts.append("checked")
    if node.selected:
        parts.append("selected")
    if node.focused:
        parts.append("focused")
    if not node.enabled:
        parts.append("disabled")
    if node.ref:
        parts.append(f"[{node.ref}]")
    return " ".join(parts)


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else f"{text[:MAX_TEXT]}… ({len(text) - MAX_TEXT} more characters)"
