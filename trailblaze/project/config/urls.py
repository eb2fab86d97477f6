"""What a ``base_url`` may be: an http(s) or file URL, a folder, or a name a plugin declared
with ``parser.add_named_url`` (the web driver's ``sample-app``) — the rules targets'
``base_url:`` and a driver's own ``base_url`` setting share."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator


def check_base_url(value: str | None) -> str | None:
    """A ``base_url`` with ``://`` is a URL a browser can open; anything else is a folder
    (checked to exist once the config file's folder is known) or a declared name: a bad URL
    fails every navigation later."""
    if value is None or "://" not in value:
        return value
    problem = url_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def base_url_problem(value: str | None, root: Path, names: Iterable[str] = ()) -> str | None:
    """Why ``value`` is no ``base_url``: neither a URL, one of ``names`` nor a folder (relative
    to ``root``) that exists."""
    names = list(names)
    if value is None or value in names or "://" in value:
        return None
    folder = Path(value).expanduser()
    if (folder if folder.is_absolute() else root / folder).is_dir():
        return None
    named = "".join(f", {name!r}" for name in names)
    return f"base_url: {value!r} is neither a URL (http://…, https://…, file://…){named} nor a folder that exists"


def url_problem(value: str) -> str | None:
    """Why ``value`` is not a URL a browser can open, or None."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        return f"{value!r} is not a valid URL: {exc}"
    if parts.scheme not in ("http", "https", "file"):
        return f"{value!r} is not an http://, https:// or file:// URL"
    if parts.scheme != "file" and not parts.hostname:
        return f"{value!r} has no host"
    if any(c.isspace() for c in value):
        return f"{value!r} contains spaces"
    return None


#: a plugin setting's type for a ``base_url``-like value: checked as :func:`check_base_url` does
BaseUrl = Annotated[str | None, AfterValidator(check_base_url)]
