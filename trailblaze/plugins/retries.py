"""Built-in plugin: ``--retries N`` and ``--fail-on-flaky``.

A trail that fails (or errors) runs again on a fresh session, up to N more times; one that
passes on a retry is ``flaky``, and the runs before are its ``attempts`` in the results. A flaky
trail does not fail the run unless ``--fail-on-flaky`` is given. ``retries:`` in trailblaze.yaml
is the default for ``--retries``. The retry loop itself is the runner's (:mod:`trailblaze.runner.run`),
which reads the options by name (:mod:`trailblaze.runner.options`); ``-p no:retries`` leaves them
out (no retries).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from trailblaze import hookimpl
from trailblaze.core.limits import MAX_RETRIES

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    import click
    from pydantic import Field

    group = parser.getgroup("general", "Running trails")
    group.addoption(
        "--retries",
        type=click.IntRange(min=0, max=MAX_RETRIES),
        metavar="N",
        help="Run a failed trail again, on a fresh session, up to N times; passed on a retry is 'flaky'. "
        "Default: retries: in trailblaze.yaml, else 0.",
        commands=("run",),
    )
    group.addoption(
        "--fail-on-flaky",
        is_flag=True,
        help="Exit 1 when a trail passed only on a retry.",
        commands=("run",),
    )
    parser.addini(
        "retries",
        help="How many times a failed trail runs again (--retries wins).",
        type=Annotated[int, Field(ge=0, le=MAX_RETRIES)],
        default=0,
    )
