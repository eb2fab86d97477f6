"""Nothing a run starts outlives it — with servers that hang in a call, ignore SIGTERM and start
children that leave their process group — on Ctrl-C, SIGTERM, a second Ctrl-C and ``kill -9``.

The servers are ``tests/mcp_toolsets/servers/hung.py``; the device is the in-process null
driver (no browser: what is tested is trailblaze's processes). Every process the run starts
carries ``TRAILBLAZE_TEST_MARKER`` in its environment, so what is left is found by it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliProcess, CliRunner, Project, processes_with

HUNG = Path(__file__).parents[1] / "mcp_toolsets" / "servers" / "hung.py"
NULL = ("-p", "tests.support.null_driver")

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and /proc: Linux"),
    pytest.mark.slow,
]


def _project(project: Project, call: str) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        driver: null-test
        mcp_servers:
          - script: {HUNG}
          - {{script: {HUNG}, args: [--escape, --prefix, two_]}}
        """,
    )
    project.trail(
        "hangs",
        f"""
        trail:
          - step: Before
            recording:
              test:
                - ok: {{}}
          - step: Call a server that never answers
            recording:
              test:
                - {call}
          - step: After
            recording:
              test:
                - ok: {{}}
        """,
    )


class Notes:
    """What the hung servers wrote to $PROBE_OUT."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def kinds(self) -> list[str]:
        if not self.path.exists():
            return []
        return [json.loads(line)["kind"] for line in self.path.read_text(encoding="utf-8").splitlines() if line]

    def wait_for(self, kind: str, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.kinds().count(kind) < count:
            assert time.monotonic() < deadline, f"no {kind!r} within {timeout}s: {self.kinds()}"
            time.sleep(0.02)


@pytest.fixture
def marker(request: pytest.FixtureRequest) -> str:
    return f"processes-{request.node.name}-{os.getpid()}"


@pytest.fixture
def notes(tmp_path: Path) -> Notes:
    return Notes(tmp_path / "probe-out.jsonl")


def _env(marker: str, notes: Notes, **extra: str) -> dict[str, str]:
    return {"TRAILBLAZE_TEST_MARKER": marker, "PROBE_OUT": str(notes.path), **extra}


def _left(marker: str, grace: float = 3.0) -> list[str]:
    """What still runs with the marker, after ``grace`` seconds for the kernel and the watchdog."""
    deadline = time.monotonic() + grace
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return processes_with(marker)


@pytest.fixture
def cleanup(marker: str) -> Any:
    """Whatever a failing test leaves behind is killed (by pid, found by the marker)."""
    yield
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"TRAILBLAZE_TEST_MARKER={marker}".encode() in (entry / "environ").read_bytes():
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_first_interrupt_stops_within_seconds_and_keeps_the_finished_steps(
    cli_process: CliProcess, project: Project, marker: str, notes: Notes, cleanup: Any, sig: signal.Signals
) -> None:
    _project(project, "block: {}")
    proc = cli_process("run", *NULL, "--json", "r.json", cwd=project.root, env=_env(marker, notes), merge_stderr=True)
    notes.wait_for("block")
    start = time.monotonic()
    proc.send_signal(sig)
    output, _ = proc.communicate(timeout=60)
    took = time.monotonic() - start
    assert proc.returncode == 130, output
    # a bound against a hang, not a measure of speed (the suite has no timed assertions): both
    # servers ignore stdin closing and SIGTERM, and waiting out their graces took 7 s
    assert took < 30, f"took {took:.1f}s to stop"
    assert "Traceback" not in output
    trail = json.loads((project.root / "r.json").read_text(encoding="utf-8"))["trails"][0]
    assert trail["status"] == "error"
    assert trail["error"] == "interrupted during step 2 (Call a server that never answers)"
    assert [(s["status"], s["error"]) for s in trail["steps"]] == [
        ("passed", None),
        ("error", "interrupted"),
        ("skipped", None),
    ]
    assert _left(marker) == []  # the servers, and the child that left its process group


def test_a_second_interrupt_exits_at_once(
    cli_process: CliProcess, project: Project, marker: str, notes: Notes, cleanup: Any
) -> None:
    _project(project, "block: {}")
    proc = cli_process("run", *NULL, cwd=project.root, env=_env(marker, notes), merge_stderr=True)
    notes.wait_for("block")
    proc.send_signal(signal.SIGINT)
    time.sleep(0.2)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, output
    assert time.monotonic() - start < 30  # a bound against a hang; the message says it did not wait
    assert "SIGINT again: stopping at once (reports are not written)" in output
    assert _left(marker) == []


def test_a_child_that_left_its_process_group_does_not_survive_a_passing_run(
    cli: CliRunner, project: Project, marker: str, notes: Notes, cleanup: Any
) -> None:
    _project(project, "two_ok: {}")
    result = cli("run", *NULL, env=_env(marker, notes))
    assert result.returncode == 0, result.output
    assert notes.kinds().count("child") == 1  # setsid, SIGTERM ignored: only a kill by pid ends it
    assert _left(marker, grace=1) == []


@pytest.mark.parametrize(
    ("state", "prefork"),
    [("starting", "1"), ("in-a-call", "1"), ("in-a-call", "0"), ("shutting-down", "1")],
    ids=["servers-starting", "server-in-a-call", "server-in-a-call-no-prefork", "shutting-down"],
)
def test_kill_9_of_trailblaze_leaves_nothing(
    project: Project, marker: str, notes: Notes, cleanup: Any, state: str, prefork: str
) -> None:
    from tests.support.cli import cli_env

    _project(project, "block: {}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "run", *NULL],
        cwd=project.root,
        env=cli_env(**_env(marker, notes, TRAILBLAZE_MCP_PREFORK=prefork)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if state == "starting":
            notes.wait_for("start", 2)
        else:
            notes.wait_for("block")
        if state == "shutting-down":
            proc.send_signal(signal.SIGINT)
            time.sleep(0.3)
    finally:
        proc.kill()
        proc.wait()
    assert _left(marker) == []  # forked servers, the prefork helper, the escaped child: all gone
