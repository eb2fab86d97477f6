"""The "How do I…" recipes (docs/recipes/) run as written, in real Chromium.

Each recipe page is a project `trailblaze init` made plus the page's files: every code block
whose title names a file (```yaml title="trails/x.trail.yaml"```) is written there. Its
console sessions then run in bash, as a reader types them, and print what the page shows:
line for line, with durations and the version left out and `…` standing for any text (a
run's folder, the end of a long line). The workflow of the sharding recipe runs its shards
and its merge job here, one after the other.

The home page's example is the trail `trailblaze init` writes, and its commands run. The code
blocks of the recipes and of the pages a newcomer reads first fit the page (90 columns)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.docs.recipes import RECIPES, WORKFLOW, files_of, page_blocks, recipe_project, sessions_of
from tests.docs.snippets import ROOT, blocks
from tests.support.cli import cli_env
from trailblaze.drivers.web.sample_server import SampleAppServer

#: the pages a newcomer reads first: their code blocks fit the page too
FIRST_READ = [ROOT / "docs" / name for name in ("index.md", "getting-started.md", "writing-trails.md", "running.md")]
#: the widest line a code block of those pages may have: wider ones scroll sideways on the site
COLUMNS = 90


def same_but_times(line: str) -> str:
    """A line of output with what differs from run to run (durations, the version) made equal."""
    line = re.sub(r"\b\d+(\.\d+)?s\b", "<s>", line)
    return re.sub(r"trailblaze \d+\.\d+\.\d+\S*", "trailblaze <version>", line)


def shown_as(expected: str, printed: str) -> bool:
    """Whether ``printed`` is the line the page shows, ``…`` in it standing for any text."""
    pattern = ".*".join(re.escape(part) for part in same_but_times(expected).split("…"))
    return re.fullmatch(pattern, same_but_times(printed)) is not None


@pytest.fixture(scope="module")
def environments() -> Iterator[dict[str, str]]:
    """Staging and production for the recipe that has both: two servers of the sample app."""
    staging, production = SampleAppServer().start(), SampleAppServer().start()
    try:
        yield {"STAGING_URL": staging.url, "PRODUCTION_URL": production.url}
    finally:
        staging.stop()
        production.stop()


def shell_env(extra: dict[str, str]) -> dict[str, str]:
    """A reader's shell: trailblaze on PATH, nothing set that the page does not set."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = cli_env(PATH=path, **extra)
    env.pop("SAMPLE_PASSWORD", None)
    return env


def run_session(root: Path, commands: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", "\n".join(commands)],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, as the terminal shows them
        text=True,
        timeout=600,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def test_every_recipe_has_a_question_a_few_sentences_files_and_a_command() -> None:
    assert len(RECIPES) >= 8
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    (recipes,) = [entry["How do I…"] for entry in nav if "How do I…" in entry]
    assert {next(iter(e.values())) for e in recipes if isinstance(e, dict)} == {f"recipes/{p.name}" for p in RECIPES}
    for page in RECIPES:
        text = page.read_text(encoding="utf-8")
        title, intro = re.match(r"# ([^\n]+)\n\n(.+?)\n\n", text, re.DOTALL).groups()  # type: ignore[union-attr]
        assert title.startswith("How do I ") and title.endswith("?"), page.name
        sentences = re.findall(r"[.:!?](?:\s|$)", re.sub(r"`[^`]*`|\([^)]*\)", "", intro))
        assert 3 <= len(sentences) <= 7, (page.name, intro)
        assert files_of(page), f"{page.name} shows no file"
        assert sessions_of(page) or WORKFLOW in files_of(page), f"{page.name} shows no command"


def test_every_code_block_of_a_recipe_and_of_the_first_pages_fits_the_page() -> None:
    for page in [*RECIPES, *FIRST_READ]:
        for block in page_blocks(page):
            wide = [line for line in block.text.splitlines() if len(line) > COLUMNS]
            assert wide == [], block.where


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("page", [p for p in RECIPES if sessions_of(p)], ids=lambda p: p.stem)
def test_the_recipe_runs_as_written(page: Path, tmp_path: Path, browser: str, environments: dict[str, str]) -> None:
    root = recipe_project(page, tmp_path)
    for commands, shown in sessions_of(page):
        done = run_session(root, commands, shell_env(environments))
        printed = done.stdout.splitlines()
        assert len(printed) == len(shown), f"{page.name}: {commands}\n{done.stdout}"
        for expected, line in zip(shown, printed, strict=True):
            assert shown_as(expected, line), f"{page.name}: expected {expected!r}, printed {line!r}\n{done.stdout}"
        failed = any(line.startswith(("FAILED", "error:")) for line in shown)
        assert (done.returncode != 0) == failed, f"{page.name}: exit {done.returncode}\n{done.stdout}"


def workflow_commands(step: dict[str, Any], shard: int) -> list[str]:
    """The trailblaze command of a workflow step, with the matrix's shard filled in."""
    command = " ".join(str(step.get("run", "")).split())
    return [command.replace("${{ matrix.shard }}", str(shard))] if command.startswith("trailblaze ") else []


@pytest.mark.slow
@pytest.mark.browser
def test_the_sharded_workflow_runs_every_trail_once_and_merges_one_report(tmp_path: Path, browser: str) -> None:
    """The recipe's jobs, run here: each shard's `trailblaze` step (into the one reports/
    folder the report job downloads them to), then the report job's merge. The suite they
    shard is the repository's example trails."""
    (page,) = [p for p in RECIPES if WORKFLOW in files_of(p)]
    root = recipe_project(page, tmp_path)
    shutil.copytree(ROOT / "trails", root / "trails", dirs_exist_ok=True)
    jobs = yaml.safe_load(files_of(page)[WORKFLOW])["jobs"]
    shards = jobs["trails"]["strategy"]["matrix"]["shard"]
    ran: list[str] = []
    for shard in shards:
        (command,) = [c for step in jobs["trails"]["steps"] for c in workflow_commands(step, shard)]
        assert f"--shard {shard}/{len(shards)} " in command  # as many shards as the matrix has jobs
        done = run_session(root, [command], shell_env({}))
        assert done.returncode == 0, done.stdout
        report = json.loads((root / "reports" / f"shard-{shard}.json").read_text(encoding="utf-8"))
        ran += [trail["id"] for trail in report["trails"]]
    listed = run_session(root, ["trailblaze run trails/ --list"], shell_env({}))
    every = [line.split()[0] for line in listed.stdout.splitlines()[1:-1]]  # below the header, above the count
    assert len(every) >= 8 and sorted(ran) == sorted(every), listed.stdout  # each trail in exactly one shard
    (merge,) = [c for step in jobs["report"]["steps"] for c in workflow_commands(step, 0)]
    done = run_session(root, [f"{merge} --json merged.json"], shell_env({}))
    assert done.returncode == 0, done.stdout
    merged = json.loads((root / "merged.json").read_text(encoding="utf-8"))
    assert sorted(trail["id"] for trail in merged["trails"]) == sorted(every)
    assert (root / "trailblaze-report" / "index.html").is_file()


@pytest.mark.browser
def test_the_home_pages_example_is_the_trail_init_writes_and_its_commands_run(tmp_path: Path, browser: str) -> None:
    """The first trail a reader sees on the site is the one `trailblaze init` wrote, and the
    commands under it run as written."""
    home = blocks("yaml", "sh", pages=[ROOT / "docs" / "index.md"])
    (trail,) = [block for block in home if block.lang == "yaml"]
    (shell,) = [block for block in home if block.lang == "sh"]
    done = run_session(tmp_path, ["set -e", shell.text], shell_env({}))
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1].startswith("1 passed in "), done.stdout
    assert (tmp_path / "demo" / "trails" / "example.trail.yaml").read_text(encoding="utf-8") == trail.text
