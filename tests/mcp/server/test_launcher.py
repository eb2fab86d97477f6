"""The launcher the MCP server tests spawn (tests/support/launcher.py) stands in for a fresh
``python -m trailblaze``: same streams, exit codes and signals, and nothing left behind."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.mcp.server.support import http_server
from tests.support.cli import Project, cli_env
from tests.support.cli_zygote import LAUNCHER, SERVER_PRELOAD, SWITCH, Relay


@pytest.fixture(scope="module")
def relay() -> Iterator[Relay]:
    """A relay of this module's own: its helper's children are this module's servers only."""
    relay = Relay(cli_env())
    yield relay
    relay.close()


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


def _children(pid: int) -> set[int]:
    """Live child processes of ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def _until(condition: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds}s"
        time.sleep(0.05)


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["mcp", "--driver", "fax"],  # a usage error, exit 2
        ["mcp", "--http", "--token", "  "],
        ["run", "--no-such-option"],  # click's usage error, on stderr
    ],
    ids=["version", "unknown-driver", "blank-token", "bad-option"],
)
def test_a_launched_command_answers_as_a_fresh_one(relay: Relay, project: Project, args: list[str]) -> None:
    before = relay.forked
    launched = _run(relay.command(args), project.root, cli_env())
    assert relay.forked == before + 1, "the helper should have forked it"
    fresh = _run([sys.executable, "-m", "trailblaze", *args], project.root, cli_env())
    assert (launched.returncode, launched.stdout, launched.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.stdout or fresh.stderr


def test_what_changes_how_python_starts_gets_a_fresh_interpreter(relay: Relay, tmp_path: Path) -> None:
    before = relay.forked
    for env in (cli_env(PYTHONWARNINGS="error"), cli_env(**{SWITCH: "1"})):
        result = _run(relay.command(["--version"]), tmp_path, env)
        assert result.returncode == 0 and result.stdout.startswith("trailblaze"), result
    assert relay.forked == before
    # and without a relay to reach, too
    gone = _run([sys.executable, str(LAUNCHER), str(tmp_path / "no-relay"), "--version"], tmp_path, cli_env())
    assert gone.returncode == 0 and gone.stdout.startswith("trailblaze"), gone


def test_signals_reach_the_server_and_its_exit_status_comes_back(relay: Relay, project: Project) -> None:
    with http_server(project.root, via=relay) as server:
        assert len(_children(relay.helper_pid)) == 1
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(60) == 130  # as `trailblaze mcp --http` ends on SIGTERM
        _until(lambda: not _children(relay.helper_pid))


def test_a_launcher_killed_outright_takes_its_server_with_it(relay: Relay, project: Project) -> None:
    proc = subprocess.Popen(
        relay.command(["mcp"]), cwd=project.root, env=cli_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        _until(lambda: len(_children(relay.helper_pid)) == 1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
        # the server's stdin is still open (this test holds it): only the relay can end it
        _until(lambda: not _children(relay.helper_pid))
    finally:
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            pipe.close()  # type: ignore[union-attr]


@pytest.mark.parametrize("module", SERVER_PRELOAD)
def test_every_preloaded_module_exists(module: str) -> None:
    """The helper skips a module that fails to import; a renamed one would go unnoticed."""
    assert importlib.util.find_spec(module) is not None
