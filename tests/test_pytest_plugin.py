"""The pytest plugin (``pytest -p trailblaze``): trails as pytest items, run by pytest in a
subprocess on a temporary copy of the example project, against the sample app, with xdist,
``-k``, ``--lf``, ``--junitxml`` and pytest-rerunfailures."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.cli import ROOT, cli_env
from tests.support.probes import DRIVER_COUNTER

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BROKEN = """
config: {id: broken/missing-button, title: A button that is not there, timeout: 1}
trail:
  - step: Open the about page
    recording:
      web:
        - web_navigate: {url: /about.html}
  - step: Click a button the page does not have
    recording:
      web:
        - web_click: {nodeSelector: {web: {dataTestId: no-such-button}}}
"""

#: plugins of the environment that are not trailblaze's and would load by entry point in these
#: projects: pytest-playwright (a development dependency, the peer in benchmarks/pytest_peers.py)
#: imports Playwright whether asked for or not
NOT_THEIRS = ("-p", "no:randomly", "-p", "no:playwright")


@pytest.fixture
def examples(tmp_path: Path, browser: str) -> Path:
    """The example trails and their trailblaze.yaml, in a project of their own."""
    shutil.copytree(ROOT / "trails", tmp_path / "trails")
    shutil.copy(ROOT / "trailblaze.yaml", tmp_path / "trailblaze.yaml")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # rootdir here, not the repository
    return tmp_path


def pytest_run(where: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = cli_env()
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    # pytest rewrites the asserts of the modules of a plugin it loads by entry point (trailblaze
    # is one) and caches the result; where PYTHONDONTWRITEBYTECODE is set (these machines) every
    # pytest started here rewrote them again: 2.0 s of CPU to collect the examples, 0.9 s cached
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "trailblaze", *NOT_THEIRS, *args],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def test_the_example_trails_pass_with_xdist(examples: Path) -> None:
    result = pytest_run(examples, "-n", "2", "trails/")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "7 passed" in result.stdout
    assert "created: 2/2 workers" in result.stdout


def test_k_selects_trails_by_name_and_tag(examples: Path) -> None:
    result = pytest_run(examples, "-k", "about", "trails/")
    assert result.returncode == 0, result.stdout
    assert "1 passed, 6 deselected" in result.stdout


def test_junitxml_carries_each_trails_results(examples: Path) -> None:
    result = pytest_run(examples, "trails/legacy", "--junitxml", "junit.xml")
    assert result.returncode == 0, result.stdout
    case = ET.parse(examples / "junit.xml").getroot().find(".//testcase")
    assert case is not None and case.get("name") == "about"
    prop = case.find("properties/property[@name='trailblaze']")
    assert prop is not None
    document = json.loads(prop.get("value") or "")
    assert (document["id"], document["status"], document["exit_code"]) == ("legacy/about", "passed", 0)


def test_a_failing_trail_fails_its_item_with_the_trails_error_and_lf_reruns_only_it(examples: Path) -> None:
    (examples / "trails" / "broken.trail.yaml").write_text(BROKEN, encoding="utf-8")
    first = pytest_run(examples, "trails/legacy", "trails/broken.trail.yaml")
    assert first.returncode == 1, first.stdout
    assert "1 failed, 1 passed" in first.stdout
    assert "step 2 (Click a button the page does not have): web_click" in first.stdout
    assert "Traceback" not in first.stdout
    again = pytest_run(examples, "--lf", "trails/legacy", "trails/broken.trail.yaml")
    assert "rerun previous 1 failure" in again.stdout and "collected 1 item" in again.stdout, again.stdout
    assert "1 failed in" in again.stdout


def test_a_failing_trails_evidence_is_on_its_report_and_in_junit(examples: Path) -> None:
    (examples / "trails" / "broken.trail.yaml").write_text(BROKEN, encoding="utf-8")
    result = pytest_run(examples, "trails/broken.trail.yaml", "--junitxml", "junit.xml")
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    shown = [line.split(": ", 1)[1] for line in lines if line.startswith("  evidence: ")]  # the report section
    message = next(line for line in lines if line.startswith("evidence: "))  # the failure's own text
    assert all(path in message for path in shown if "trace.zip" not in path), message
    assert any(path.endswith(".png") for path in shown), result.stdout
    assert all(Path(path).is_file() for path in shown), shown
    case = ET.parse(examples / "junit.xml").getroot().find(".//testcase")
    assert case is not None
    attached = [p.get("value") for p in case.findall("properties/property[@name='trailblaze_evidence']")]
    assert sorted(attached) == sorted(shown)


def test_reruns_replay_a_failing_trail_in_the_same_session(examples: Path) -> None:
    (examples / "trails" / "broken.trail.yaml").write_text(BROKEN, encoding="utf-8")
    result = pytest_run(examples, "--reruns", "1", "trails/broken.trail.yaml")
    assert result.returncode == 1
    assert "1 failed, 1 rerun" in result.stdout, result.stdout
    # the rerun is the trail's first retry: traced (--trace on-first-retry, the default), its
    # evidence beside the first run's, not over it
    traces = sorted(p.parent.name for p in examples.rglob("trace.zip"))
    assert traces == ["broken_missing-button-retry1"], traces
    assert any(examples.rglob("broken_missing-button/*.png")), result.stdout


def test_a_bad_trail_file_is_a_collection_error_naming_its_line(examples: Path) -> None:
    (examples / "trails" / "bad.trail.yaml").write_text("trail:\n  - step: x\n    nope: 1\n", encoding="utf-8")
    result = pytest_run(examples, "trails/bad.trail.yaml")
    assert result.returncode == 2
    assert "bad.trail.yaml:3" in result.stdout, result.stdout
    assert "Traceback" not in result.stdout


def test_a_browser_server_that_is_down_fails_items_with_trailblazes_message(examples: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = pytest_run(examples, "trails/forms", "--trailblaze-connect", f"ws://127.0.0.1:{port}/x")
    assert result.returncode == 1
    assert f"error: cannot connect to the browser server at ws://127.0.0.1:{port}/x" in result.stdout, result.stdout
    assert "Traceback" not in result.stdout and "_pytest/runner.py" not in result.stdout


def test_without_the_plugin_asked_for_trail_files_are_not_collected(examples: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *NOT_THEIRS, "trails/"],
        cwd=examples,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 5, result.stdout  # no tests collected
    assert "playwright" not in _modules_loaded(examples)


def _modules_loaded(where: Path) -> str:
    """Whether loading the plugin (without asking for it) imported anything heavy."""
    probe = f"import sys, pytest; pytest.main([*{NOT_THEIRS!r}, '--co', '-q', 'trails/']); print(sorted(sys.modules))"
    return subprocess.run([sys.executable, "-c", probe], cwd=where, capture_output=True, text=True, timeout=60).stdout


def test_a_fifo_or_device_named_like_a_trail_is_a_collection_error_naming_it(examples: Path) -> None:
    os.mkfifo(examples / "trails" / "pipe.trail.yaml")
    (examples / "trails" / "forms" / "zero.trail.yaml").symlink_to("/dev/zero")
    result = pytest_run(examples, "--collect-only", "trails/", timeout=120)
    assert result.returncode == 2, result.stdout  # they were passed over without a word
    assert "trails/pipe.trail.yaml: not a regular file (a FIFO)" in result.stdout, result.stdout
    assert "trails/forms/zero.trail.yaml: not a regular file (a character device)" in result.stdout
    assert "Traceback" not in result.stdout


def test_a_trail_with_thousands_of_problems_is_one_bounded_collection_error(examples: Path) -> None:
    step = "  - step: Open\n    recording:\n      web:\n        - web_navigat: {url: /index.html}\n"
    (examples / "trails" / "many.trail.yaml").write_text("trail:\n" + step * 3000, encoding="utf-8")
    result = pytest_run(examples, "--collect-only", "trails/many.trail.yaml", timeout=120)
    assert result.returncode == 2, result.stdout
    assert result.stdout.count("unknown tool 'web_navigat'") == 50  # it was one line each
    assert "… and 2950 more problems" in result.stdout


EARLY_PROBE = (
    DRIVER_COUNTER
    + """

@hookimpl
def trailblaze_start_early(driver):
    Path("asked-early").write_text(repr(driver))


@hookimpl
def trailblaze_check_run(run):
    Path("drivers-at-plan").write_text(str(drivers()))
"""
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_asks_plugins_to_start_early_and_the_web_driver_boots_before_planning(examples: Path) -> None:
    """As ``trailblaze run`` does: the hook is called before the first trail is planned (the
    web driver's Node.js process is running by then), with ``--trailblaze-driver``; not for
    ``--collect-only``."""
    (examples / "early_probe.py").write_text(EARLY_PROBE, encoding="utf-8")
    config = examples / "trailblaze.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "plugins: [early_probe]\n", encoding="utf-8")
    about = "trails/navigation"
    result = pytest_run(examples, about, "-q", "--collect-only")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (examples / "asked-early").exists()
    result = pytest_run(examples, about, "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (examples / "asked-early").read_text() == "None"
    assert (examples / "drivers-at-plan").read_text() == "1"
