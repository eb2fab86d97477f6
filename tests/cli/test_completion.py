"""Shell completion through click's protocol, in a subprocess as a shell would call it."""

from __future__ import annotations

import pytest

from tests.support.cli import CliRunner, Project


def complete(cli: CliRunner, words: str, **env: str) -> list[tuple[str, str]]:
    """What ``trailblaze`` answers bash for the command line ``words`` (the cursor at its end)."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    result = cli(env={"COMP_WORDS": words, "COMP_CWORD": str(cword), "_TRAILBLAZE_COMPLETE": "bash_complete", **env})
    assert result.returncode == 0, result.output
    assert "Traceback" not in result.output
    return [tuple(line.split(",", 1)) for line in result.stdout.splitlines() if line]  # type: ignore[misc]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_script_for_each_shell(cli: CliRunner, shell: str) -> None:
    result = cli(env={"_TRAILBLAZE_COMPLETE": f"{shell}_source"})
    assert result.returncode == 0 and f"_TRAILBLAZE_COMPLETE={shell}_complete" in result.stdout


def test_commands_and_options(cli: CliRunner) -> None:
    assert ("plain", "schema") in complete(cli, "trailblaze sch")
    assert complete(cli, "trailblaze run --retr") == [("plain", "--retries")]  # a plugin's option


def test_driver_names(cli: CliRunner) -> None:
    names = [value for _, value in complete(cli, "trailblaze run --driver ")]
    assert {"web", "playwright-native", "android", "ios", "PLAYWRIGHT_NATIVE"} <= set(names)
    assert [value for _, value in complete(cli, "trailblaze validate --driver play")] == [
        "PLAYWRIGHT_NATIVE",  # driver names match case-insensitively, as upstream's do
        "playwright",
        "playwright-native",
    ]


def test_trail_paths(cli: CliRunner, project: Project) -> None:
    project.trail("login", "trail:\n  - step: x\n")
    project.write("trails/shop/trail.yaml", "trail:\n  - step: x\n")
    project.write("trails/notes.txt", "not a trail")
    project.write("trails/.hidden/a.trail.yaml", "trail:\n  - step: x\n")
    assert complete(cli, "trailblaze run tr") == [("plain", "trails/")]
    assert complete(cli, "trailblaze run trails/") == [("plain", "trails/login.trail.yaml"), ("plain", "trails/shop/")]
    assert complete(cli, "trailblaze record trails/shop/") == [("plain", "trails/shop/trail.yaml")]
    assert complete(cli, "trailblaze validate trails/nowhere/x") == []
