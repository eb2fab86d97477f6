"""What ``trailblaze doctor`` reports: one :class:`DoctorCheck` per piece a plugin owns (part of
the plugin contract: ``trailblaze_doctor`` returns them).

A check says what was looked at (``name``), how it stands (``status``), what was found
(``detail``) and, when it is not ``ok``, what to do about it (``fix``). Whether a missing piece
is a failure depends on the project: the web driver's browser is a failure for a project with
web trails and a warning for one that has only Android trails — :meth:`DoctorCheck.missing`
says so in one call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: ``ok``: there and working; ``warn``: missing or broken, but the project's trails do not need
#: it (or can run without it); ``fail``: missing or broken, and the project's trails need it
#: (``trailblaze doctor`` exits 2); ``skip``: not looked at, ``detail`` says why
CheckStatus = Literal["ok", "warn", "fail", "skip"]
CHECK_STATUSES: tuple[CheckStatus, ...] = ("ok", "warn", "fail", "skip")


@dataclass(frozen=True, slots=True)
class DoctorCheck:
    """One thing ``trailblaze doctor`` looked at: ``name`` (short: ``browser``, ``node``,
    ``android-uiautomator2 devices``), ``status`` (see :data:`CheckStatus`), ``detail`` (what
    was found: a version and a path, or what is wrong) and ``fix`` (the command or setting that
    mends it; None when there is nothing to mend, or when ``detail`` is an error message that
    already ends with its remedy)."""

    name: str
    status: CheckStatus
    detail: str
    fix: str | None = None

    def __post_init__(self) -> None:
        if self.status not in CHECK_STATUSES:
            raise ValueError(f"status must be one of {', '.join(CHECK_STATUSES)}, not {self.status!r}")

    @classmethod
    def missing(cls, name: str, detail: str, fix: str | None, *, needed: bool) -> DoctorCheck:
        """A piece that is missing or broken: ``fail`` when the project's trails ``needed`` it,
        else ``warn``."""
        return cls(name, "fail" if needed else "warn", detail, fix)

    def to_dict(self) -> dict[str, str | None]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}
