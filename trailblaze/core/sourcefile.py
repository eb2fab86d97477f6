"""Read a file Trailblaze is given (a trail, trailblaze.yaml, a results JSON, the ``record``
cache) without trusting it: the one place every such read goes through.

Light on purpose (no YAML import): the CLI reads ``plugins:`` from trailblaze.yaml while it
starts.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from trailblaze.core import limits
from trailblaze.core.errors import Location, UsageError


def read_source(path: Path, kind: str = "YAML") -> str:
    """The UTF-8 text of a file (``kind`` names what it should hold, for messages: ``"YAML"``,
    ``"JSON"``), refusing what is not one; see :func:`read_bounded`. Text that is not UTF-8 is
    refused with the line and column of the first bad byte."""
    return decode_utf8(read_bounded(path, kind), str(path))


def read_bounded(path: Path, kind: str) -> bytes:
    """The bytes of the regular file at ``path``, at most :data:`~trailblaze.core.limits.FILE_BYTES`.

    Only regular files are read — a FIFO would block for ever and ``/dev/zero`` never ends.
    The file is opened non-blocking and checked on the open descriptor, so nothing can be
    swapped in between. Every problem is a :class:`UsageError` naming the file."""
    where = Location(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UsageError("file not found", where) from None
    except IsADirectoryError:
        raise UsageError(f"is a directory, expected a {kind} file", where) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UsageError("symlink loop: the link leads back to itself", where) from None
        raise UsageError(f"cannot read: {exc.strerror}", where) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # before fdopen, which refuses a directory with its own error
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise UsageError(f"is a directory, expected a {kind} file", where)
        raise UsageError(f"not a regular file ({file_kind(mode)}); {kind} is only read from files", where)
    with os.fdopen(fd, "rb") as handle:
        limit = limits.FILE_BYTES.get_int()
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UsageError(f"cannot read: {exc.strerror}", where) from None
    if len(data) > limit:
        raise UsageError(f"the file is larger than {limit} bytes ({limits.FILE_BYTES.env} raises the limit)", where)
    return data


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words (``"a FIFO"``)."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a plain file"


def decode_utf8(data: bytes, path: str | None) -> str:
    """``data`` as UTF-8 text; otherwise an error at the line and column of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1
        raise UsageError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} (byte {exc.start} of the file) is not valid UTF-8; "
            "save the file as UTF-8",
            Location(path, line, column),
        ) from None
