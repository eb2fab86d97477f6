"""Lines from standard input, awaited without blocking the event loop.

``input()`` in the event loop would freeze the browser and every timer; a plain worker thread
would keep the process alive on Ctrl-C while it waits for a line. A daemon thread reads the
lines and hands them to the loop instead, so an agent awaits the next line and the process
still ends at once when it has to. Works the same on a terminal and on a pipe (scripts).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from trailblaze.api.agent import StepTask, Verdict, VerdictStatus

_lock = threading.Lock()
_readers: dict[int, LineReader] = {}


class LineReader:
    """Reads ``stream`` line by line in a daemon thread; :meth:`readline` awaits the next one."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lines: list[str | None] = []
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[str | None]]] = []
        self._condition = threading.Condition()
        self._thread = threading.Thread(target=self._read, name="trailblaze-stdin", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                line = self._stream.readline()
            except (OSError, ValueError):
                line = ""
            item = line.rstrip("\r\n") if line else None
            with self._condition:
                self._lines.append(item)
                self._deliver()
            if item is None:
                return

    def _deliver(self) -> None:
        while self._lines and self._waiters:
            loop, future = self._waiters.pop(0)
            item = self._lines[0]
            if item is not None:
                self._lines.pop(0)
            try:
                loop.call_soon_threadsafe(self._resolve, future, item)
            except RuntimeError:  # that loop is gone: keep the line for the next reader
                if item is not None:
                    self._lines.insert(0, item)

    def _resolve(self, future: asyncio.Future[str | None], item: str | None) -> None:
        if not future.done():
            future.set_result(item)
            return
        with self._condition:  # the reader gave up waiting (Ctrl-C): the line is not lost
            if item is not None:
                self._lines.insert(0, item)
            self._deliver()

    async def readline(self) -> str | None:
        """The next line without its line break; None at the end of input."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()
        with self._condition:
            self._waiters.append((loop, future))
            self._deliver()
        try:
            return await future
        finally:
            with self._condition:
                self._waiters = [(lp, f) for lp, f in self._waiters if f is not future]


def stdin_lines() -> LineReader:
    """The process's one reader of standard input."""
    with _lock:
        reader = _readers.get(id(sys.stdin))
        if reader is None:
            reader = _readers[id(sys.stdin)] = LineReader(sys.stdin)
        return reader


def say(text: str = "", end: str = "\n") -> None:
    """Write to the person at the terminal at once (stdout may be a pipe)."""
    sys.stdout.write(text + end)
    sys.stdout.flush()


def step_word(word: str, rest: str, task: StepTask, *, gave_up: str) -> Verdict | bool:
    """The words every person-driven agent understands. ``done``, ``skip``, ``quit`` and
    ``fail`` end the step: their :class:`Verdict` (``rest`` is the explanation; ``gave_up`` the
    one ``fail`` gets without). ``undo`` drops the last call: True. Any other word: False."""
    from trailblaze.api.agent import Verdict

    endings: dict[str, VerdictStatus] = {"done": "complete", "skip": "skipped", "quit": "quit", "fail": "failed"}
    if word in endings:
        explanation = rest.strip() or (gave_up if word == "fail" else "")
        return Verdict(endings[word], explanation)
    if word == "undo":
        dropped = task.undo()
        say(f"undone: {', '.join(c.name for c in dropped)}" if dropped else "nothing to undo")
        return True
    return False
