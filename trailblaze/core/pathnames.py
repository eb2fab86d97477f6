"""Names from trails, devices and tool arguments made into file and folder names.

A trail's ``config.id``, a device id, a ``web_snapshot`` screen name or a Maestro
``takeScreenshot`` path is text someone else wrote; as a path it could climb out of the
artifacts folder (``..``), hide a file (``.name``), end a C string early (NUL) or be longer than
a file system takes (255 bytes, ENAMETOOLONG). Every such name goes through
:func:`path_component` before it becomes part of a path.
"""

from __future__ import annotations

import hashlib

#: bytes of UTF-8 a name may have: far below the 255 file systems take, so the suffixes
#: callers add (``-retry3``, ``.hierarchy.json``) still fit
MAX_NAME_BYTES = 120
#: hex digits of the hash a shortened name ends with
_HASH_DIGITS = 10


def path_component(text: str, *, fallback: str = "_", max_bytes: int = MAX_NAME_BYTES) -> str:
    """``text`` as one file or folder name, never a path.

    Letters, digits, ``-``, ``_`` and ``.`` are kept; everything else (``/``, ``\\``, NUL,
    control characters, spaces) becomes ``_``, and so do leading dots: the name is never
    ``.``, ``..`` or hidden. Empty text is ``fallback``. A name longer than ``max_bytes`` of
    UTF-8 is cut and ends with ``-`` and a hash of the whole text, so two long names that
    differ only at the end stay two names."""
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
    stripped = cleaned.lstrip(".")
    cleaned = "_" * (len(cleaned) - len(stripped)) + stripped
    if not cleaned:
        return fallback
    if len(cleaned.encode("utf-8")) <= max_bytes:
        return cleaned
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_DIGITS]
    budget = max(1, max_bytes - _HASH_DIGITS - 1)
    head = cleaned.encode("utf-8")[:budget].decode("utf-8", "ignore")  # never half a character
    return f"{head}-{digest}"


def relative_path(text: str, *, fallback: str = "_") -> tuple[str, ...]:
    """``text`` (``screens/login``) as the parts of a path below a folder: each part a
    :func:`path_component`, ``.``, ``..`` and empty parts left out, so the path stays inside
    the folder it is joined to."""
    parts = [p for p in text.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    return tuple(path_component(p) for p in parts) or (fallback,)
