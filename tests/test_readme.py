"""The README is what a newcomer reads first, in two minutes: the two commands a fresh clone
runs (CI and the fresh-clone check run them from its first code block), what trailblaze is, an
example that runs as written, the Node.js version the npm-based parts need, and where the
documentation is. The rest lives in docs/ (checked by tests/docs/)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import ROOT, cli_env

README = (ROOT / "README.md").read_text(encoding="utf-8")
#: the example of "In 30 seconds": its trail, then its console session
EXAMPLE = README[README.index("## In 30 seconds") :].split("\n## ", 1)[0]


def test_the_first_code_block_is_the_two_commands() -> None:
    first = re.search(r"```\w*\n(.*?)```", README, re.DOTALL)
    assert first is not None
    lines = first.group(1).splitlines()
    assert lines[0].startswith("make demo    # ")
    assert lines[1].startswith("make test    # ")


def test_a_newcomer_reads_it_in_two_minutes() -> None:
    assert len(README.splitlines()) < 150


def test_it_says_which_node_the_npm_based_parts_need() -> None:
    assert re.search(r"Node\.js 20\.6 or later", README)


def test_every_link_leads_to_a_file_of_the_repository() -> None:
    links = [target for target in re.findall(r"\]\(([^)#]+)\)", README) if not target.startswith("http")]
    assert "docs/getting-started.md" in links
    missing = [target for target in links if not (ROOT / target).exists()]
    assert missing == []


def _block(language: str) -> str:
    found = re.search(rf"```{language}\n(.*?)```", EXAMPLE, re.DOTALL)
    assert found is not None, f"no {language} block in the README's example"
    return found.group(1)


def _same_but_times(text: str) -> list[str]:
    """Lines of output with what differs from run to run (durations, the version) made equal."""
    text = re.sub(r"\b\d+(\.\d+)?s\b", "<s>", text)
    return re.sub(r"trailblaze \d+\.\d+\.\d+\S*", "trailblaze <version>", text).splitlines()


@pytest.mark.browser
def test_the_example_runs_as_written(tmp_path: Path, browser: str) -> None:
    """The README's commands, run in a shell as a newcomer types them (`trailblaze init`, then
    the run, in real Chromium), print what it shows; the trail it shows is the one init wrote."""
    session = _block("console").splitlines()
    commands = [line[2:] for line in session if line.startswith("$ ")]
    shown = session[session.index("$ " + commands[-1]) + 1 :]
    env = cli_env(PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    done = subprocess.run(
        ["bash", "-e", "-c", "\n".join(commands)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    printed = _same_but_times(done.stdout)
    assert printed[-len(shown) :] == _same_but_times("\n".join(shown)), done.stdout
    trail = re.search(r"`(trails/[\w.-]+\.trail\.yaml)`", EXAMPLE)
    assert trail is not None and trail.group(1) in commands[-1]
    (config,) = tmp_path.glob("*/trailblaze.yaml")  # the project init made
    assert (config.parent / trail.group(1)).read_text(encoding="utf-8") == _block("yaml")
