"""What a server of ours on a loopback address checks before it answers a request.

A web page the user has open can send requests to ``127.0.0.1``; with DNS rebinding it can even
read the answers, through a name of its own that resolves to ``127.0.0.1``. The MCP spec's
security warning says what stops that, and both of our local servers do it
(``trailblaze mcp --http``, ``trailblaze show-report``): a request whose ``Host`` is not a name
the server is reached by is refused (421), and one from a page whose ``Origin`` is neither on
this machine nor an allowed name is refused (403).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

#: the names a server on a loopback address is reached by
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bracketed(host: str) -> str:
    """An IPv6 address as a ``Host`` header writes it (``[::1]``)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def with_port(names: Iterable[str], port: int) -> set[str]:
    """The ``Host`` values ``names`` give on ``port``: each name alone and with the port."""
    names = set(names)
    return {*names, *(f"{n}:{port}" for n in names)}


def host_ok(host: str | None, hosts: set[str]) -> bool:
    """``host`` (a ``Host`` header) is one of ``hosts`` (lower case), with or without its port."""
    if not host:
        return False
    name = host.lower()
    if name in hosts:
        return True
    bare = name.rsplit(":", 1)[0] if not name.endswith("]") else name
    return bare in hosts


def origin_ok(origin: str | None, hosts: set[str]) -> bool:
    """A page on this machine (any port: a local dev server) or on an allowed name; DNS
    rebinding needs a name the attacker controls, which is neither. No ``Origin``: not a page."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    host = parts.hostname.lower()
    return is_loopback(host) or bracketed(host) in hosts
