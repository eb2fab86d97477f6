"""Errors that carry a source location, and the exit codes they map to.

Exit codes follow upstream Trailblaze: 0 all passed, 1 a trail failed, 2 infrastructure
failure (driver, browser, device, server), 3 misuse (bad CLI arguments, config or trail file).
Every expected error is one of the classes below; the CLI turns them into one readable line
and the matching exit code at a single boundary. Anything else is a bug: exit 4, an internal
error, with the traceback kept in a log file (:mod:`trailblaze.cli.crashlog`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal


class ExitCode(enum.IntEnum):
    OK = 0
    FAILED = 1
    ERROR = 2
    USAGE = 3
    #: an unexpected exception: a bug in trailblaze or a plugin, never a verdict on the trails
    INTERNAL = 4
    INTERRUPTED = 130


#: what became of a trail, a step or a tool call (an exit code sums up a run of them).
#: ``healed``: a recorded step failed and the agent of ``run --self-heal`` worked it out;
#: ``incomplete``: ``record`` ended with steps still unrecorded (skipped, quit, input ended);
#: ``flaky``: failed, then passed when ``--retries`` ran it again
Status = Literal["passed", "failed", "error", "skipped", "healed", "incomplete", "flaky"]


@dataclass(frozen=True, slots=True)
class Location:
    """Where something came from: a file and, when the parser knows them, 1-based line and column."""

    path: str | None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        parts = [self.path or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


class TrailblazeError(Exception):
    """Base of all expected errors. ``str()`` is the one line shown to the user."""

    exit_code: ExitCode = ExitCode.ERROR

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location is None:
            return self.message
        return f"{self.location}: {self.message}"


class UsageError(TrailblazeError):
    """Misuse: a bad CLI argument, config file or trail file (exit 3)."""

    exit_code = ExitCode.USAGE


class InfrastructureError(TrailblazeError):
    """The machinery failed: driver, browser, device or server (exit 2)."""

    exit_code = ExitCode.ERROR


#: problems one message lists; the rest are counted (one wrong tool name in a 10 MB trail was
#: 233,012 lines)
SHOWN_PROBLEMS = 50


class ErrorList(UsageError):
    """Several problems found at once (``trailblaze validate`` reports them), in file and line
    order: the first :data:`SHOWN_PROBLEMS` in the message, then how many more there are."""

    def __init__(self, errors: Iterable[TrailblazeError]) -> None:
        self.errors = sorted(errors, key=_position)
        lines = [str(e) for e in self.shown]
        if self.more:
            lines.append(self.more_line)
        super().__init__("\n".join(lines))
        if self.errors:
            self.exit_code = max(e.exit_code for e in self.errors)

    @property
    def shown(self) -> list[TrailblazeError]:
        """The problems a message lists."""
        return self.errors[:SHOWN_PROBLEMS]

    @property
    def more(self) -> int:
        """How many problems the message leaves out."""
        return max(0, len(self.errors) - SHOWN_PROBLEMS)

    @property
    def more_line(self) -> str:
        return f"… and {self.more} more problem{'s' if self.more != 1 else ''}"

    def __str__(self) -> str:
        return self.message


def _position(error: TrailblazeError) -> tuple[int, str, int, int]:
    where = error.location
    if where is None:
        return (0, "", 0, 0)  # problems without a place (a bad option) come first
    return (1, where.path or "", where.line or 0, where.column or 0)


class ToolFailure(Exception):
    """Raised by a tool to fail the current step with a message (the trail ends as *failed*).

    Plugin authors raise this (or ``AssertionError``) for an expected, test-level failure:
    an element that is not there, a value that does not match. Anything else a tool raises is
    treated as an error of the tool itself (the trail ends as *error*).
    """
