"""The ``cli`` fixture's forked commands behave as a fresh ``python -m trailblaze`` does
(tests/support/cli_zygote.py): same exit codes, streams, working directory and environment."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import CliRunner, Project, cli_env
from tests.support.cli_zygote import PRELOAD, SWITCH, CliZygote

TRAIL = """
config: {id: env}
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {url: "/${PAGE_NAME}.html"}
"""


@pytest.mark.parametrize(
    ("args", "variables"),
    [
        (["--version"], {}),
        (["validate", "trails/"], {"PAGE_NAME": "forms"}),  # valid: the variable is in its environment
        (["validate", "trails/"], {}),  # exit 2: the variable is not set, said with file and line
        (["validate", "trails/nothing.trail.yaml"], {}),  # a usage error
        (["run", "--no-such-option"], {}),  # click's usage error, on stderr
        (["tools", "--json"], {}),
    ],
    ids=["version", "env-set", "env-missing", "missing-file", "bad-option", "tools-json"],
)
def test_a_forked_command_answers_as_a_fresh_one(
    cli: CliRunner, cli_zygote: CliZygote, project: Project, args: list[str], variables: dict[str, str]
) -> None:
    project.trail("env", TRAIL)
    env = cli_env(**variables)
    forked = cli_zygote.run(args, project.root, env, 120)
    assert forked is not None, "the helper should have run it"
    expected = cli(*args, cwd=project.root, env=variables, timeout=120, fresh=True)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        expected.returncode,
        expected.stdout,
        expected.stderr,
    )
    assert expected.stdout or expected.stderr


def test_a_command_past_its_timeout_is_killed_with_what_it_printed(cli_zygote: CliZygote, tmp_path: Path) -> None:
    (tmp_path / "report.html").write_text("<h1>report</h1>", encoding="utf-8")
    with pytest.raises(subprocess.TimeoutExpired) as raised:
        cli_zygote.run(["show-report", "report.html", "--no-open"], tmp_path, cli_env(), 3)
    assert "http://127.0.0.1:" in str(raised.value.output)  # what it printed before it was killed
    # and the helper goes on serving
    after = cli_zygote.run(["--version"], tmp_path, cli_env(), 60)
    assert after is not None and after.returncode == 0


def test_a_command_that_cannot_start_says_why(cli_zygote: CliZygote, tmp_path: Path) -> None:
    # the working directory is gone by the time the helper forks: exit 1 and the reason on
    # stderr, not a silent 1 (the helper goes on serving)
    gone = tmp_path / "gone"
    result = cli_zygote.run(["--version"], gone, cli_env(), 60)
    assert result is not None and result.returncode == 1
    assert "could not start trailblaze: FileNotFoundError: " in result.stderr and str(gone) in result.stderr
    after = cli_zygote.run(["--version"], tmp_path, cli_env(), 60)
    assert after is not None and after.returncode == 0


def test_what_changes_how_python_starts_gets_a_fresh_interpreter(cli_zygote: CliZygote, tmp_path: Path) -> None:
    assert cli_zygote.run(["--version"], tmp_path, cli_env(PYTHONWARNINGS="error"), 60) is None
    assert cli_zygote.run(["--version"], tmp_path, cli_env(**{SWITCH: "1"}), 60) is None
    assert cli_zygote.run(["--version"], tmp_path, cli_env(), 60) is not None


@pytest.mark.parametrize("module", PRELOAD)
def test_every_preloaded_module_exists(module: str) -> None:
    """The helper skips a module that fails to import; a renamed one would go unnoticed."""
    assert importlib.util.find_spec(module) is not None
