"""Errors that carry a place, and lists of them: a message lists the first problems and counts the rest."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trailblaze.core.errors import (
    SHOWN_PROBLEMS,
    ErrorList,
    ExitCode,
    InfrastructureError,
    Location,
    TrailblazeError,
    UsageError,
)


@given(st.integers(min_value=1, max_value=500))
def test_a_message_lists_the_first_problems_in_file_order_and_counts_the_rest(count: int) -> None:
    errors = ErrorList(UsageError(f"problem {i}", Location("t.trail.yaml", i + 1)) for i in reversed(range(count)))
    lines = errors.message.splitlines()
    shown = min(count, SHOWN_PROBLEMS)
    assert lines[:shown] == [f"t.trail.yaml:{i + 1}: problem {i}" for i in range(shown)]
    assert len(errors.errors) == count  # every problem is still there for who asks
    if count > SHOWN_PROBLEMS:  # one wrong tool name in a 10 MB trail was 233,012 lines
        assert lines[shown:] == [f"… and {count - shown} more problem{'s' if count - shown > 1 else ''}"]
    else:
        assert len(lines) == count


def test_the_worst_problem_decides_the_exit_code_also_among_those_not_shown() -> None:
    problems: list[TrailblazeError] = [InfrastructureError("down", Location("a", i)) for i in range(SHOWN_PROBLEMS)]
    problems.append(UsageError("misspelt", Location("z", 1)))  # sorted last: not in the message
    assert ErrorList(problems).exit_code == ExitCode.USAGE
