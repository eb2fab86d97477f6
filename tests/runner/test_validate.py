"""``validate`` of big trails: a 100,000-step trail is checked whole, with every position
exact, and a trail with a mistake in every step lists the first problems and counts the rest.

What these take is measured in ``benchmarks/bigtrail.py`` (``python benchmarks/run.py
big-validate``), never asserted here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.project import make_project
from trailblaze.api.session import RunOptions
from trailblaze.core.errors import SHOWN_PROBLEMS, ErrorList
from trailblaze.runner.validate import validate


def _trail(folder: Path, steps: int, tool: str) -> Path:
    step = "  - step: Step {i}\n    recording:\n      test:\n        - {tool}: {{text: Home}}\n"
    path = folder / "trails" / "big.trail.yaml"
    path.parent.mkdir()
    steps_text = "".join(step.format(i=i, tool=tool) for i in range(steps))
    path.write_text(f"config: {{id: big}}\ntrail:\n{steps_text}", encoding="utf-8")
    return path


def test_a_trail_of_100000_steps_validates_with_every_position_exact(tmp_path: Path) -> None:
    path = _trail(tmp_path, 100_000, "null_tap")
    project = make_project(tmp_path, "driver: null-test\n")
    (trail,) = validate(project, RunOptions(paths=[path]))
    assert len(trail.steps) == 100_000
    last = trail.steps[-1]
    assert (last.text, last.key_path) == ("Step 99999", ("trail", 99_999))
    assert (last.location.line, last.location.column) == (399_999, 5)
    (call,) = last.recordings["test"] if last.recordings else []
    assert (call.name, call.args) == ("null_tap", {"text": "Home"})
    assert call.location is not None and (call.location.line, call.location.column) == (400_002, 11)
    where = call.arg_location(["text"])
    assert where is not None and (where.line, where.column) == (400_002, 28)


@pytest.mark.parametrize("steps", [SHOWN_PROBLEMS + 1, 10_000])
def test_a_misspelt_tool_in_every_step_lists_the_first_problems_and_counts_the_rest(tmp_path: Path, steps: int) -> None:
    path = _trail(tmp_path, steps, "null_tpa")
    project = make_project(tmp_path, "driver: null-test\n")
    with pytest.raises(ErrorList) as info:
        validate(project, RunOptions(paths=[path]))
    assert len(info.value.errors) == steps
    lines = str(info.value).splitlines()
    assert len(lines) == SHOWN_PROBLEMS + 1
    for i, line in enumerate(lines[:-1]):  # in file order, each at its own call
        assert line.startswith(f"{path}:{4 * i + 6}:11: unknown tool 'null_tpa'"), line
    more = steps - SHOWN_PROBLEMS
    assert lines[-1] == f"… and {more} more problem{'s' if more != 1 else ''}"
