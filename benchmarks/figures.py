"""The figure every benchmark reports: what was measured beside its baseline from the same run,
and the goal for their ratio. Each benchmark module builds its figures here; ``run.py`` prints
them beside the last recorded ones, and a module run alone prints them with :meth:`Figure.line`."""

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

    @property
    def ratio(self) -> float:
        return self.measured / self.baseline if self.baseline else float("inf")

    def line(self, digits: int = 3) -> str:
        """``name: 1.234 vs 1.000 s = 1.23× (≤ 1.3×)``."""
        return (
            f"{self.name}: {self.measured:.{digits}f} vs {self.baseline:.{digits}f} {self.unit} = "
            f"{self.ratio:.2f}× ({self.goal})"
        )


def at_most(name: str, measured: float, baseline: float, unit: str, times: float) -> Figure:
    """A figure whose goal is a ratio of at most ``times`` (every ratio here is better lower)."""
    return Figure(name, measured, baseline, unit, f"≤ {times}×", measured <= baseline * times)


def in_turn(round_: int, *steps: Callable[[], object]) -> None:
    """Run ``steps`` in order in even rounds and in reverse in odd ones, so that no command of
    a figure is always the one run first: that one paid for what the previous run left behind
    (its browser's processes still exiting), and the evidence figure read 1.06× for two
    commands doing the same work."""
    for step in steps if round_ % 2 == 0 else reversed(steps):
        step()
