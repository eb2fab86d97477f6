"""The figure every benchmark reports: what was measured beside its baseline from the same run,
and the goal for their ratio, or for their difference. Each benchmark module builds its figures
here; ``run.py`` prints them beside the last recorded ones, and a module run alone prints them
with :meth:`Figure.line`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Figure:
    name: str
    measured: float
    baseline: float
    unit: str
    goal: str
    ok: bool
    #: for a goal on ``measured - baseline`` (:func:`at_most_more`): the most it may be, in
    #: ``unit``; None for a goal on the ratio (every other figure)
    allowance: float | None = None

    @property
    def ratio(self) -> float:
        return self.measured / self.baseline if self.baseline else float("inf")

    @property
    def difference(self) -> float:
        return self.measured - self.baseline

    def outcome(self) -> str:
        """What the goal is about: ``1.23×``, or for a difference goal ``+0.212 s``."""
        if self.allowance is None:
            return f"{self.ratio:.2f}×"
        return f"{self.difference:+.3f} {self.unit}"

    def line(self, digits: int = 3) -> str:
        """``name: 1.234 vs 1.000 s = 1.23× (≤ 1.3×)``, or ``… = +0.234 s (≤ 0.5 s more)``."""
        return (
            f"{self.name}: {self.measured:.{digits}f} vs {self.baseline:.{digits}f} {self.unit} = "
            f"{self.outcome()} ({self.goal})"
        )


def at_most(name: str, measured: float, baseline: float, unit: str, times: float) -> Figure:
    """A figure whose goal is a ratio of at most ``times`` (every ratio here is better lower)."""
    return Figure(name, measured, baseline, unit, f"≤ {times}×", measured <= baseline * times)


def at_most_more(name: str, measured: float, baseline: float, unit: str, more: float) -> Figure:
    """A figure whose goal is ``measured`` at most ``more`` (in ``unit``) above ``baseline``: for
    a fixed cost that a ratio would hide or exaggerate (the same 0.5 s is 1.5× of 1 s and 1.1× of
    5 s). ``run.py`` records its difference and calls it regressed when it grows by more than 10%
    of the recorded difference or of ``more``, whichever is larger: a difference near zero would
    otherwise make every 10 ms of noise a regression."""
    return Figure(name, measured, baseline, unit, f"≤ {more} {unit} more", measured - baseline <= more, more)


def in_turn(round_: int, *steps: Callable[[], object]) -> None:
    """Run ``steps`` in order in even rounds and in reverse in odd ones, so that no command of
    a figure is always the one run first: that one paid for what the previous run left behind
    (its browser's processes still exiting), and the evidence figure read 1.06× for two
    commands doing the same work."""
    for step in steps if round_ % 2 == 0 else reversed(steps):
        step()
