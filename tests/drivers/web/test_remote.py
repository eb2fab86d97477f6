"""Remote browsers: the example trails on a real Playwright browser server (``python -m
playwright launch-server``) and over CDP on a real Chromium started with
``--remote-debugging-port``, both started here and reaped whatever happens."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import ROOT, CliRunner

pytestmark = pytest.mark.browser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def reap(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``proc`` and everything it started (its own process group)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


@pytest.fixture
def browser_server(tmp_path: Path, browser: str) -> Iterator[str]:
    """A Playwright browser server on the system Chromium; yields its ws:// endpoint (the first
    line it prints)."""
    config = tmp_path / "server.json"
    config.write_text(json.dumps({"executablePath": browser, "args": CHROMIUM_FLAGS, "port": 0}), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()  # bounded by pytest-timeout
        assert line.startswith("ws://"), f"launch-server printed {line!r}"
        yield line
    finally:
        reap(proc)


@pytest.fixture
def cdp_chromium(tmp_path: Path, browser: str) -> Iterator[str]:
    """A Chromium with ``--remote-debugging-port=0``; yields http://127.0.0.1:PORT, the port read
    from the DevToolsActivePort file it writes into its profile."""
    profile = tmp_path / "profile"
    proc = subprocess.Popen(
        # Playwright's own launch turns the back-forward cache off too: a page restored from it
        # sends no load event, so going back would wait for one in vain
        [
            browser,
            *CHROMIUM_FLAGS,
            "--disable-back-forward-cache",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proc.poll() is None, "chromium exited"
            assert time.monotonic() < deadline, "chromium wrote no DevToolsActivePort"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port_file.read_text().splitlines()[0]}"
        assert proc.poll() is None, "the run closed a browser that was not its own"
    finally:
        reap(proc)


def run_examples(cli: CliRunner, tmp_path: Path, *args: str) -> tuple[int, dict, str]:
    out = tmp_path / "results.json"
    result = cli("run", *args, "--json", str(out), "--artifacts-dir", str(tmp_path / "artifacts"), cwd=ROOT)
    return result.returncode, json.loads(out.read_text(encoding="utf-8")), result.output


def test_the_example_trails_pass_on_a_browser_server(cli: CliRunner, tmp_path: Path, browser_server: str) -> None:
    code, document, output = run_examples(cli, tmp_path, "--connect", browser_server, "--workers", "2")
    assert code == 0, output
    assert document["trails"] and {t["status"] for t in document["trails"]} <= {"passed", "skipped"}


def test_the_example_trails_pass_over_cdp(cli: CliRunner, tmp_path: Path, cdp_chromium: str) -> None:
    code, document, output = run_examples(cli, tmp_path, "--cdp", cdp_chromium)
    assert code == 0, output
    assert {t["status"] for t in document["trails"]} <= {"passed", "skipped"}


def test_the_web_section_connects_with_headers_from_the_environment(
    cli: CliRunner, tmp_path: Path, browser_server: str
) -> None:
    (tmp_path / "trails").mkdir()
    (tmp_path / "trails" / "about.trail.yaml").write_text(
        (ROOT / "trails" / "legacy" / "about.trail.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "trailblaze.yaml").write_text(
        "base_url: sample-app\nweb:\n  connect: "
        f"{browser_server}\n  connect_headers: {{Authorization: 'Bearer ${{BROWSER_TOKEN}}'}}\n  connect_timeout: 10\n",
        encoding="utf-8",
    )
    unset = cli("run", "--json", "r.json")
    assert unset.returncode == 3, unset.output
    # found before the run, at its place in trailblaze.yaml (it was a trail ERROR when connecting)
    assert unset.stderr.startswith(
        f"error: {tmp_path / 'trailblaze.yaml'}:4:36: web: connect_headers.Authorization: ${{BROWSER_TOKEN}} is not set"
    ), unset.output
    assert unset.stdout == "" and not (tmp_path / "r.json").exists()
    assert cli("run", env={"BROWSER_TOKEN": "t0ken"}).returncode == 0


def test_an_endpoint_that_is_down_is_exit_2_naming_it(cli: CliRunner, tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for option, url in (("--connect", f"ws://127.0.0.1:{port}/"), ("--cdp", f"http://127.0.0.1:{port}")):
        result = cli("run", "trails/legacy", option, url, cwd=ROOT)
        assert result.returncode == 2, result.output
        assert "cannot connect to the" in result.output and url in result.output
        assert "Traceback" not in result.output and "Call log" not in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--connect", "http://x"), "--connect: 'http://x' should start with ws:// or wss://"),
        (("--connect", "ws://a", "--cdp", "http://b"), "--connect and --cdp exclude each other"),
    ],
)
def test_bad_endpoints_are_misuse(cli: CliRunner, args: tuple[str, ...], message: str) -> None:
    result = cli("run", "trails/legacy", *args, cwd=ROOT)
    assert result.returncode == 3 and message in result.output, result.output


def test_a_bad_web_section_is_misuse_with_its_line(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "trailblaze.yaml").write_text("base_url: sample-app\nweb:\n  connect: http://x\n", encoding="utf-8")
    result = cli("run")
    assert result.returncode == 3
    assert "trailblaze.yaml:" in result.output and "should start with ws://" in result.output
