"""What a process trailblaze started prints (an MCP server's stderr, ``web: server:``'s output):
kept in a log file and a rolling tail, both bounded, secrets masked.

The file is appended to as lines arrive and rotated when it reaches
:data:`~trailblaze.core.limits.LOG_BYTES` (the previous one is kept as ``<name>.1``, so a
chatty process leaves at most twice the bound); error messages quote the last lines, each cut.
It is opened as every file trailblaze writes as it goes: never through a link, never into
anything but a regular file (:func:`~trailblaze.core.fileio.open_log`).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from trailblaze.core import limits
from trailblaze.core.fileio import open_log
from trailblaze.core.limits import shorten

#: lines an error message quotes, and how much of each
TAIL_LINES = 20
TAIL_LINE_CHARS = 300


class ProcessLog:
    """A process's output: appended to ``path`` as it arrives, the last lines kept for errors.

    Both are bounded: error messages quote the last ``lines`` lines, each cut to
    :data:`TAIL_LINE_CHARS`; the file is rotated at :data:`~trailblaze.core.limits.LOG_BYTES`.
    ``redact`` masks what a line holds before it is kept anywhere."""

    def __init__(
        self,
        path: Path | None,
        lines: int = TAIL_LINES,
        redact: Callable[[str], str] | None = None,
        *,
        what: str = "the server",
        stream: str = "stderr",
    ) -> None:
        self.path = path
        #: masks secrets in what the process writes (it may print the arguments it was given)
        self._redact = redact
        self._tail: deque[str] = deque(maxlen=lines)
        self._file: BinaryIO | None = None
        self._limit = limits.LOG_BYTES.get_int()
        self._written = 0
        self._what = what
        self._stream = stream
        if path is not None:
            self._file = open_log(path)
            self._written = os.fstat(self._file.fileno()).st_size

    def write(self, line: str) -> None:
        if self._redact is not None:
            line = self._redact(line)
        self._tail.append(shorten(line, TAIL_LINE_CHARS))
        if self._file is not None:
            data = (line + "\n").encode("utf-8", "replace")
            if self._written + len(data) > self._limit and self._written > 0:
                self._rotate()
            self._file.write(data)
            self._written += len(data)

    def _rotate(self) -> None:
        assert self._file is not None and self.path is not None
        self._file.close()
        os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        self._file = open_log(self.path)
        self._written = 0

    @property
    def lines(self) -> list[str]:
        return list(self._tail)

    def describe(self) -> str:
        """The tail, ready to append to an error message (saying so when there is none)."""
        lines = [line for line in self._tail if line.strip()]
        where = f" (full log: {self.path})" if self.path is not None else ""
        if not lines:
            return f"\n{self._what} wrote nothing to {self._stream}{where}"
        body = "\n".join(f"  | {line}" for line in lines)
        return f"\nlast {len(lines)} {self._stream} lines{where}:\n{body}"

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
