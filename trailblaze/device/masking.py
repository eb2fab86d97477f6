"""Secret values (``web_fillSecret.value``, the ``${ENV}`` values calls use) replaced by ``***``
wherever Trailblaze renders what it saw or did.

A secret typed into a text field is on the screen from then on: in the ARIA snapshot, in the
view hierarchy, in what a tool reads back. So masking is not only for reports: every
rendering of a screen (what an agent is shown or sent, snapshot artifacts, what an MCP server
gets back from a callback) and every text about a call (errors, outputs) goes through here.
A session keeps the secrets its calls used in one set; what is masked is whatever that set
holds at the moment of rendering.

Values shorter than :data:`MIN_SECRET_LENGTH` are not masked: hiding every "1" or "on" would
garble every message (README, "Configuration").
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from trailblaze.device.commands import ViewNode

MASK = "***"
#: Shorter values are not masked in messages: hiding every "1" or "on" would garble them.
MIN_SECRET_LENGTH = 4


#: every secret any session of this process has used: for what no one session owns (the
#: output of ``web: server:``, which serves every session of a run), masking more is no harm
_KNOWN: set[str] = set()


def keep(secrets: set[str], *values: Any) -> None:
    """Remember ``values`` (the strings long enough to be worth masking) as secrets."""
    for value in values:
        if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH:
            secrets.add(value)
            _KNOWN.add(value)


def redact_known(text: str) -> str:
    """``text`` with every secret any session has used so far masked."""
    return redact(text, _KNOWN) if _KNOWN else text


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by ``***`` (longest first: a secret that contains
    another is masked whole)."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact_value(value: Any, secrets: Iterable[str]) -> Any:
    """A copy of JSON-like ``value`` with every string redacted."""
    found = list(secrets)
    if not found:
        return value
    if isinstance(value, str):
        return redact(value, found)
    if isinstance(value, Mapping):
        return {k: redact_value(v, found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, found) for v in value]
    return value


def masked_node(root: ViewNode, secrets: Iterable[str]) -> ViewNode:
    """A copy of the screen ``root`` with secrets masked in every text, label, hint, id and
    attribute (the original stays as it is: refs and selectors are found in it)."""
    found = list(secrets)
    if not found:
        return root
    top: ViewNode | None = None
    stack: list[tuple[ViewNode, ViewNode | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        copy = ViewNode(
            text=_masked(node.text, found),
            id=_masked(node.id, found),
            class_name=node.class_name,
            description=_masked(node.description, found),
            hint=_masked(node.hint, found),
            bounds=node.bounds,
            enabled=node.enabled,
            checked=node.checked,
            selected=node.selected,
            focused=node.focused,
            clickable=node.clickable,
            scrollable=node.scrollable,
            password=node.password,
            visible=node.visible,
            ref=node.ref,
            attributes=redact_value(node.attributes, found),
        )
        if parent is None:
            top = copy
        else:
            copy.parent = parent
            parent.children.append(copy)
        stack.extend((child, copy) for child in reversed(node.children))
    assert top is not None
    return top


def _masked(text: str | None, secrets: list[str]) -> str | None:
    return redact(text, secrets) if text else text


#: entries of a Playwright trace that are pictures: their bytes are not text to mask
_PICTURES = (".png", ".jpeg", ".jpg", ".webp", ".gif")


def redact_zip(path: Path, secrets: Iterable[str]) -> None:
    """Mask ``secrets`` in every text entry of the zip archive at ``path`` (a Playwright
    ``trace.zip``: its actions, DOM snapshots and network log hold filled values as they were
    typed, JSON-escaped and URL-encoded). Pictures are left as they are, as screenshots are."""
    import json
    import zipfile
    from urllib.parse import quote, quote_plus

    found = [s for s in secrets if len(s) >= MIN_SECRET_LENGTH]
    if not found:
        return
    forms: set[bytes] = set()
    for secret in found:
        for form in (secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
            forms.add(form.encode("utf-8"))
        forms.update({quote(secret, safe="").encode("ascii"), quote_plus(secret).encode("ascii")})
    ordered = sorted(forms, key=len, reverse=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".masking", dir=path.parent)
    os.close(fd)
    masked = Path(name)  # a file of its own: a link left under a fixed name is never written through
    try:
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(masked, "w", zipfile.ZIP_DEFLATED) as target:
            for entry in source.infolist():
                data = source.read(entry)
                if not entry.filename.lower().endswith(_PICTURES):
                    for encoded in ordered:
                        data = data.replace(encoded, MASK.encode("ascii"))
                target.writestr(entry, data)
        os.replace(masked, path)
    finally:
        masked.unlink(missing_ok=True)
