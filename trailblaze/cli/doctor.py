"""``trailblaze doctor``: what this install can do for the project, and what is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trailblaze.cli.commands import examples, project_command
from trailblaze.cli.state import _state


@project_command(
    epilog=examples("trailblaze doctor", "trailblaze doctor --json", "trailblaze doctor && trailblaze run")
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON: whether the trails can run, and every check.")
def doctor(as_json: bool, plugin_args: tuple[str, ...], config: Path | None, **options: Any) -> int:
    """Check the install and say what is missing.

    What this install can do for the project here, and what is missing, each with its fix:
    Python and trailblaze, trailblaze.yaml and the trails, Playwright and the browser (started
    headless), each phone driver's package and devices, Node.js and the scripting SDK, and
    what plugins check.

    What the project's trails need and is missing fails; what they do not need is a warning.
    Exit 0 when the trails can run here, 2 when something they need is missing or broken, 3
    when trailblaze.yaml is invalid. Outside a project, only the install is checked.
    """
    from trailblaze.cli import display
    from trailblaze.runner.doctor import examine

    state = _state()
    report = examine(state.config_file(), state.plugins(), state.parser(), options, state.plugin_args)
    display.print_doctor(report, as_json=as_json)
    return int(report.exit_code)
