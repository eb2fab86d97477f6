"""Built-in plugin (essential: it cannot be blocked): the runner's own options.

What the runner itself needs — which driver, devices and target, ``--arg``, ``--timeout``,
``-x``, the agent for ``record`` and ``--self-heal`` — is declared through
``trailblaze_addoption`` like any plugin's options (pytest's ``main.py`` does the same), so
``trailblaze run --help`` lists one set of options whoever declared them, and the runner reads
them with ``config.getoption`` (:func:`trailblaze.runner.options.run_options`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl
from trailblaze.core.limits import MAX_WAIT_SECONDS, MAX_WORKERS

if TYPE_CHECKING:
    import click

    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser

LISTING = ("tools", "devices")


def seconds_type() -> click.ParamType[float]:
    """A number of seconds > 0 and at most an hour (:data:`~trailblaze.core.limits.MAX_WAIT_SECONDS`):
    not nan, not inf (``--timeout nan`` compared false with every bound and let every wait end at
    once; ``1e308`` became ``Infinity`` in Playwright's JSON)."""
    import click

    class Seconds(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.4 on
        name = "seconds"

        def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
            try:
                seconds = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
            if not math.isfinite(seconds) or not 0 < seconds <= MAX_WAIT_SECONDS:
                self.fail(f"{value!r}: expected a number of seconds > 0 and at most {MAX_WAIT_SECONDS}", param, ctx)
            return seconds

    return Seconds()


def name_value_type() -> click.ParamType[tuple[str, str]]:
    """``NAME=VALUE`` (``--arg``), as a pair."""
    import click

    class NameValue(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.4 on
        name = "name=value"

        def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, str]:
            if isinstance(value, tuple):
                return value
            name, sep, text = str(value).partition("=")
            if not sep or not name.strip():
                self.fail(f"{value!r}: expected NAME=VALUE", param, ctx)
            return name.strip(), text

    return NameValue()


@hookimpl(tryfirst=True)  # the runner's own options come first in --help
def trailblaze_addoption(parser: Parser) -> None:
    import click

    from trailblaze.cli.completion import driver_type

    group = parser.getgroup("general", "Running trails")
    group.addoption(
        "--driver",
        metavar="KEY",
        type=driver_type(),
        help="Driver to use (playwright-native/web, android, ios, or upstream's names). Default: from config "
        "or the trail; validate: check only what this driver would replay.",
        commands=("run", "record", "validate", "mcp", *LISTING),
    )
    group.addoption(
        "--target",
        metavar="NAME",
        help="App target (trailblaze.yaml targets:) for trails that name none.",
        commands=("run", "record", "mcp", "tools"),
    )
    group.addoption(
        "--device",
        dest="devices",
        multiple=True,
        metavar="ID",
        help="Device to run on; repeat to run every trail on each device concurrently.",
        commands=("run",),
    )
    group.addoption(
        "--device",
        metavar="ID",
        help="Device to use (the driver's default when omitted).",
        commands=("record", "mcp"),
    )
    group.addoption("--all-devices", is_flag=True, help="Run on every device the driver can reach.", commands=("run",))
    group.addoption(
        "--workers",
        type=click.IntRange(min=1, max=MAX_WORKERS),
        default=1,
        metavar="N",
        help="Sessions at once per device, on drivers that host several (web: browser contexts). Default %(default)s.",
        commands=("run",),
    )
    group.addoption(
        "--shard-split",
        type=click.IntRange(min=1, max=MAX_WORKERS),
        metavar="N",
        help="Use N devices and run each trail once, on whichever device is free.",
        commands=("run",),
    )
    group.addoption(
        "--shard-all",
        type=click.IntRange(min=1, max=MAX_WORKERS),
        metavar="N",
        help="Use N devices and run every trail on each.",
        commands=("run",),
    )
    group.addoption(
        "--arg",
        multiple=True,
        type=name_value_type(),
        metavar="NAME=VALUE",
        help="Value for a trail argument (repeatable).",
        commands=("run", "record", "validate"),
    )
    group.addoption(
        "--timeout",
        type=seconds_type(),
        metavar="SECONDS",
        help="How long actions and checks wait for the UI (default 10; a trail's config.timeout wins).",
        commands=("run", "record", "mcp"),
    )
    group.addoption(
        "-x",
        "--fail-fast",
        "--exitfirst",
        is_flag=True,
        help="Stop after the first trail that fails or errors; the trails not run are reported as skipped.",
        commands=("run",),
    )
    group.addoption(
        "--artifacts-dir",
        type=click.Path(file_okay=False, path_type=Path),
        metavar="DIR",
        help="Where snapshots go (default: a folder per run under .trailblaze/artifacts next to trailblaze.yaml).",
        commands=("run",),
    )
    _agent_options(parser)


def _agent_options(parser: Parser) -> None:
    group = parser.getgroup("agents", "Agents (record, run --self-heal, mcp)")
    group.addoption(
        "--agent",
        metavar="NAME",
        help="Who works out steps without a working recording: interactive, openai, browser, or a plugin's "
        "(default: agent: in config, else openai when an LLM is configured, else interactive; "
        "trailblaze mcp: openai).",
        commands=("run", "record", "mcp"),
    )
    group.addoption(
        "--self-heal",
        is_flag=True,
        help="When a recorded step fails, let the agent work it out from its text (healed).",
        commands=("run",),
    )
    group.addoption(
        "--save-recording",
        is_flag=True,
        help="With --self-heal: write healed steps' new recordings.",
        commands=("run",),
    )
    group.addoption(
        "--rerecord",
        is_flag=True,
        help="Record again over existing recordings (replayed; the agent if broken).",
        commands=("record",),
    )
    group.addoption("--step", metavar="N", help="Record only step N (a number, or 'trailhead').", commands=("record",))
    group.addoption(
        "--dry-run",
        is_flag=True,
        help="Print the change to the trail file as a diff; write nothing.",
        commands=("record",),
    )
    group.addoption(
        "--resume",
        is_flag=True,
        help="Continue an interrupted recording from .trailblaze/record/.",
        commands=("record",),
    )


@hookimpl
def trailblaze_doctor(run: Run) -> list[DoctorCheck]:
    """Which Python and which trailblaze (doctor checks trailblaze.yaml and the trails itself)."""
    from trailblaze.runner.doctor import install_checks

    return install_checks()
