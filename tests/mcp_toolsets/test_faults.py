"""Servers that break the protocol, or answer with far too much, get one clear, bounded answer.

The server is ``servers/raw.py``, which writes JSON-RPC by hand to misbehave exactly; the
device is the null driver (no browser: what is tested is the MCP side).
"""

from __future__ import annotations

import re
import sys

import pytest

from tests.support.cli import CliResult, CliRunner, Project

from .conftest import SERVERS

pytestmark = pytest.mark.slow

NULL = ("-p", "tests.support.null_driver")
TRAIL = "trail:\n  - step: Call the server\n    recording:\n      test:\n        - echo: {}\n"


def _run(cli: CliRunner, project: Project, *mode: str, timeout_s: float = 30, startup_s: float = 30) -> CliResult:
    """Run the trail against ``raw.py`` in ``mode``. The start-up bound is generous but for the
    test of a server that never answers: on a busy CI machine a Python server can take more
    than 3 s to reach its handshake."""
    args = ", ".join(f'"{a}"' for a in (str(SERVERS / "raw.py"), *mode))
    project.write(
        "trailblaze.yaml",
        f"driver: null-test\nmcp_servers:\n  - {{command: {sys.executable}, args: [{args}], name: raw, "
        f"startup_timeout_s: {startup_s:g}, timeout_s: {timeout_s}}}\n",
    )
    project.trail("t", TRAIL)
    result = cli("run", *NULL, "--json", "r.json", "--junit", "r.xml")
    assert "Traceback" not in result.output
    assert "Future exception was never retrieved" not in result.output
    assert "errors.pydantic.dev" not in result.output  # never pydantic's dump
    return result


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (
            "bad-schema",
            "MCP server raw (project, {config}:3:5) answered tools/list with something that is not valid MCP: "
            "tools.0.inputSchema: Input should be a valid dictionary or instance of InputSchema",
        ),
        (
            "reject-initialize",
            "MCP server raw (project, {config}:3:5) refused initialize: unsupported protocol version, this server "
            "speaks 1999-01-01 (error -32602)",
        ),
        (
            "silent-start",
            "MCP server raw (project, {config}:3:5) did not start and complete the MCP handshake within 3s",
        ),
    ],
)
def test_startup_errors_say_what_happened(cli: CliRunner, project: Project, mode: str, message: str) -> None:
    # all three used to be "exited with code 0 before completing…"
    result = _run(cli, project, mode, startup_s=3 if mode == "silent-start" else 30)
    assert result.returncode == 2, result.output
    assert message.format(config=project.root / "trailblaze.yaml") in result.stdout


def test_a_servers_own_minus_32000_refusal_is_its_words_cut_to_size(cli: CliRunner, project: Project) -> None:
    """-32000 is also the SDK's "Connection closed": a server's refusal with it is still the
    server's refusal (it read "exited with code 0"), and a 5 MB one is cut."""
    result = _run(cli, project, "reject-32000", "5000000")
    assert result.returncode == 2, result.output
    assert "refused initialize: server busy: server busy" in result.stdout
    assert "more characters not shown) (error -32000)" in result.stdout
    for report in ("r.json", "r.xml"):
        assert (project.root / report).stat().st_size < 50_000, report
    assert len(result.stdout) < 50_000


def test_a_malformed_result_is_named_in_one_line(cli: CliRunner, project: Project) -> None:
    result = _run(cli, project, "malformed-result")
    assert result.returncode == 2, result.output
    error = result.json("r.json")["trails"][0]["error"]
    assert error.split(": ", 1)[1] == (
        f"step 1 (Call the server): echo: MCP server raw (project, {project.root}/trailblaze.yaml:3:5) answered "
        "tools/call echo with a malformed result: content: Input should be a valid list; isError: Input should "
        "be a valid boolean, unable to interpret input"
    )


def test_a_huge_error_text_is_cut_in_the_terminal_and_the_reports(cli: CliRunner, project: Project) -> None:
    result = _run(cli, project, "big-error", "20")  # 20 MB of isError text made 63 MB reports
    assert result.returncode == 1, result.output
    error = result.json("r.json")["trails"][0]["error"]
    assert error.split(": ", 1)[1].startswith("step 1 (Call the server): echo: 0123456789abcdef")
    cut = re.search(r"… \((\d+) more characters not shown\)$", error)
    assert cut is not None and int(cut.group(1)) > 20_000_000, error[-100:]
    for report in ("r.json", "r.xml"):
        assert (project.root / report).stat().st_size < 50_000, report
    assert len(result.output) < 10_000


def test_a_huge_result_arrives_in_time(cli: CliRunner, project: Project) -> None:
    # 50 MB on one line: the reader used to rescan its buffer for every chunk (15 s), and the
    # call was reported as a server that "did not answer within 8s"
    result = _run(cli, project, "big-result", "50", timeout_s=8)
    assert result.returncode == 0, result.output[-2000:]


def test_a_servers_stderr_in_an_error_is_bounded(cli: CliRunner, project: Project) -> None:
    result = _run(cli, project, "loud", "100")  # 100 lines of 10,000 characters, then it exits
    assert result.returncode == 2, result.output[-2000:]
    error = result.json("r.json")["trails"][0]["error"]
    assert "exited with code 3 during a call to echo" in error
    assert "last 20 stderr lines" in error  # it used to quote 64 whole lines: 640 KB in one message
    assert len(error) <= 4_100
    log = next((project.root / ".trailblaze" / "logs").glob("*/raw.stderr.log"))
    assert log.stat().st_size > 1_000_000  # the log has it all


def test_a_server_that_talks_before_it_answers_is_heard_in_time(cli: CliRunner, project: Project) -> None:
    # 200,000 log notifications before the answer: each went through the SDK (a task apiece),
    # and the call was reported as a server that "did not answer within 10s"
    result = _run(cli, project, "chatty", "200000", timeout_s=10)
    assert result.returncode == 0, result.output[-2000:]


def test_a_ref_cycle_in_a_tools_schema_is_one_line_naming_server_and_tool(cli: CliRunner, project: Project) -> None:
    result = _run(cli, project, "ref-cycle")  # it was exit 4, a RecursionError, from run and validate
    assert result.returncode == 2, result.output
    said = (
        f"MCP server raw (project, {project.root}/trailblaze.yaml:3:5): tool echo's inputSchema has a $ref that "
        "leads back to itself (#/$defs/a → #/$defs/b → #/$defs/a); its arguments cannot be checked"
    )
    assert said in result.json("r.json")["trails"][0]["error"]
    checked = cli("validate", *NULL)
    assert checked.returncode == 2 and said in checked.stderr
    assert "Traceback" not in checked.output and "RecursionError" not in checked.output
