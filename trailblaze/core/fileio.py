"""Write files so that readers never see half of one."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

from trailblaze.core.limits import utf8_text


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file next to ``path``, then rename it into place.

    The file keeps its permissions (a new one gets the usual ones for the umask), and line
    breaks are written as they are in ``text``. Nothing is written through a link: a symbolic
    link at ``path`` is replaced by the file, and what it pointed to is left as it was (a
    repository can commit a link where trailblaze keeps state; it cannot aim trailblaze's writes
    at a file of the user's that way). A stream — ``/dev/stdout``, ``/dev/null``, a FIFO a CI
    step reads, or a link to one — is written into, never replaced; a FIFO nobody reads is an
    error, not a hang. Any other special file (a block device, a socket) is an error.

    Bytes that were not UTF-8 where the text came from (a file name, an argument: Python keeps
    them as lone surrogates) are written escaped, as ``\\udcff`` — still valid JSON, and
    readable in XML, HTML and logs — never a half-written file."""
    data = utf8_text(text).encode("utf-8")
    if _is_stream(path):
        _write_into(path, data)
        return
    _replace(path, data)


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` as the file at ``path`` (evidence, a snapshot: files trailblaze names
    itself), whole or not at all: a write that fails (a full disk, a quota, a name too long)
    leaves no empty or cut file to pass for evidence, and raises its ``OSError``. Whatever is at
    ``path`` — a link (to a file, to a device), a FIFO — is replaced, never written through."""
    _replace(path, data, sync=False)


def copy_whole(source: Path, target: Path) -> None:
    """Copy the file ``source`` to ``target`` as :func:`write_whole` writes (a link at ``target``
    is replaced; ``source`` is read as it is, links followed)."""
    _replace(target, source.read_bytes(), sync=False)


def open_log(path: Path) -> BinaryIO:
    """``path`` opened for appending, for a log trailblaze writes as it goes: created if need be,
    never through a link (``ELOOP``), never into anything but a regular file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "ab", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def _is_stream(path: Path) -> bool:
    """Whether ``path`` leads (through links) to a character device or a FIFO; an error for any
    other special file, which is neither replaced nor written into."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return True
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return False
    raise OSError(errno.EINVAL, "not a regular file, a device or a FIFO", str(path))


def _replace(path: Path, data: bytes, *, sync: bool = True) -> None:
    """``data`` into a temporary file beside ``path``, renamed over it (over a link, not through
    it); ``sync``: on the disk before the rename (reports and state, not each screenshot)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a folder on the way is a file: say that, not "File exists"
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path.parent)) from None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_into(path: Path, data: bytes) -> None:
    """Write into a device or FIFO (opened without blocking: no reader is ENXIO, at once)."""
    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _mode_for(path: Path) -> int:
    """The existing file's permissions (not a link's target's), else what ``open()`` would give
    a new file. The umask is read, not set and restored: setting it would race with other
    threads creating files."""
    try:
        mode = path.lstat().st_mode
        if stat.S_ISREG(mode):
            return mode & 0o7777
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
