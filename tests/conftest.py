"""Shared fixtures: the CLI in a subprocess, throwaway projects, the browser check."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import hypothesis
import pytest

from tests.support.cli import ROOT, CliProcess, CliResult, CliRunner, Project, cli_env
from tests.support.cli_zygote import CliZygote

# A run started in the background by a non-interactive shell (as some CI runners do) inherits
# an ignored SIGINT, and so would every trailblaze the tests start: Python then installs no
# KeyboardInterrupt handler and the tests' Ctrl-C never arrives. A handler of our own is reset
# to the default in children, which gives them the SIGINT a terminal user's trailblaze has.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# No deadline for a Hypothesis example: on a shared 2-core machine one example's time says
# nothing about the code, and the suite has no timed assertions (a hang is caught by the
# pytest-timeout bound). Tests that keep a deadline set it themselves.
hypothesis.settings.register_profile("trailblaze", deadline=None)
hypothesis.settings.load_profile("trailblaze")

#: the adb, phone and WebDriverAgent stand-ins (fixtures ``phone``, ``adb``, ``iphone``, ``wda_server``)
pytest_plugins = ("tests.standins.fixtures",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with a test marked ``slow`` go first, each file kept whole and in its order.

    ``make pytest`` hands whole files (``--dist loadfile``) to its workers in collection order,
    as each worker frees up: with the long files at the start the short ones fill the gaps at
    the end, instead of one worker finishing a long file alone while the others wait."""
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)


SHARED_UPSTREAM = ROOT.parent / "shared" / "upstream-format"


@pytest.fixture(scope="session")
def cli_zygote() -> Iterator[CliZygote]:
    """This worker's helper that forks ``python -m trailblaze`` with trailblaze imported (see
    tests/support/cli_zygote.py)."""
    helper = CliZygote(cli_env())
    yield helper
    helper.close()


@pytest.fixture
def cli(tmp_path: Path, cli_zygote: CliZygote) -> CliRunner:
    """Run ``python -m trailblaze ARGS`` in a subprocess (in ``tmp_path`` unless ``cwd=``):
    forked from this worker's helper, which has imported trailblaze already, unless the
    command's ``PYTHON*`` variables differ from the helper's (tests/support/cli_zygote.py).

    Installed entry-point plugins are not loaded unless ``autoload=True``, so tests do not
    depend on what else is installed in the environment. ``fresh=True``: a fresh interpreter,
    for a test that looks at the trailblaze process itself from outside (its command line in
    ``/proc``, say), where a fork shows the helper's.
    """

    def run(
        *args: str,
        cwd: Path | None = None,
        autoload: bool = False,
        env: dict[str, str] | None = None,
        timeout: float = 180,
        fresh: bool = False,
    ) -> CliResult:
        where = cwd or tmp_path
        environment = cli_env(autoload, **(env or {}))
        forked = None if fresh else cli_zygote.run(args, where, environment, timeout)
        if forked is not None:
            return CliResult(forked.returncode, forked.stdout, forked.stderr, where)
        proc = subprocess.run(
            [sys.executable, "-m", "trailblaze", *args],
            cwd=where,
            env=environment,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr, where)

    return run


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.fixture(scope="session")
def browser() -> str:
    """The browser the web driver will use; fails (not skips) when there is none, since a
    missing browser in CI must be noticed. Set TRAILBLAZE_TESTS_NO_BROWSER=1 to skip instead."""
    from trailblaze.drivers.web.browser import system_chromium

    found = system_chromium()
    if found is None:
        try:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                candidate = p.chromium.executable_path
            found = candidate if Path(candidate).is_file() else None
        except Exception:
            found = None
    if found is None:
        if os.environ.get("TRAILBLAZE_TESTS_NO_BROWSER"):
            pytest.skip("no browser (TRAILBLAZE_TESTS_NO_BROWSER is set)")
        pytest.fail("no browser for the web driver: run `make setup` (installs Chromium)")
    return found


@pytest.fixture
def upstream_format() -> Path:
    if not SHARED_UPSTREAM.is_dir():
        pytest.skip("upstream Trailblaze's own trail files (from block/trailblaze) are not at hand to load unchanged")
    return SHARED_UPSTREAM


@pytest.fixture
def cli_process(tmp_path: Path) -> Iterator[CliProcess]:
    """Start ``python -m trailblaze ARGS`` with pipes, for tests that talk to it while it runs
    (type into an agent, interrupt it); ``merge_stderr`` sends stderr into stdout. With
    ``session=True`` it leads a process group of its own, as a command started from a terminal
    does: Playwright's driver and the browser join it, and ``os.killpg`` signals them all, as
    Ctrl-C does. Every process started (with its group) is killed and its pipes closed at the end."""
    started: list[tuple[subprocess.Popen[str], bool]] = []

    def start(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        merge_stderr: bool = False,
        session: bool = False,
    ) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "trailblaze", *args],
            cwd=cwd or tmp_path,
            env=cli_env(False, **(env or {})),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            text=True,
            start_new_session=session,
        )
        started.append((proc, session))
        return proc

    yield start
    for proc, session in started:
        if session:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the leader's children too, even once it has exited
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
