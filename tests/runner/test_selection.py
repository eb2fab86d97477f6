"""Choosing trails: ``-k`` expressions (unit), and ``-k``, tags, ``--last-failed`` and ``--list``
end to end against the sample app."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_shard import NULL, null_project

from tests.support.ci_project import ci_project
from tests.support.cli import CliRunner, Project
from trailblaze.core.errors import UsageError
from trailblaze.runner.selection import keyword_matcher, split_tags

pytestmark = pytest.mark.slow

NAMES = ("forms/submit-contact", "Submit the contact form", "trails/forms/submit-contact.trail.yaml")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("submit", True),
        ("SUBMIT", True),
        ("nothing", False),
        ("not nothing", True),
        ("forms and contact", True),
        ("forms and not contact", False),
        ("nothing or contact", True),
        ("not (forms or nothing)", False),
        ("(nothing or forms) and (contact)", True),
        ("not not forms", True),
        ("trails/forms/", True),
        ("", True),
    ],
)
def test_keyword_expressions(expression: str, expected: bool) -> None:
    assert keyword_matcher(expression)(NAMES) is expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("and", "expected a word, 'not' or '(', found 'and' at column 1"),
        ("forms and", "expected a word, 'not' or '(', found the end"),
        ("(forms", "expected ')', found the end"),
        ("forms)", "expected 'and', 'or' or the end, found ')' at column 6"),
        ("forms contact", "found 'contact' at column 7"),
        ("(" * 60 + "x" + ")" * 60, "nested more than 50 deep"),
        ("x " * 600, "longer than 1000 characters"),
    ],
)
def test_malformed_expressions_are_named(expression: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        keyword_matcher(expression)
    assert message in str(caught.value)


def test_tags_are_comma_separated_and_repeatable() -> None:
    assert split_tags(["smoke,forms", " about ", ",,"]) == ["smoke", "forms", "about"]


def ran(result_json: dict[str, object]) -> list[str]:
    return sorted(t["id"] for t in result_json["trails"])  # type: ignore[attr-defined,index]


@pytest.mark.browser
def test_k_and_tags_choose_trails_and_the_rest_are_deselected(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "passes", "fails", "flaky")
    result = cli("run", "-p", "flaky_tools", "-k", "about and not heading", "--json", "r.json")
    assert result.returncode == 0, result.output
    assert ran(result.json("r.json")) == ["passes"]
    assert result.json("r.json")["summary"]["deselected"] == 2
    assert "1 passed, 2 deselected" in result.stdout
    result = cli("run", "-p", "flaky_tools", "--include-tags", "smoke", "--exclude-tags", "flaky", "--json", "r.json")
    assert ran(result.json("r.json")) == ["passes"], result.output
    result = cli("run", "-p", "flaky_tools", "--include-tags", "broken,about", "--json", "r.json")
    assert ran(result.json("r.json")) == ["fails", "passes"], result.output
    result = cli("run", "-k", "nothing-matches")
    assert result.returncode == 3 and "no trails selected: all 3 were deselected" in result.stderr
    result = cli("run", "-k", "about and")
    assert result.returncode == 3 and "-k 'about and': expected a word" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.browser
def test_last_failed_runs_what_failed_last_time(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "passes", "fails")
    first = cli("run", "--lf", "--json", "r.json")
    assert first.returncode == 1 and ran(first.json("r.json")) == ["fails", "passes"]
    assert "last-failed: no record of a previous run; running all trails" in first.stderr
    stored = json.loads((project.root / ".trailblaze" / "lastfailed.json").read_text())
    assert stored["failed"] == ["fails"]
    second = cli("run", "--last-failed", "--json", "r.json")
    assert second.returncode == 1 and ran(second.json("r.json")) == ["fails"]
    assert second.json("r.json")["summary"]["deselected"] == 1
    assert "running the 1 trail(s) that failed last time" in second.stderr
    project.trail(
        "fails", "config: {id: fails}\ntrail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: /}}]\n"
    )
    third = cli("run", "--lf", "--json", "r.json")
    assert third.returncode == 0 and ran(third.json("r.json")) == ["fails"], third.output
    fourth = cli("run", "--lf", "--json", "r.json")
    assert "last-failed: none failed; running all trails" in fourth.stderr
    assert ran(fourth.json("r.json")) == ["fails", "passes"]


def test_list_prints_what_would_run_without_opening_a_device(cli: CliRunner, project: Project) -> None:
    ci_project(project, "passes", "fails", "flaky")
    result = cli("run", "--list", "--include-tags", "smoke", "-p", "flaky_tools", "--driver", "web")
    assert result.returncode == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["id", "tags", "driver", "path"]
    assert lines[1].split() == ["flaky", "smoke,flaky", "playwright-native", "trails/flaky.trail.yaml"]
    assert lines[2].split() == ["passes", "smoke,about", "playwright-native", "trails/passes.trail.yaml"]
    assert lines[3] == "2 trails, 1 deselected"
    assert "\x1b" not in result.stdout and not (project.root / ".trailblaze" / "lastfailed.json").exists()


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("dev-zero", "lastfailed.json: not a regular file (a character device)"),  # grew a run to 24 GB
        ("fifo", "lastfailed.json: not a regular file (a FIFO)"),  # hung the run, SIGTERM ignored
        ("deep", "lastfailed.json:1:101: not JSON: JSON nested more than 100 levels deep"),  # was exit 4
        ("garbage", "lastfailed.json:1:1: not JSON: "),
        ("wrong-shape", 'lastfailed.json: expected {"failed": [trail ids]}'),
    ],
)
def test_a_damaged_lastfailed_record_is_a_warning_not_a_failed_run(
    cli: CliRunner, tmp_path: Path, damage: str, said: str
) -> None:
    null_project(tmp_path, 2)
    record = tmp_path / ".trailblaze" / "lastfailed.json"
    record.parent.mkdir()
    if damage == "dev-zero":
        record.symlink_to("/dev/zero")
    elif damage == "fifo":
        os.mkfifo(record)
    else:
        record.write_text({"deep": "[" * 100_000, "garbage": "\x00", "wrong-shape": "[1]"}[damage], encoding="utf-8")
    plain = cli("run", *NULL, timeout=60)
    assert plain.returncode == 0, plain.output
    assert f"{said}" in plain.stderr and "it is written afresh" in plain.stderr
    assert "Traceback" not in plain.output
    chosen = cli("run", *NULL, "--lf", timeout=60)
    assert chosen.returncode == 0, chosen.output
    if damage in ("dev-zero", "fifo"):  # written into, never replaced: still what the user made it
        assert "last-failed: cannot use the record of the previous run" in chosen.stderr
    else:  # the first run wrote a good one
        assert json.loads(record.read_text()) == {"version": 1, "failed": []}
        assert "last-failed: none failed; running all trails" in chosen.stderr


@pytest.mark.browser
def test_the_lastfailed_record_replaces_a_link_and_leaves_what_it_pointed_to(
    cli: CliRunner, project: Project, browser: str
) -> None:
    """git keeps links: a cloned repository can aim `.trailblaze/lastfailed.json` at any file the
    CI user may write. The run's record replaces the link; that file is left as it was."""
    ci_project(project, "passes", "fails")
    users = project.root / "precious.txt"
    users.write_text("the user's\n")
    (project.root / ".trailblaze").mkdir()
    (project.root / ".trailblaze" / "lastfailed.json").symlink_to(users)
    result = cli("run", "--json", "r.json")
    assert result.returncode == 1, result.output
    assert users.read_text() == "the user's\n"
    record = project.root / ".trailblaze" / "lastfailed.json"
    assert not record.is_symlink() and json.loads(record.read_text())["failed"] == ["fails"]
