"""Nothing a run spawned outlives it: not on success, failure, Ctrl-C (SIGINT) or SIGTERM."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.support.cli import CliProcess, CliRunner, Project

from .conftest import Recorded, alive

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]


def _project(project: Project, probe: Path, *entries: str) -> None:
    servers = "\n".join(f"  - {e}" for e in entries) or f"  - script: {probe}"
    project.write("trailblaze.yaml", f"base_url: sample-app\nmcp_servers:\n{servers}\n")


def _trail(project: Project, call: str) -> None:
    project.trail(
        "lifecycle",
        f"""
        trail:
          - step: call
            recording:
              web:
                - {call}
        """,
    )


def _assert_gone(recorded: Recorded) -> None:
    pids = [s["pid"] for s in recorded.entries("start")]
    assert pids, "no server started"
    deadline = time.monotonic() + 1  # only long enough for init to reap what trailblaze killed
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in pids if alive(p)] == []


@pytest.mark.parametrize(("call", "code"), [("report: {}", 0), ("fail: {message: no}", 1), ("crash: {}", 2)])
def test_servers_are_gone_after_the_run(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded, call: str, code: int
) -> None:
    _project(project, probe, f"{{script: {probe}}}", f"{{script: {probe}, args: [--prefix, two_]}}")
    _trail(project, call)
    result = cli("run", env=recorded.env)
    assert result.returncode == code, result.output
    assert len(recorded.entries("start")) == 2
    _assert_gone(recorded)


def _wait_for(recorded: Recorded, kind: str, count: int = 1, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(recorded.entries(kind)) < count:
        assert time.monotonic() < deadline, f"no {kind!r} record within {timeout}s"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_servers_are_gone_after_an_interrupt_during_a_call(
    cli_process: CliProcess, project: Project, probe: Path, recorded: Recorded, sig: signal.Signals
) -> None:
    _project(project, probe, f"{{script: {probe}}}", f"{{script: {probe}, args: [--prefix, two_]}}")
    _trail(project, "hang: {}")
    proc = cli_process("run", cwd=project.root, env=recorded.env, merge_stderr=True)
    _wait_for(recorded, "hang")
    proc.send_signal(sig)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, output
    assert "interrupted" in output
    _assert_gone(recorded)


def test_servers_are_gone_after_an_interrupt_while_they_start(
    cli_process: CliProcess, project: Project, probe: Path, recorded: Recorded
) -> None:
    _project(
        project,
        probe,
        f"{{script: {probe}, args: [--mode, hang-at-start]}}",
        f"{{script: {probe}, args: [--prefix, two_]}}",
    )
    _trail(project, "report: {}")
    proc = cli_process("run", cwd=project.root, env=recorded.env, merge_stderr=True)
    _wait_for(recorded, "start", 2)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, output
    _assert_gone(recorded)
