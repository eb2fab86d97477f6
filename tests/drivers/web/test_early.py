"""`trailblaze run` starts Playwright's driver while it starts up (trailblaze.drivers.web.early):
the driver is there when the plan is made, the run uses it, and when the plan has no web trail
or fails, it is gone before the command ends."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid

import pytest

from tests.support.cli import CliProcess, CliRunner, Project, cli_env, processes_with
from tests.support.probes import DRIVER_COUNTER
from trailblaze.cli import early as starting
from trailblaze.core import aio
from trailblaze.drivers.web import early
from trailblaze.drivers.web.driver import PlaywrightDriver

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: a plugin that counts the Playwright drivers (Node.js, `run-driver`) the trailblaze process has
#: started, when the plan is made and when the run starts
PROBE = (
    DRIVER_COUNTER
    + """

@hookimpl
def trailblaze_modify_plan(run):
    Path("drivers-at-plan").write_text(str(drivers()))


@hookimpl
def trailblaze_run_start(run):
    Path("drivers-at-start").write_text(str(drivers()))
"""
)

WEB_TRAIL = """
trail:
  - step: Open the about page
    recording:
      web:
        - web_navigate: {url: /about.html}
        - web_verifyTextVisible: {text: Trailblaze replays trails}
"""


@pytest.fixture
def probed(project: Project) -> Project:
    project.write("probe.py", PROBE)
    return project


def test_a_web_run_has_the_driver_before_its_plan_is_made_and_uses_it(
    cli: CliRunner, probed: Project, browser: str
) -> None:
    probed.trail("about", WEB_TRAIL)
    result = cli("run", "-p", "probe")
    assert result.returncode == 0, result.output
    assert (probed.root / "drivers-at-plan").read_text() == "1"
    assert (probed.root / "drivers-at-start").read_text() == "1"  # the one started early, not a second


def test_listing_or_naming_another_driver_starts_nothing_early(cli: CliRunner, probed: Project) -> None:
    probed.trail("about", WEB_TRAIL)
    assert cli("run", "-p", "probe", "--list").returncode == 0
    assert (probed.root / "drivers-at-plan").read_text() == "0"
    cli("run", "-p", "probe", "--driver", "android")
    assert (probed.root / "drivers-at-plan").read_text() == "0"


def run_marked(project: Project, *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run trailblaze, then list what it started that is still alive."""
    marker = uuid.uuid4().hex
    proc = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", "-p", "probe", *args],
        cwd=project.root,
        env=cli_env(TRAILBLAZE_TEST_MARKER=marker, PYTHONPATH=f"{project.root}:{cli_env()['PYTHONPATH']}"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return proc, processes_with(marker)


def test_a_plan_without_web_trails_stops_the_early_driver_before_the_run(probed: Project) -> None:
    probed.write("trailblaze.yaml", "driver: android\ntimeout: 1\n")
    probed.trail(
        "phone",
        """
        trail:
          - step: Press back
            recording:
              android:
                - pressBack: {}
        """,
    )
    proc, left = run_marked(probed)
    assert (probed.root / "drivers-at-plan").read_text() == "1"
    assert (probed.root / "drivers-at-start").read_text() == "0"
    assert left == []
    assert "Traceback" not in proc.stderr and "never retrieved" not in proc.stderr, proc.stderr


def test_a_plan_that_fails_ends_the_early_driver_with_the_command(probed: Project) -> None:
    probed.trail(
        "typo",
        """
        trail:
          - step: Open
            recording:
              web:
                - web_navigat: {url: /about.html}
        """,
    )
    proc, left = run_marked(probed)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert left == []
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unknown tool 'web_navigat'" in lines[0], proc.stderr


SLOW_CONFIGURE = """
import time
from pathlib import Path

from trailblaze import hookimpl


@hookimpl
def trailblaze_configure(config):
    Path("configuring").write_text("1")
    time.sleep(60)
"""


def start_slowly(cli_process: CliProcess, project: Project) -> tuple[subprocess.Popen[str], str]:
    """``trailblaze run`` of a web trail, stopped in a plugin's configure hook once the driver
    has started early; the process and the marker its descendants carry."""
    project.write("slow.py", SLOW_CONFIGURE)
    project.trail("about", WEB_TRAIL)
    marker = uuid.uuid4().hex
    env = {"TRAILBLAZE_TEST_MARKER": marker, "PYTHONPATH": f"{project.root}:{cli_env()['PYTHONPATH']}"}
    proc = cli_process("run", "-p", "slow", cwd=project.root, env=env, merge_stderr=True, session=True)
    deadline = time.monotonic() + 60
    while not (project.root / "configuring").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any("run-driver" in command for command in processes_with(marker)), "no driver started early"
    return proc, marker


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_starting_up_ends_the_command_and_its_early_driver(
    cli_process: CliProcess, project: Project, signum: int
) -> None:
    """Ctrl-C or SIGTERM while plugins load (the driver is booting): exit 130, nothing left."""
    proc, marker = start_slowly(cli_process, project)
    proc.send_signal(signum)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    assert processes_with(marker) == []
    assert "Traceback" not in out, out


def test_kill_9_while_starting_up_leaves_no_driver(cli_process: CliProcess, project: Project) -> None:
    """``kill -9`` lets trailblaze clean nothing up: the driver started early sees its stdin
    close with its parent and exits by itself, within a bound."""
    proc, marker = start_slowly(cli_process, project)
    proc.kill()  # trailblaze alone, not its process group
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []


@pytest.mark.parametrize(
    ("args", "started"),
    [
        (["run"], True),
        (["run", "trails/a.trail.yaml", "--workers", "2"], True),
        (["run", "--driver", "web"], True),
        (["run", "--driver=playwright-native"], True),
        (["run", "--driver", "android"], False),
        (["run", "--driver=ios"], False),
        (["run", "--list"], False),
        (["run", "-h"], False),
        (["validate"], False),
        (["record", "trails/a.trail.yaml"], False),
        ([], False),
    ],
)
def test_which_commands_start_the_driver_early(args: list[str], started: bool) -> None:
    """The CLI asks plugins (``trailblaze_start_early``) for a run of trails; the web driver's
    plugin starts Playwright's driver unless ``--driver`` names another."""
    from trailblaze.pluginmanager import get_plugin_manager

    try:
        starting.start(get_plugin_manager([], []), args)
        assert aio.has_early_work() is started
    finally:
        starting.finish()
    assert not aio.has_early_work()


def test_the_early_driver_is_kept_under_the_web_drivers_key() -> None:
    """early.py names the key itself (importing the driver's module first would delay the spawn)."""
    assert PlaywrightDriver.key == early.KEY
