"""Python script servers are forks of the prefork helper, and cannot tell (trailblaze.mcpclient.prefork)."""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.cli import CliProcess, CliRunner, Project, processes_with
from trailblaze.mcpclient import prefork
from trailblaze.mcpclient.pipes import PipeWriter

from .conftest import SERVERS

WHOAMI = SERVERS / "whoami.py"
pytestmark = [pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc"), pytest.mark.slow]


def _project(project: Project, out: Path, servers: dict[str, str]) -> None:
    """One whoami server per label (the value: more of its entry, e.g. ``, env: {…}``) and a
    trail that calls each."""
    entries = "".join(f"  - {{script: {WHOAMI}, args: [{out}, {label}]{more}}}\n" for label, more in servers.items())
    project.write("trailblaze.yaml", f"driver: null-test\nmcp_servers:\n{entries}")
    calls = "".join(f"        - {label}_whoami: {{}}\n" for label in servers)
    project.trail("who", f"trail:\n  - step: ask every server\n    recording:\n      test:\n{calls}")


def _lines(out: Path) -> dict[str, dict[str, Any]]:
    return {line["label"]: line for line in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def _run(cli: CliRunner, marker: str, **env: str) -> None:
    # a fresh interpreter: the servers' parent must be `python -m trailblaze`, seen in /proc
    env = {"TRAILBLAZE_TEST_MARKER": marker, **env}
    result = cli("run", "-p", "tests.support.null_driver", env=env, fresh=True)
    assert result.returncode == 0, result.output
    assert "1 passed" in result.stdout


def test_script_servers_are_forked_and_see_what_a_fresh_process_sees(
    cli: CliRunner, project: Project, tmp_path: Path
) -> None:
    out = tmp_path / "whoami.jsonl"
    _project(project, out, {"one": ", env: {WHOAMI_COLOUR: blue}", "two": ""})
    marker = uuid.uuid4().hex
    _run(cli, marker)
    seen = _lines(out)
    assert set(seen) == {"one", "two"}
    for label, line in seen.items():
        assert "_zygote.py" in line["parent"], line  # forked by the helper, not spawned by trailblaze
        assert line["argv"] == [str(WHOAMI), str(out), label]
        assert line["name"] == "__main__"
        assert line["cwd"] == str(WHOAMI.parent) == line["path0"]
        assert line["session_leader"] is True  # its own process group: the shutdown signals reach it alone
        assert line["stdin_is_pipe"] is True
        assert line["env"]["TRAILBLAZE_SESSION_ID"].startswith("sess-")
    assert seen["one"]["env"]["WHOAMI_COLOUR"] == "blue"
    assert "WHOAMI_COLOUR" not in seen["two"]["env"]  # each its own environment, not the helper's
    assert seen["one"]["random"] != seen["two"]["random"]  # nor its random state
    assert seen["one"]["pid"] != seen["two"]["pid"]
    logs = [p.read_text() for p in (project.root / ".trailblaze" / "logs").glob("*/*.log")]
    # stderr still reaches the session's logs (after the SDK's own lines)
    assert sorted(log.strip().splitlines()[-1] for log in logs) == ["one: asked", "two: asked"]
    assert processes_with(marker) == []  # no server and no helper outlives the run


@pytest.mark.parametrize(
    ("env", "entry_env"),
    [({"TRAILBLAZE_MCP_PREFORK": "0"}, ""), ({}, ", env: {PYTHONHASHSEED: '1'}")],
    ids=["switched-off", "python-variables"],
)
def test_servers_are_spawned_fresh_when_forking_could_differ(
    cli: CliRunner, project: Project, tmp_path: Path, env: dict[str, str], entry_env: str
) -> None:
    out = tmp_path / "whoami.jsonl"
    _project(project, out, {"one": entry_env})
    _run(cli, uuid.uuid4().hex, **env)
    line = _lines(out)["one"]
    assert "_zygote.py" not in line["parent"]
    assert "trailblaze" in line["parent"]  # a child of the trailblaze process itself


@pytest.mark.parametrize("prefork", ["1", "0"], ids=["forked", "fresh"])
def test_a_servers_threads_are_joined_before_its_atexit_handlers(
    cli: CliRunner, project: Project, tmp_path: Path, prefork: str
) -> None:
    # as a fresh interpreter ends: non-daemon threads first, then atexit (a fork ran the
    # handlers and exited under a thread still running)
    out = tmp_path / "whoami.jsonl"
    _project(project, out, {"one": ", env: {WHOAMI_AT_EXIT: '1'}"})
    _run(cli, uuid.uuid4().hex, TRAILBLAZE_MCP_PREFORK=prefork)
    assert ("_zygote.py" in _lines(out)["one"]["parent"]) is (prefork == "1")
    events = [json.loads(line)["event"] for line in Path(f"{out}.exit").read_text(encoding="utf-8").splitlines()]
    assert events == ["thread", "atexit"]


def test_the_helper_and_its_servers_end_when_trailblaze_is_killed(
    cli_process: CliProcess, project: Project, tmp_path: Path
) -> None:
    out = tmp_path / "whoami.jsonl"
    _project(project, out, {"one": "", "two": ""})
    project.trail(
        "who",
        "trail:\n  - step: wait\n    recording:\n      test:\n        - one_whoami: {}\n"
        "        - wait: {timeToWaitInSeconds: 30}\n",
    )
    marker = uuid.uuid4().hex
    proc = cli_process(
        "run", "-p", "tests.support.null_driver", cwd=project.root, env={"TRAILBLAZE_TEST_MARKER": marker}
    )
    deadline = time.monotonic() + 60
    while not (out.exists() and len(_lines(out)) == 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_lines(out)) == 2, "the servers never started"
    time.sleep(0.5)  # let them reach the handshake
    assert any("_zygote.py" in c for c in processes_with(marker))
    proc.kill()  # no chance to shut anything down
    proc.wait()
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []  # the helper saw its socket close, the servers their stdin


@pytest.mark.anyio
async def test_a_server_that_ends_while_its_pipes_are_connected_still_reports_its_exit_code(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A server that fails at once can end before ``spawn`` has connected its pipes, and the
    helper report its exit then: the code is kept for it (a loaded machine once lost it, and
    the handshake's error could not say the server exited, nor with which code). Connecting
    the pipes is slowed here so that the exit always comes first."""
    script = tmp_path / "ends.py"
    script.write_text("import sys\nsys.exit(4)\n", encoding="utf-8")
    connect = prefork._writer

    async def slowly(loop: asyncio.AbstractEventLoop, fd: int) -> PipeWriter:
        await asyncio.sleep(1)
        return await connect(loop, fd)

    monkeypatch.setattr(prefork, "_writer", slowly)
    helper = prefork.Helper()
    try:
        process = await helper.spawn([str(script)], dict(os.environ), str(tmp_path))
        async with process:
            with anyio.fail_after(30):
                assert await process.wait() == 4
    finally:
        await helper.close()
