"""The opening of a stdio session, answered before the SDK is loaded, is what the SDK would say;
the session then goes on with the SDK as if it had answered from the start.

The SDK answers on its own when stdout is a file (the prelude needs a pipe): each test reads
both paths' answers to the same messages from a real ``trailblaze mcp`` process, started
through the tests' launcher (tests/support/launcher.py): the answers are what is compared,
not how long the process took to give them.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.mcp.server.support import server_command, wire_data
from tests.support.cli import Project, cli_env
from trailblaze.mcpserver import prelude

pytestmark = pytest.mark.slow


def _initialize(version: str, id: Any = 1) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    return {"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def through_pipes(root: Path, messages: list[Any]) -> list[dict[str, Any]]:
    """The answers of ``trailblaze mcp`` with stdin and stdout pipes (the prelude's path), all
    messages written at once, stdin closed once every request is answered."""
    wanted = sum(1 for m in messages if isinstance(m, dict) and "id" in m and "method" in m)
    proc = subprocess.Popen(
        server_command(["mcp"]),
        cwd=root,
        env=cli_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join((m if isinstance(m, str) else json.dumps(m)) + "\n" for m in messages).encode())
    proc.stdin.flush()
    answers = []
    while len([a for a in answers if a.get("id") is not None]) < wanted:
        line = proc.stdout.readline()
        assert line, proc.stderr.read().decode() if proc.stderr else "stdout closed"
        answers.append(json.loads(line))
    proc.stdin.close()
    assert proc.wait(60) == 0
    proc.stdout.close()
    if proc.stderr is not None:
        proc.stderr.close()
    return answers


def through_files(root: Path, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers of ``trailblaze mcp`` writing to a file (the prelude needs a pipe): the SDK
    alone. stdin stays open until every request is answered (at its end the SDK stops)."""
    wanted = sum(1 for m in messages if "id" in m and "method" in m)
    out = root / "out.jsonl"
    with out.open("wb") as stdout:
        proc = subprocess.Popen(server_command(["mcp"]), cwd=root, env=cli_env(), stdin=subprocess.PIPE, stdout=stdout)
        assert proc.stdin is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while len(_answered(out)) < wanted and proc.poll() is None:
            assert time.monotonic() < deadline, "the SDK did not answer"
            time.sleep(0.05)
        proc.stdin.close()
        assert proc.wait(60) == 0
    return _answered(out)


def _answered(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return [json.loads(line) for line in lines if line.endswith("\n") and line.strip()]


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2024-11-05", "1999-01-01"])
def test_the_opening_is_answered_as_the_sdk_answers_it(project: Project, version: str) -> None:
    opening = [_initialize(version), INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    ours = through_pipes(project.root, opening)
    sdk = through_files(project.root, opening)
    assert [a["id"] for a in ours] == [1, 2]
    assert ours == sdk
    assert ours[0]["result"]["protocolVersion"] == (version if version != "1999-01-01" else "2025-11-25")


def test_the_prelude_knows_the_sdks_protocol_versions() -> None:
    """Held equal here, so an SDK that adds a version cannot make the two paths differ unnoticed
    (a new capability, such as MCP resources, makes the opening's answers differ above)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    assert prelude.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


def test_a_session_goes_on_with_the_sdk_after_the_prelude(project: Project) -> None:
    """Everything at once, as a client that pipelines: the opening (answered by the prelude),
    then calls the SDK answers, in order; the replayed initialize's answer never shows."""
    messages = [
        _initialize("2025-11-25", id="open"),
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "config", "arguments": {"action": "GET"}},
        },
        {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
    ]
    answers = through_pipes(project.root, messages)
    assert [a.get("id") for a in answers] == ["open", 2, 3, 4, 5]
    assert all(prelude.REPLAYED_ID not in json.dumps(a) for a in answers)
    assert answers[2]["result"] == {}
    config = wire_data(answers[3]["result"])["values"]
    assert config["toolProfile"] == "DEFAULT" and config["mode"] == "MCP_CLIENT_AS_AGENT"
    assert answers[4]["result"] == answers[1]["result"]  # the SDK lists what the prelude listed


@pytest.mark.parametrize(
    "first",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ],
)
def test_what_the_prelude_does_not_know_is_the_sdks_to_answer(project: Project, first: dict[str, Any]) -> None:
    """A session that does not open with a well-formed initialize gets the SDK's own answer."""
    ours = through_pipes(project.root, [first])
    sdk = through_files(project.root, [first])
    assert ours == sdk


def test_the_sdk_answers_after_a_line_that_is_not_json(project: Project) -> None:
    opening = [_initialize("2025-11-25"), INITIALIZED, "{not json", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    answers = through_pipes(project.root, opening)
    assert [a.get("id") for a in answers if "result" in a] == [1, 2]
    assert [t["name"] for t in answers[-1]["result"]["tools"]][:2] == ["device", "step"]


class _Wire:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=10,
)
messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"])},
    optional={
        "id": json_values,
        "method": st.sampled_from(["initialize", "notifications/initialized", "tools/list", "ping"]) | st.text(),
        "params": json_values,
    },
)


opening = st.builds(_initialize, st.text(max_size=12), st.integers() | st.text(max_size=8)).map(json.dumps)


@settings(max_examples=300, deadline=None)
@given(st.lists(opening | messages.map(json.dumps) | st.text(max_size=40) | st.just("[" * 100_000), max_size=4))
def test_any_line_is_answered_as_the_sdk_would_or_left_to_it(lines: list[str]) -> None:
    """Whatever a client sends, the prelude answers only a well-formed initialize, once, with its
    id, and never raises; anything else is the SDK's to answer (the prelude stops there)."""
    wire = _Wire()
    answering = prelude.Prelude(None, wire, lambda: pytest.fail("tools/list needs a session"))  # type: ignore[arg-type]
    answered: list[str] = []

    async def feed() -> None:
        for line in lines:
            try:
                message = json.loads(line) if line.startswith("{") else None
            except ValueError:
                message = None  # not JSON: the prelude must leave it to the SDK
            if isinstance(message, dict) and message.get("method") == "tools/list":
                return  # listing needs a project: the end-to-end tests above cover it
            if not await answering._answer(line):
                return
            answered.append(line)

    asyncio.run(feed())
    assert len(wire.sent) <= 1
    for reply, line in zip(wire.sent, answered, strict=False):
        sent = json.loads(line)
        assert sent["method"] == "initialize" and reply == {
            "jsonrpc": "2.0",
            "id": sent["id"],
            "result": reply["result"],
        }
        requested = sent["params"]["protocolVersion"]
        expected = requested if requested in prelude.HANDSHAKE_VERSIONS else prelude.HANDSHAKE_VERSIONS[-1]
        assert reply["result"]["protocolVersion"] == expected
