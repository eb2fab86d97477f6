"""Write files so that readers never see half of one."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from trailblaze.core.limits import utf8_text


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file next to ``path``, then rename it into place.

    The file keeps its permissions (a new one gets the usual ones for the umask), and line
    breaks are written as they are in ``text``. A symbolic link stays one: the file it points
    to is written. What is not a regular file (``/dev/stdout``, ``/dev/null``, a FIFO a CI step
    reads) is written into, never replaced; a FIFO nobody reads is an error, not a hang.

    Bytes that were not UTF-8 where the text came from (a file name, an argument: Python keeps
    them as lone surrogates) are written escaped, as ``\\udcff`` — still valid JSON, and
    readable in XML, HTML and logs — never a half-written file."""
    text = utf8_text(text)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        _write_into(path, text)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a folder on the way is a file: say that, not "File exists"
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path.parent)) from None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_into(path: Path, text: str) -> None:
    """Write into a device or FIFO (opened without blocking: no reader is ENXIO, at once)."""
    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.set_blocking(fd, True)
        with os.fdopen(fd, "w", encoding="utf-8", newline="", closefd=False) as handle:
            handle.write(text)
            handle.flush()
    finally:
        os.close(fd)


def _mode_for(path: Path) -> int:
    """The existing file's permissions, else what ``open()`` would give a new file. The umask
    is read, not set and restored: setting it would race with other threads creating files."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o644


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to the file at ``path``, whole or not at all: a write that fails (a full
    disk, a quota, a name too long) removes what it began, so no empty or cut file is left to
    pass for evidence, and raises its ``OSError``."""
    handle = open(path, "wb")  # noqa: SIM115 - what it wrote is removed if the write fails
    try:
        with handle:
            handle.write(data)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
