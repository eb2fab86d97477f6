"""``pytest -p trailblaze`` on a folder of Maestro flows: each flow Maestro's workspace rules run
is an item named by the flow's name, a sub-flow is none; in a subprocess, in Chromium."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import cli_env

FLOWS = Path(__file__).parent / "flows"


@pytest.mark.browser
def test_pytest_runs_the_flows_of_a_workspace(tmp_path: Path, browser: str) -> None:
    shutil.copytree(FLOWS / "web", tmp_path / "flows")
    shutil.copytree(FLOWS / "app" / "subflows", tmp_path / "flows" / "subflows")  # runFlow's only
    (tmp_path / "trailblaze.yaml").write_text("base_url: sample-app\ntimeout: 5\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # rootdir here
    env = cli_env()
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "trailblaze", "-p", "no:randomly", "-p", "no:playwright", "-v"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    passed = sorted(line.split("::")[1].split(" ")[0] for line in result.stdout.splitlines() if " PASSED" in line)
    assert passed == ["Fill", "Runs", "Scripts"], result.stdout  # the names, up to their first space
    assert "fill_form" not in result.stdout and "About page" not in result.stdout
