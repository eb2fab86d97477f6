"""The bad-input corpus (``tests/bad_input/``): every case gets one clear answer, and
``validate`` gives the same one as ``run``.

Each folder is a project (a ``trailblaze.yaml`` of its own, else the sample app's) with a
``case.yaml``: ``why`` it is bad, the ``exit`` code and the ``first`` message expected
(``{project}`` stands for the project's folder), and
what files cannot hold — ``symlinks``, a ``fifo``, ``args`` for both commands, ``env``.

The property, for every case: ``trailblaze run`` and ``trailblaze validate`` exit with the same
code and say the same first thing; it is the expected one; no traceback; and ``run`` stopped
before any device work (it printed nothing on stdout, wrote no report).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import cli_env
from tests.support.forked_cli import Command, run_all

CORPUS = Path(__file__).parent / "bad_input"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
DEFAULT_CONFIG = "base_url: sample-app\ntimeout: 5\n"


@dataclass
class Answer:
    code: int
    stdout: str
    stderr: str

    @property
    def first(self) -> str:
        """The first thing said: the first ``error:`` line, without the prefix."""
        for line in self.stderr.splitlines():
            if line.startswith("error: "):
                return line.removeprefix("error: ")
        return self.stderr.splitlines()[0] if self.stderr else ""


def _case(name: str) -> dict[str, Any]:
    path = CORPUS / name / "case.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    assert isinstance(data, dict), f"{path}: needs why, exit and first"
    return data


def _project(name: str, root: Path) -> Path:
    folder = root / name
    shutil.copytree(CORPUS / name, folder, symlinks=True, ignore=shutil.ignore_patterns("case.yaml"))
    case = _case(name)
    for link, target in (case.get("symlinks") or {}).items():
        (folder / link).parent.mkdir(parents=True, exist_ok=True)
        (folder / link).symlink_to(target)
    if case.get("fifo"):
        (folder / case["fifo"]).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(folder / case["fifo"])
    if not os.path.lexists(folder / "trailblaze.yaml"):  # a case may make it a link or a FIFO
        (folder / "trailblaze.yaml").write_text(DEFAULT_CONFIG, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Answer, Answer, Path]]:
    """Both commands on every case: real processes, forked from this one after it imported
    trailblaze (``tests/support/forked_cli.py``: the corpus costs no interpreter starts)."""
    root = tmp_path_factory.mktemp("bad-input")
    commands: list[Command] = []
    folders: dict[str, Path] = {}
    for name in CASES:
        case = _case(name)
        folders[name] = _project(name, root)
        env = cli_env(**{k: str(v) for k, v in (case.get("env") or {}).items()})
        for command in ("run", "validate"):
            extra = ["--json", "results.json"] if command == "run" else []
            commands.append(Command([command, *extra, *(case.get("args") or [])], folders[name], env))
    outcomes = [Answer(o.code, o.stdout, o.stderr) for o in run_all(commands)]
    return {name: (outcomes[2 * i], outcomes[2 * i + 1], folders[name]) for i, name in enumerate(CASES)}


@pytest.mark.parametrize("name", CASES)
def test_validate_answers_as_run_does(answers: dict[str, tuple[Answer, Answer, Path]], name: str) -> None:
    run, validate, folder = answers[name]
    case = _case(name)
    assert "Traceback" not in run.stderr + validate.stderr, run.stderr + validate.stderr
    assert (run.code, run.first) == (validate.code, validate.first), (run, validate)
    assert run.code == case["exit"], run
    assert run.first.startswith(case["first"].replace("{project}", str(folder))), run.first
    assert run.stdout == "", run.stdout  # found before any device work: nothing ran
    assert not (folder / "results.json").exists()  # and nothing was half-written


def test_every_case_says_why_it_is_bad() -> None:
    for name in CASES:
        case = _case(name)
        assert {"why", "exit", "first"} <= set(case), name
