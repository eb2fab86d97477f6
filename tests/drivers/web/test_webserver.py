"""``web: server:`` (Playwright Test's ``webServer``): a real ``python -m http.server`` started
for the run by the CLI in a subprocess, waited for, kept as evidence and stopped — also when it
never comes up, when something already answers, and on Ctrl-C."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.cli import CliProcess, CliRunner, Project, processes_with
from trailblaze.drivers.web.webserver import WebServerConfig, under_ci

HELLO = """
config: {id: hello, title: The served page}
trail:
  - step: The app answers
    recording:
      web:
        - web_navigate: {url: /}
        - web_verifyTextVisible: {text: Served for the run}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def serve_command(port: int) -> str:
    return f"{shlex.quote(sys.executable)} -u -m http.server {port} --bind 127.0.0.1 --directory site"


def server_project(project: Project, command: str, port: int, extra: str = "") -> None:
    project.write("site/index.html", "<!doctype html><title>app</title><h1>Served for the run</h1>\n")
    project.write(
        "trailblaze.yaml",
        f"base_url: http://127.0.0.1:{port}\ntimeout: 5\n"
        f"web:\n  server:\n    command: {json.dumps(command)}\n    url: http://127.0.0.1:{port}/\n{extra}",
    )
    project.trail("hello", HELLO)


def answers(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


pytestmark = pytest.mark.browser


def test_the_server_is_started_for_the_run_and_stopped_after_it(cli: CliRunner, project: Project, browser: str) -> None:
    port = free_port()
    server_project(project, serve_command(port), port)
    marker = uuid.uuid4().hex
    result = cli("run", "--artifacts-dir", "out", env={"TRAILBLAZE_TEST_MARKER": marker, "CI": ""})
    assert result.returncode == 0, result.output
    assert not answers(port)
    assert processes_with(marker) == []  # nor anything the command started
    log = (project.root / "out" / "web-server.log").read_text(encoding="utf-8")
    assert '"GET / HTTP/1.1" 200' in log  # the server's own output, kept as evidence


SIGN_IN = """
config: {id: sign-in, title: A password the app logs}
trail:
  - step: Sign in
    recording:
      web:
        - web_navigate: {url: /sign-in.html}
        - web_fillSecret: {ref: "css=#pw", value: "${APP_PASSWORD}"}
        - web_click: {ref: "css=#go"}
        - web_verifyTextVisible: {text: Served for the run}
"""


def test_the_servers_log_masks_the_runs_secrets_and_is_bounded(cli: CliRunner, project: Project, browser: str) -> None:
    """The app logs the request line, password and all (a GET form): the log CI uploads holds
    ***. A server that prints more than the bound before it listens leaves two bounded files."""
    port = free_port()
    project.write("boot.py", "for i in range(400):\n    print(f'boot {i:05d} ' + 'y' * 90)\n")
    chatty = f"{shlex.quote(sys.executable)} boot.py && "
    server_project(project, chatty + serve_command(port), port)
    project.write(
        "site/sign-in.html",
        '<!doctype html><form action="/index.html" method="get"><input id="pw" name="pw" type="password">'
        '<button id="go">Go</button></form>\n',
    )
    project.trail("hello", SIGN_IN)
    secret = "hunter2-" + uuid.uuid4().hex[:8]
    env = {"APP_PASSWORD": secret, "CI": "", "TRAILBLAZE_MAX_LOG_BYTES": "20000"}
    result = cli("run", "--artifacts-dir", "out", env=env)
    assert result.returncode == 0, result.output
    logs = [project.root / "out" / "web-server.log", project.root / "out" / "web-server.log.1"]
    text = "".join(path.read_text(encoding="utf-8") for path in logs)
    assert secret not in text and "pw=***" in text  # the app logged the request line
    assert all(path.stat().st_size <= 20_000 for path in logs)
    assert "boot 00399" in text and "boot 00000" not in text  # the oldest went with the rotation


def test_a_daemon_the_command_detaches_is_ended_with_the_run(cli: CliRunner, project: Project, browser: str) -> None:
    """`setsid … &` leaves the process group stopping the command ends; it carries the run's
    token, so the run's end finds it (a warning names it meanwhile) and the port is free after."""
    port = free_port()
    detached = f"setsid {serve_command(port)} > /dev/null 2>&1 < /dev/null & sleep 600"
    server_project(project, detached, port)
    result = cli("run", env={"CI": ""})
    assert result.returncode == 0, result.output
    assert f"warning: web server: http://127.0.0.1:{port}/ still answers after" in result.stderr
    assert "carries the run's token and is ended with the run" in result.stderr
    for _ in range(50):
        if not answers(port):
            break
        time.sleep(0.1)
    assert not answers(port)


def test_a_command_that_exits_is_exit_2_with_its_last_output(cli: CliRunner, project: Project, browser: str) -> None:
    port = free_port()
    server_project(project, "echo booting; echo 'port 3000 is taken' >&2; exit 7", port)
    result = cli("run", "--json", "r.json", env={"CI": ""})
    assert result.returncode == 2, result.output
    output = result.output
    assert "web server: `echo booting; echo 'port 3000 is taken' >&2; exit 7` exited with code 7" in output
    assert "| booting" in output and "| port 3000 is taken" in output
    assert "Traceback" not in output
    assert "never retrieved" not in output  # Playwright's driver, started beside it, is stopped in order
    assert result.json("r.json")["trails"][0]["status"] == "error"


def test_a_server_that_never_answers_times_out(cli: CliRunner, project: Project, browser: str) -> None:
    port = free_port()
    marker = uuid.uuid4().hex
    server_project(project, "echo waiting forever; sleep 600", port, "    timeout: 1\n")
    started = time.monotonic()
    result = cli("run", env={"TRAILBLAZE_TEST_MARKER": marker, "CI": ""})
    assert result.returncode == 2, result.output
    assert f"did not answer at http://127.0.0.1:{port}/ within 1 s" in result.output
    assert "| waiting forever" in result.output
    assert time.monotonic() - started < 60
    assert processes_with(marker) == []  # the sleep, too: the whole process group was stopped


def test_a_server_already_answering_is_reused_unless_under_ci(
    cli: CliRunner, project: Project, browser: str, tmp_path: Path
) -> None:
    port = free_port()
    server_project(project, "exit 9", port)  # never run when the running server is used
    with subprocess.Popen(
        shlex.split(serve_command(port)),
        cwd=project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    ) as own:
        try:
            deadline = time.monotonic() + 30
            while not answers(port):
                assert time.monotonic() < deadline, "http.server did not start"
                time.sleep(0.05)
            reused = cli("run", env={"CI": ""})
            assert reused.returncode == 0, reused.output
            under = cli("run", env={"CI": "true"})
            assert under.returncode == 2, under.output
            assert f"web server: http://127.0.0.1:{port}/ already answers" in under.output
            assert "reuse_existing: true" in under.output
            assert own.poll() is None  # someone else's server is left alone
        finally:
            os.killpg(own.pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to see the process tree")
def test_ctrl_c_stops_the_server(cli_process: CliProcess, project: Project, browser: str) -> None:
    port = free_port()
    server_project(project, serve_command(port), port)
    project.trail(
        "slow",
        """
        config: {id: slow}
        trail:
          - step: Wait for what never comes
            recording:
              web:
                - web_navigate: {url: /}
                - web_verifyTextVisible: {text: Never on the page}
        """,
    )
    config = project.root / "trailblaze.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("timeout: 5", "timeout: 60"), encoding="utf-8")
    marker = uuid.uuid4().hex
    proc = cli_process(
        "run", "-v", "trails/slow.trail.yaml",
        cwd=project.root, env={"TRAILBLAZE_TEST_MARKER": marker, "CI": ""}, merge_stderr=True, session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not answers(port):
        assert time.monotonic() < deadline and proc.poll() is None, "the server never came up"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    assert not answers(port)
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []


def test_the_section_refuses_unknown_keys_and_urls_without_a_scheme(cli: CliRunner, project: Project) -> None:
    server_project(project, "true", 1, "    reuse: true\n")
    result = cli("validate")
    assert result.returncode == 3 and "reuse" in result.output, result.output
    project.write("trailblaze.yaml", "web:\n  server: {command: 'true', url: 'localhost:3000'}\n")
    result = cli("validate")
    assert result.returncode == 3 and "should start with http:// or https://" in result.output, result.output


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://local host:3000/", "holds a space or a control character"),
        ("http://$(whoami):3000/", "names no host this machine can reach"),
        ("http://localhost:70000/", "has a port that is not a number from 0 to 65535"),
    ],
)
def test_a_url_that_is_no_url_is_refused_at_its_line(cli: CliRunner, project: Project, url: str, message: str) -> None:
    """It used to pass the config checks and fail the run, after the command had started."""
    project.write("trailblaze.yaml", f"timeout: 5\nweb:\n  server:\n    command: 'true'\n    url: '{url}'\n")
    result = cli("validate")
    assert result.returncode == 3, result.output
    assert "trailblaze.yaml:5:" in result.stderr and message in result.stderr


def test_the_config_schema_describes_the_section(cli: CliRunner) -> None:
    result = cli("schema", "config")
    assert result.returncode == 0, result.output
    assert "reuse_existing" in result.stdout and "the app under test" in result.stdout


@pytest.mark.parametrize(
    ("value", "expected"), [("", False), ("0", False), ("false", False), ("true", True), ("1", True)]
)
def test_ci_is_any_value_but_empty_or_false(value: str, expected: bool) -> None:
    assert under_ci({"CI": value}) is expected


def test_reuse_defaults_to_the_environment() -> None:
    config = WebServerConfig(command="true", url="http://127.0.0.1:1/")
    assert config.reuse_existing is None and config.timeout == 60
