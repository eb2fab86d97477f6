"""``--retries``, ``--fail-on-flaky`` and ``-x``, end to end against the sample app."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.support.ci_project import ci_project
from tests.support.cli import CliRunner, Project

pytestmark = pytest.mark.browser


def test_a_trail_that_passes_on_a_retry_is_flaky_and_the_run_passes(
    cli: CliRunner, project: Project, browser: str
) -> None:
    ci_project(project, "passes", "flaky")
    result = cli("run", "-p", "flaky_tools", "--retries", "2", "--json", "r.json", "--junit", "r.xml")
    assert result.returncode == 0, result.output
    assert "FLAKY   flaky" in result.stdout and "after 2 attempts" in result.stdout
    assert "1 passed, 1 flaky" in result.stdout
    document = result.json("r.json")
    assert document["summary"]["flaky"] == 1 and document["summary"]["passed"] == 1
    trails = {t["id"]: t for t in document["trails"]}
    assert trails["passes"]["attempts"] == []
    assert trails["flaky"]["status"] == "flaky"
    [attempt] = trails["flaky"]["attempts"]
    assert attempt["status"] == "failed" and "first call fails" in attempt["error"]
    assert attempt["failing_step"] == {"index": 1, "kind": "step", "text": "Call the tool that fails once"}
    assert attempt["duration_ms"] > 0
    assert trails["flaky"]["error"] is None
    # --trace on-first-retry (the default): the first retry is traced and its trace kept, passed or not
    assert attempt["artifacts"] == [a for a in attempt["artifacts"] if a["kind"] != "trace"]
    assert trails["flaky"]["artifacts"] == [{"kind": "trace", "path": "flaky-retry1/trace.zip"}]
    assert (project.root / result.json("r.json")["artifacts_dir"] / "flaky-retry1" / "trace.zip").is_file()
    assert trails["passes"]["artifacts"] == []
    case = next(c for c in ET.parse(project.root / "r.xml").getroot().iter("testcase") if c.get("name") == "flaky")
    assert case.find("failure") is None
    [flaky_failure] = case.findall("flakyFailure")
    assert "first call fails" in (flaky_failure.get("message") or "")
    assert case.find("properties/property[@name='trailblaze.status']").get("value") == "flaky"  # type: ignore[union-attr]


def test_fail_on_flaky_makes_a_flaky_trail_fail_the_run(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "flaky")
    result = cli("run", "-p", "flaky_tools", "--retries", "1", "--fail-on-flaky", "--json", "r.json")
    assert result.returncode == 1, result.output
    assert result.json("r.json")["trails"][0]["status"] == "flaky"


def test_without_retries_the_flaky_trail_fails(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "flaky")
    result = cli("run", "-p", "flaky_tools", "--json", "r.json")
    assert result.returncode == 1, result.output
    trail = result.json("r.json")["trails"][0]
    assert trail["status"] == "failed" and trail["attempts"] == []


def test_retries_from_the_config_and_a_trail_that_keeps_failing(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "fails")
    project.write("trailblaze.yaml", "base_url: sample-app\nretries: 2\n")
    result = cli("run", "-p", "flaky_tools", "--json", "r.json", "--junit", "r.xml", "--artifacts-dir", "evidence")
    assert result.returncode == 1, result.output
    trail = result.json("r.json")["trails"][0]
    assert trail["status"] == "failed"
    assert [a["status"] for a in trail["attempts"]] == ["failed", "failed"]
    # every run keeps its evidence: the first in the trail's folder, each retry in <trail>-retryN
    folders = [{a["path"].split("/")[0] for a in attempt["artifacts"]} for attempt in trail["attempts"]]
    final = {a["path"].split("/")[0] for step in trail["steps"] for a in step["artifacts"]}
    assert [*folders, final] == [{"fails"}, {"fails-retry1"}, {"fails-retry2"}], (folders, final)
    traces = [[a["path"] for a in attempt["artifacts"] if a["kind"] == "trace"] for attempt in trail["attempts"]]
    assert [*traces, [a["path"] for a in trail["artifacts"]]] == [[], ["fails-retry1/trace.zip"], []]
    for attempt in trail["attempts"]:
        assert any(a["kind"] == "screenshot" for a in attempt["artifacts"])
        assert all((project.root / "evidence" / a["path"]).is_file() for a in attempt["artifacts"])
    case = ET.parse(project.root / "r.xml").getroot().find("testsuite/testcase")
    assert case is not None and case.find("failure") is not None
    assert len(case.findall("rerunFailure")) == 2
    assert cli("run", "--retries", "0", "--json", "r.json").json("r.json")["trails"][0]["attempts"] == []


def test_a_bad_retries_value_is_misuse(cli: CliRunner, project: Project) -> None:
    ci_project(project, "passes")
    result = cli("run", "--retries", "-1")
    assert result.returncode == 3 and "--retries" in result.stderr and "Traceback" not in result.output
    project.write("trailblaze.yaml", "base_url: sample-app\nretries: many\n")
    result = cli("run")
    assert result.returncode == 3 and "trailblaze.yaml:2" in result.stderr and "retries" in result.stderr


def test_only_the_json_report_goes_to_stdout(cli: CliRunner, project: Project) -> None:
    ci_project(project, "passes")
    for option, words in (("--junit", "JUnit XML is written to a file"), ("--html", "written to a folder or file")):
        refused = cli("run", option, "-")
        assert refused.returncode == 3 and f"{option} -: " in refused.stderr and words in refused.stderr
        assert not (project.root / "-").exists()


def test_exitfirst_reports_the_trails_that_never_ran_as_skipped(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "fails", "passes")  # "fails" sorts first
    result = cli("run", "-x", "--json", "-", "--junit", "r.xml")
    assert result.returncode == 1, result.output
    document = json.loads(result.stdout)
    statuses = {t["id"]: (t["status"], t["skip_reason"]) for t in document["trails"]}
    assert statuses["fails"] == ("failed", None)
    assert statuses["passes"][0] == "skipped" and "-x" in statuses["passes"][1]
    assert document["summary"]["skipped"] == 1
    assert "SKIPPED passes (not run: -x stopped the run after a failure)" in result.stderr
    root = ET.parse(project.root / "r.xml").getroot()
    assert root.get("skipped") == "1" and root.get("failures") == "1"
    assert cli("run", "--exitfirst", "--json", "r.json").json("r.json")["summary"]["skipped"] == 1
