"""The callback API's wire format, shared by the server (:mod:`trailblaze.mcpclient.rpc`) and the client
SDK (:mod:`trailblaze.mcpclient.sdk`): JSON-RPC 2.0 over HTTP POST, one command per request.

Request::

    POST {TRAILBLAZE_CALLBACK_URL}
    Authorization: Bearer {TRAILBLAZE_CALLBACK_TOKEN}
    {"jsonrpc": "2.0", "id": 1, "method": "is_visible",
     "params": {"text": "Welcome", "_meta": {"trailblazeInvocationId": "inv-…"}}}

``method`` is a ``Commands`` method in snake_case or camelCase (``input_text`` or
``inputText``); ``params`` are its keyword arguments (camelCase accepted at the top level).
Results are JSON: a screen hierarchy is ``ViewNode.to_dict()``, a screen capture an object
with ``screenshot`` (base64), ``image_format``, ``width``, ``height``, ``url`` and
``hierarchy``. This module stays free of heavy imports: the client SDK uses it too.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from trailblaze.device.commands import Bounds, ScreenState, ViewNode

#: JSON-RPC error codes of the callback API (the -32600..-32700 ones are JSON-RPC's own)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNAUTHORIZED = -32001
COMMAND_FAILED = -32010  # an assertion did not hold (the tool should fail its call)
ACTION_REFUSED = -32011  # an action during a delegating tool's call
UNSUPPORTED = -32012  # the session's driver does not implement the command

INVOCATION_KEY = "trailblazeInvocationId"
INVOCATION_HEADER = "X-Trailblaze-Invocation-Id"

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake(name: str) -> str:
    """``inputText`` → ``input_text`` (snake_case passes unchanged)."""
    return _CAMEL.sub(r"_\1", name).lower()


def camel(name: str) -> str:
    """``input_text`` → ``inputText``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def encode(value: Any) -> Any:
    """A command's return value as JSON."""
    if isinstance(value, ViewNode):
        return value.to_dict()
    if isinstance(value, ScreenState):
        return {
            "screenshot": base64.b64encode(value.screenshot).decode("ascii") if value.screenshot else None,
            "image_format": value.image_format,
            "width": value.width,
            "height": value.height,
            "url": value.url,
            "hierarchy": value.hierarchy.to_dict(),
        }
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def decode_node(data: dict[str, Any]) -> ViewNode:
    """The inverse of ``ViewNode.to_dict()``."""
    bounds = data.get("bounds")
    node = ViewNode(
        text=data.get("text"),
        id=data.get("id"),
        class_name=data.get("class_name"),
        description=data.get("description"),
        hint=data.get("hint"),
        ref=data.get("ref"),
        bounds=Bounds(*bounds) if bounds else None,
        enabled=data.get("enabled", True),
        checked=data.get("checked"),
        selected=bool(data.get("selected", False)),
        focused=bool(data.get("focused", False)),
        clickable=bool(data.get("clickable", False)),
        scrollable=bool(data.get("scrollable", False)),
        password=bool(data.get("password", False)),
    )
    for child in data.get("children", []):
        decoded = decode_node(child)
        decoded.parent = node
        node.children.append(decoded)
    return node


def decode_screen(data: dict[str, Any]) -> ScreenState:
    shot = data.get("screenshot")
    return ScreenState(
        screenshot=base64.b64decode(shot) if shot else None,
        hierarchy=decode_node(data.get("hierarchy") or {}),
        width=int(data.get("width") or 0),
        height=int(data.get("height") or 0),
        url=data.get("url"),
        image_format=data.get("image_format") or "png",
    )
