"""``multi_device: http``: a run with several sessions at once starts a toolset server once, in
HTTP mode, and routes every session's calls to its own device by the invocation id. Real
Chromium, the real ``mcp`` SDK on both sides (tests/mcp_toolsets/servers/probe.py)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.support.cli import CliProcess, CliRunner, Project

from .conftest import Recorded, alive

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

#: a page for each trail, each with its own heading: a call that drove another session's page reads the wrong one
PAGES = {
    "a": ("/forms.html", "Forms"),
    "b": ("/lists.html", "Lists"),
    "c": ("/about.html", "About"),
    "d": ("/products.html", "Products"),
}


def _setup(project: Project, probe: Path, extra: str = "", multi_device: str = "multi_device: http") -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        base_url: sample-app
        timeout: 5
        mcp_servers:
          - script: {probe}
            {multi_device}
            {extra}
        """,
    )


def _trails(project: Project, names: str = "abcd") -> None:
    for name in names:
        page, _ = PAGES[name]
        project.trail(
            name,
            f"""
            trail:
              - step: navigate and read back, overlapping with the other sessions
                recording:
                  web:
                    - navigate_and_read: {{path: {page}, pause_s: 1.0}}
            """,
        )


def test_four_workers_share_one_server_and_every_call_reaches_its_own_device(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    _trails(project)
    result = cli("run", "--workers", "4", "--json", "results.json", env=recorded.env)
    assert result.returncode == 0, result.output
    starts = recorded.entries("start")
    assert len(starts) == 1, starts  # one server process for the four sessions
    assert starts[0]["argv"][-4:-1] == ["--transport", "http", "--port"]
    reads = recorded.entries("navigate_and_read")
    assert len(reads) == 4
    assert {r["pid"] for r in reads} == {starts[0]["pid"]}
    sessions = {r["meta"]["trailblaze"]["sessionId"] for r in reads}
    tokens = {r["meta"]["trailblaze"]["token"] for r in reads}
    assert len(sessions) == len(tokens) == 4  # four sessions, each its own token
    # each call drove its own session's page: the heading it read back is its own page's
    assert sorted((r["path"], r["heading"]) for r in reads) == sorted(PAGES.values())
    for read in reads:
        assert "TRAILBLAZE_SESSION_ID" not in read["env"]  # nothing in its environment names a session
        assert read["env"]["TRAILBLAZE_MCP_TRANSPORT"] == "http"
    overlapping = sorted(reads, key=lambda r: r["started"])
    assert overlapping[-1]["started"] < overlapping[0]["ended"], "the calls did not overlap"
    assert not alive(starts[0]["pid"])  # stopped with the run
    logs = list((project.root / ".trailblaze" / "logs").glob("run-*/*.http.log"))
    assert len(logs) == 1


def test_one_session_keeps_stdio_and_an_entry_without_the_key_one_process_per_session(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    _trails(project, "ab")
    result = cli("run", env=recorded.env)
    assert result.returncode == 0, result.output
    (start,) = recorded.entries("start")
    assert "--transport" not in start["argv"]  # one session: stdio, as without the key

    recorded.path.unlink()
    _setup(project, probe, multi_device="")
    result = cli("run", "--workers", "2", env=recorded.env)
    assert result.returncode == 0, result.output
    starts = recorded.entries("start")
    assert len(starts) == 2 and not any("--transport" in s["argv"] for s in starts)


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("crash-at-start", "exited with code 4 before it listened on 127.0.0.1:"),
        ("hang-at-start", "did not listen on 127.0.0.1:"),
    ],
)
def test_a_server_that_never_listens_fails_the_run_with_exit_2_naming_it_and_its_log(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded, mode: str, says: str
) -> None:
    _setup(project, probe, extra=f"args: [--mode, {mode}]\n            startup_timeout_s: 2")
    _trails(project, "ab")
    result = cli("run", "--workers", "2", "--json", "results.json", env=recorded.env)
    assert result.returncode == 2, result.output
    errors = {t["error"] for t in result.json()["trails"]}
    assert len(errors) == 1  # the same answer for both sessions: it was started once
    (error,) = errors
    assert "MCP server probe (project, " in error and "trailblaze.yaml:4:" in error
    assert "multi_device: http" in error and says in error
    assert "--transport http --port" in error
    assert ".http.log" in error  # where its whole output is
    if mode == "crash-at-start":
        assert "probe: cannot start, the configuration is missing" in error
    starts = recorded.entries("start")
    assert len(starts) == 1
    assert not alive(starts[0]["pid"])
    assert "Traceback" not in result.output


def test_multi_device_is_for_spawned_servers(cli: CliRunner, project: Project) -> None:
    project.write(
        "trailblaze.yaml",
        """
        base_url: sample-app
        mcp_servers:
          - url: http://127.0.0.1:9/mcp
            multi_device: http
        """,
    )
    result = cli("validate")
    assert result.returncode == 3, result.output
    assert "multi_device: is for spawned servers" in result.output
    assert "trailblaze.yaml:" in result.output


def _calls(project: Project, call: str, names: str = "xy") -> None:
    for name in names:
        project.trail(name, f"trail:\n  - step: call\n    recording:\n      web:\n        - {call}\n")


def test_the_shared_server_is_stopped_on_ctrl_c(
    cli_process: CliProcess, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    _calls(project, "hang: {}")
    proc = cli_process("run", "--workers", "2", cwd=project.root, env=recorded.env, merge_stderr=True)
    deadline = time.monotonic() + 60
    while len(recorded.entries("hang")) < 2:  # both sessions are in a call to the one server
        assert time.monotonic() < deadline, "the calls did not start"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, output
    (start,) = recorded.entries("start")
    deadline = time.monotonic() + 1
    while alive(start["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(start["pid"])


def test_a_shared_server_that_dies_in_a_call_fails_the_trail_with_its_output_and_is_started_again(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded, tmp_path: Path
) -> None:
    _setup(project, probe)
    _calls(project, f"crash: {{once: {tmp_path / 'crashed'}}}", "x")
    result = cli("run", "--workers", "2", "--retries", "1", "--json", "results.json", env=recorded.env)
    assert result.returncode == 0, result.output
    (trail,) = result.json()["trails"]
    assert trail["status"] == "flaky"  # the retry's fresh session started the server again, and it survived
    (attempt,) = trail["attempts"]
    assert "MCP server probe (project, " in attempt["error"]
    assert "(shared over HTTP) exited with code 3 during a call to crash" in attempt["error"]
    assert "probe: crashing on purpose in the middle of a call" in attempt["error"]
    starts = recorded.entries("start")
    assert len(starts) == 2 and all("--transport" in s["argv"] for s in starts)
    assert not any(alive(s["pid"]) for s in starts)
