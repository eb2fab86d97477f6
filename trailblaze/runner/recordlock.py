"""One ``trailblaze record`` at a time per trail file.

Two recordings of one file would each write what they recorded at the end, and the second would
replace the first's recordings of the same steps. So ``record`` takes a lock on every trail file
it will write before a device opens, and a second ``record`` of one of them stops at once with
exit 3, naming the file and the process recording it — as ``git`` stops at ``index.lock``
rather than wait an unknown time for a person recording with an agent. (Should two
recordings meet anyway — one started from another project folder — saving refuses to replace a
recording that appeared on disk meanwhile: :meth:`trailblaze.trail.writer.TrailFile.save`.)

The locks are ``flock`` locks on files in ``.trailblaze/record/`` named by a hash of the trail's
real path, the folder the recording progress is kept in: the kernel drops them when the process
ends however it ends (Ctrl-C, a crash, SIGKILL), so no stale lock is ever left to clear by hand.
The files themselves stay; their content is the holder's process id, for the message.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from trailblaze.core.errors import Location, UsageError


@contextlib.contextmanager
def locked_trails(root: Path, trail_paths: Iterable[Path]) -> Iterator[None]:
    """Hold the lock of each trail file in ``trail_paths`` (in the project at ``root``) for the
    ``with`` block; a :class:`~trailblaze.core.errors.UsageError` when another process holds one."""
    held: list[int] = []
    try:
        for path in sorted({p.resolve() for p in trail_paths}):  # one order for all: no two runs wait on each other
            held.append(_lock(root, path))
        yield
    finally:
        for fd in held:
            os.close(fd)  # closing the file drops its lock


def lock_path(root: Path, trail_path: Path) -> Path:
    digest = hashlib.sha256(str(trail_path.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return root / ".trailblaze" / "record" / f"{digest}.lock"


def _lock(root: Path, trail_path: Path) -> int:
    path = lock_path(root, trail_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise UsageError(
            f"another `trailblaze record`{holder} is recording this trail file; run again when it has ended "
            "(a file is written once, when its recording ends, and two recordings would replace each other's)",
            Location(str(trail_path)),
        ) from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _holder(fd: int) -> str:
    """`` (pid 1234)``: who holds the lock, as it wrote itself into the file."""
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return f" (pid {text})" if text.isdigit() else ""
