"""``trailblaze merge-reports``: CI shards' reports joined as if one run had run every trail.

Reports come from real runs (the null driver, and the example web trails in a real browser),
through the real command line."""

from __future__ import annotations

import base64
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from test_shard import NULL, null_project

from tests.support.ci_project import ci_project
from tests.support.cli import ROOT, CliResult, CliRunner, Project, cli_env

pytestmark = pytest.mark.slow


def summary(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document["summary"].items() if k != "duration_ms"}


def outcome(document: dict[str, Any]) -> list[tuple[str, str, str | None, str, int]]:
    return sorted((t["id"], t["driver"], t["device"], t["status"], t["exit_code"]) for t in document["trails"])


@pytest.fixture(scope="module")
def one_passed_trail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run's report of one passing trail (the null driver), made once for the module:
    the tests that garble a copy of it test the merge, not the run."""
    root = tmp_path_factory.mktemp("one-passed")
    null_project(root, 1)
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", *NULL, "--json", "good.json"],
        cwd=root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return root / "good.json"


def good_report(into: Path, source: Path) -> None:
    """The null project of one trail in ``into``, with its run's report as ``good.json``."""
    null_project(into, 1)
    shutil.copy(source, into / "good.json")


@pytest.mark.browser
def test_two_shards_of_the_example_trails_merged_equal_one_run(cli: CliRunner, tmp_path: Path, browser: str) -> None:
    def run(name: str, *options: str) -> CliResult:
        """One job: its report in ``NAME/r.json``, its artifacts in a folder of its own."""
        report, artifacts = tmp_path / name / "r.json", tmp_path / "artifacts" / name
        return cli("run", "--artifacts-dir", str(artifacts), "--json", str(report), *options, cwd=ROOT)

    # the three runs side by side, as CI's jobs would be (the trails mostly wait on the page)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        started = [pool.submit(run, "all")]
        started += [pool.submit(run, f"s{index}", "--shard", f"{index}/2") for index in (1, 2)]
        whole, *shards = [future.result() for future in started]
    for shard in shards:
        assert shard.returncode in (0, 1), shard.output
    merged = cli(
        "merge-reports", "s1", str(tmp_path / "s2" / "r.json"), "--json", "merged.json", "--junit", "merged.xml"
    )
    assert merged.returncode == whole.returncode == 0, merged.output + whole.output
    expected, got = json.loads((tmp_path / "all" / "r.json").read_text(encoding="utf-8")), merged.json("merged.json")
    assert outcome(got) == outcome(expected)
    assert summary(got) == {**summary(expected), "flaky": 0}
    assert got["exit_code"] == expected["exit_code"]
    suite = ET.parse(tmp_path / "merged.xml").getroot()
    assert suite.get("tests") == str(len(expected["trails"])) and suite.get("failures") == "0"


def test_a_trail_that_failed_in_one_shard_and_passed_in_another_is_flaky(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 3, fail={1})
    first = cli("run", *NULL, "--json", "first.json")
    assert first.returncode == 1
    null_project(tmp_path, 3)  # the retry, elsewhere: now it passes
    retry = cli("run", *NULL, "trails/t01.trail.yaml", "--json", "retry.json")
    assert retry.returncode == 0, retry.output
    merged = cli("merge-reports", "first.json", "retry.json", "--json", "merged.json", "--html=merged.html")
    assert merged.returncode == 0, merged.output
    document = merged.json("merged.json")
    assert [t["id"] for t in document["trails"]] == ["t00", "t01", "t02"]  # counted once
    flaky = document["trails"][1]
    assert flaky["status"] == "flaky" and flaky["exit_code"] == 0
    assert [a["status"] for a in flaky["attempts"]] == ["failed"]  # the runs that did not pass
    assert "no 'Nowhere' on screen" in flaky["attempts"][0]["error"]
    assert flaky["attempts"][0]["failing_step"] == {"index": 0, "kind": "step", "text": "tap"}  # where it failed
    assert document["summary"]["flaky"] == 1 and document["summary"]["passed"] == 2
    assert "flaky" in (tmp_path / "merged.html").read_text(encoding="utf-8")
    assert "3 trails (2 passed, 1 flaky)" in merged.stdout


def test_failed_twice_stays_failed_and_the_merge_exits_1(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 2, fail={0})
    for name in ("a.json", "b.json"):
        assert cli("run", *NULL, "--json", name).returncode == 1
    merged = cli("merge-reports", "a.json", "b.json", "--json", "merged.json", "--junit", "merged.xml")
    assert merged.returncode == 1
    document = merged.json("merged.json")
    assert [(t["id"], t["status"], len(t["attempts"])) for t in document["trails"]] == [
        ("t00", "failed", 1),  # the other shard's failure, before the final one
        ("t01", "passed", 0),  # passed in both: one passed trail, nothing to rerun
    ]
    suite = ET.parse(tmp_path / "merged.xml").getroot()
    assert suite.get("failures") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert len(cases) == 2 and [c.tag for c in cases["t01"] if "Failure" in c.tag or c.tag == "failure"] == []
    assert "rerunFailure" in [child.tag for child in cases["t00"]]


def test_a_missing_shard_is_named(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 4)
    assert cli("run", *NULL, "--shard", "1/3", "--json", "s1.json").returncode == 0
    merged = cli("merge-reports", "s1.json")
    assert merged.returncode == 0
    assert "warning: shard 2/3, 3/3 missing" in merged.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "missing.json: file not found"),
        ("{\n  not json", "bad.json:2:3: not JSON: "),
        ('{"version": 1}', "bad.json: not a results JSON document (no trails list)"),
        ('{"version": 7, "trails": []}', "bad.json: not a results JSON document (version 7;"),
        ("[" * 10_000, "bad.json:1:101: not JSON: JSON nested more than 100 levels deep"),  # was exit 4
        ("fifo", "bad.json: not a regular file (a FIFO); JSON is only read from files"),  # hung
        ("/dev/zero", "bad.json: not a regular file (a character device)"),  # grew without end
        ('{"trails": []}' + " " * 30_000, "bad.json: the file is larger than 20000 bytes"),  # 1 GB took 4.2 GB
        (
            '{"trails": [],\n "x": ' + "9" * 5000 + "}",
            "bad.json:2:7: not JSON: a number with too many digits",
        ),  # exit 4
    ],
)
def test_a_missing_or_garbled_input_is_misuse_named(
    cli: CliRunner, tmp_path: Path, one_passed_trail: Path, content: str | None, message: str
) -> None:
    good_report(tmp_path, one_passed_trail)
    name = "missing.json" if content is None else "bad.json"
    if content == "fifo":
        os.mkfifo(tmp_path / name)
    elif content == "/dev/zero":
        (tmp_path / name).symlink_to(content)
    elif content is not None:
        (tmp_path / name).write_text(content, encoding="utf-8")
    merged = cli(
        "merge-reports", "good.json", name, "--json", "merged.json", env={"TRAILBLAZE_MAX_FILE_BYTES": "20000"}
    )
    assert merged.returncode == 3
    assert message in merged.stderr
    assert "Traceback" not in merged.output
    assert not (tmp_path / "merged.json").exists()


def test_a_report_written_over_one_of_its_inputs_is_misuse(
    cli: CliRunner, tmp_path: Path, one_passed_trail: Path
) -> None:
    """`merge-reports a.json b.json --json a.json` used to replace the shard a.json with the
    merged document, silently (`--junit` and `--html` refuse a file that is not theirs); the
    folder an input was found in counts too."""
    option = "--json"
    good_report(tmp_path, one_passed_trail)
    shutil.copy(tmp_path / "good.json", tmp_path / "other.json")
    (tmp_path / "shards").mkdir()
    shutil.copy(tmp_path / "good.json", tmp_path / "shards" / "s1.json")
    before = (tmp_path / "good.json").read_bytes()
    for inputs, output in ((["good.json", "other.json"], "good.json"), (["shards"], "shards/s1.json")):
        merged = cli("merge-reports", *inputs, f"{option}={output}")
        assert merged.returncode == 3, merged.output
        assert f"{option} {output}: " in merged.stderr and "which the report would replace" in merged.stderr
    assert (tmp_path / "good.json").read_bytes() == before


def test_a_folder_without_reports_is_misuse(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "empty" / "snapshots").mkdir(parents=True)
    (tmp_path / "empty" / "snapshots" / "tree.json").write_text("[1, 2]", encoding="utf-8")
    os.mkfifo(tmp_path / "empty" / "pipe.json")  # not read: opening it waited for a writer for ever
    (tmp_path / "empty" / "zero.json").symlink_to("/dev/zero")
    merged = cli("merge-reports", "empty", timeout=60)
    assert merged.returncode == 3
    assert "empty: no results JSON in this folder" in merged.stderr


def test_folders_of_downloaded_artifacts_are_searched(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 4)
    for index in (1, 2):
        assert (
            cli("run", *NULL, "--shard", f"{index}/2", "--json", f"downloaded/shard-{index}/results.json").returncode
            == 0
        )
    shutil.copy(tmp_path / "trailblaze.yaml", tmp_path / "downloaded" / "not-a-report.json")
    merged = cli("merge-reports", "downloaded", "--json", "merged.json")
    assert merged.returncode == 0, merged.output
    document = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert len(document["trails"]) == 4 and document["summary"]["passed"] == 4
    assert [m["shard"] for m in document["merged_from"]] == [{"index": 1, "total": 2}, {"index": 2, "total": 2}]


@pytest.mark.browser
def test_evidence_of_downloaded_shards_is_found_and_carried_into_every_merged_report(
    cli: CliRunner, project: Project, browser: str
) -> None:
    ci_project(project, "passes", "fails")
    for index in (1, 2):
        shard = (f"--shard={index}/2", f"--json=reports/shard-{index}.json", f"--artifacts-dir=reports/shard-{index}")
        shard = (*shard, "--trace=retain-on-failure")
        assert cli("run", "-p", "flaky_tools", *shard).returncode in (0, 1)
    (project.root / "ci").mkdir()
    shutil.move(project.root / "reports", project.root / "ci" / "all-reports")  # where the merge job downloads them
    merged = cli(
        "merge-reports", "ci/all-reports", "--json", "merged.json", "--junit", "merged.xml", "--html=out/report.html"
    )
    assert merged.returncode == 1, merged.output
    assert "not here" not in merged.stderr
    fails = next(t for t in merged.json("merged.json")["trails"] if t["id"] == "fails")
    paths = [a["path"] for step in fails["steps"] for a in step["artifacts"]] + [a["path"] for a in fails["artifacts"]]
    assert any(p.endswith(".png") for p in paths) and any(p.endswith("trace.zip") for p in paths), paths
    assert all(p.startswith("ci/all-reports/shard-") and (project.root / p).is_file() for p in paths), paths
    junit = (project.root / "merged.xml").read_text(encoding="utf-8")
    assert all(f"[[ATTACHMENT|{p}]]" in junit for p in paths)
    page = (project.root / "out" / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in page  # the screenshot, inlined
    trace = next(p for p in paths if p.endswith("trace.zip"))
    assert f'href="data/merged/{trace}"' in page and (project.root / "out" / "data" / "merged" / trace).is_file()
    # the failure message names the files where they are now, not where the shard wrote them
    named = re.findall(r"(?:evidence|trace): (.+)", fails["error"])
    files = [f for line in named for f in line.split(", ")]
    assert len(files) >= 2 and all(f.startswith("ci/all-reports/shard-") for f in files), fails["error"]
    assert all((project.root / f).is_file() for f in files), files
    # a shard's artifacts folder as the input: its JSON is the one beside it that names it
    by_folder = cli(
        "merge-reports", "ci/all-reports/shard-1", "ci/all-reports/shard-2.json", "--json", "by-folder.json"
    )
    assert by_folder.returncode == 1 and "not here" not in by_folder.stderr, by_folder.output
    assert by_folder.json("by-folder.json")["trails"] == merged.json("merged.json")["trails"]


def test_a_report_written_inside_its_artifacts_folder_finds_its_evidence_after_a_move(
    cli: CliRunner, project: Project, browser: str
) -> None:
    ci_project(project, "fails")
    assert cli("run", "-p", "flaky_tools", "--json=ci/s1/results.json", "--artifacts-dir=ci/s1").returncode == 1
    shutil.move(project.root / "ci", project.root / "downloaded")
    merged = cli("merge-reports", "downloaded/s1", "--json", "merged.json")
    assert merged.returncode == 1 and "not here" not in merged.stderr, merged.output
    [trail] = merged.json("merged.json")["trails"]
    paths = [a["path"] for step in trail["steps"] for a in step["artifacts"]]
    assert paths and all(p.startswith("downloaded/s1/") and (project.root / p).is_file() for p in paths), paths


def test_a_shards_evidence_folder_that_is_not_here_is_a_warning(cli: CliRunner, project: Project, browser: str) -> None:
    ci_project(project, "fails")
    assert cli("run", "-p", "flaky_tools", "--json", "r.json", "--artifacts-dir", "gone").returncode == 1
    shutil.rmtree(project.root / "gone")
    merged = cli("merge-reports", "r.json", "--json", "merged.json")
    assert merged.returncode == 1
    assert "r.json: its evidence folder gone is not here" in merged.stderr, merged.stderr
    [trail] = merged.json("merged.json")["trails"]
    assert all(a["path"].startswith("gone/") for step in trail["steps"] for a in step["artifacts"])


# -- hostile shards: evidence outside the shard's folder, numbers JSON cannot hold, wrong types ---------


def shard_with_evidence(report: Path, root: Path, artifacts_dir: str, paths: list[str]) -> Path:
    """A real shard's report (``report``, of the null driver) whose first step lists ``paths``
    as its evidence in ``artifacts_dir``, as a hostile or broken job could write it."""
    null_project(root, 1)
    document = json.loads(report.read_text(encoding="utf-8"))
    document["artifacts_dir"] = artifacts_dir
    document["trails"][0]["steps"][0]["artifacts"] = [{"kind": "screenshot", "path": p} for p in paths]
    (root / "shard.json").write_text(json.dumps(document), encoding="utf-8")
    return root / "shard.json"


HOSTILE = ["/proc/self/environ", "../../secret.txt", "t00/../../secret.txt", "t00/link", "t00/fifo", "t00/gone.png"]


def test_merge_publishes_only_regular_files_inside_the_shards_evidence_folder(
    cli: CliRunner, tmp_path: Path, one_passed_trail: Path
) -> None:
    secret = "s3cr3t-token-of-the-merge-job"
    (tmp_path / "secret.txt").write_text(secret)
    folder = tmp_path / "shard-1" / "t00"
    folder.mkdir(parents=True)
    (folder / "step-1.png").write_bytes(b"\x89PNG\r\n\x1a\nthe real screenshot")
    (folder / "link").symlink_to(tmp_path / "secret.txt")
    os.mkfifo(folder / "fifo")  # never opened: a FIFO would hang the merge
    shard_with_evidence(one_passed_trail, tmp_path, "shard-1", ["t00/step-1.png", *HOSTILE, "/proc/self/environ"])
    merged = cli(
        "merge-reports",
        "shard.json",
        "--json",
        "m.json",
        "--junit",
        "m.xml",
        "--html=out/index.html",
        env={"MERGE_JOB_TOKEN": secret},
        timeout=60,
    )
    assert merged.returncode == 0, merged.output
    for entry in HOSTILE:  # one warning per entry, naming it
        assert merged.stderr.count(f"shard.json: evidence {entry!r} left out: ") == 1, merged.stderr
    step = merged.json("m.json")["trails"][0]["steps"][0]
    assert step["artifacts"] == [{"kind": "screenshot", "path": "shard-1/t00/step-1.png"}]
    assert (
        "ATTACHMENT|shard-1/t00/step-1.png" in (tmp_path / "m.xml").read_text()
        and "secret" not in (tmp_path / "m.xml").read_text()
    )
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in written) == [
        "data/merged/shard-1/t00/step-1.png",
        "index.html",
    ]
    assert all(secret.encode() not in p.read_bytes() for p in written)
    inlined = base64.b64encode((folder / "step-1.png").read_bytes()).decode()
    assert f"data:image/png;base64,{inlined}" in (tmp_path / "out" / "index.html").read_text()


@pytest.mark.parametrize("artifacts_dir", ["/", "/proc/self", "..", ".", str(Path.home())])
def test_a_shard_cannot_name_a_host_folder_as_its_evidence_folder(
    cli: CliRunner, tmp_path: Path, one_passed_trail: Path, artifacts_dir: str
) -> None:
    (tmp_path / "secret.txt").write_text("host file")
    shard_with_evidence(one_passed_trail, tmp_path, artifacts_dir, ["environ", "secret.txt", "etc/hostname"])
    merged = cli("merge-reports", "shard.json", "--json", "m.json", "--html=out/index.html", timeout=60)
    assert merged.returncode == 0, merged.output
    assert f"its evidence folder {artifacts_dir} is not a folder of the shard's own" in merged.stderr
    assert merged.json("m.json")["trails"][0]["steps"][0]["artifacts"] == []
    assert sorted(p.name for p in (tmp_path / "out").rglob("*") if p.is_file()) == ["index.html"]
    page = (tmp_path / "out" / "index.html").read_text()
    assert "host file" not in page and "base64" not in page


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d["trails"][0].update(duration_ms="NAN_HERE"), "trails.0.duration_ms"),
        (lambda d: d["trails"][0]["steps"][0].update(duration_ms="INF_HERE"), "trails.0.steps.0.duration_ms"),
        (lambda d: d["summary"].update(duration_ms="INF_HERE"), "summary.duration_ms"),
        (lambda d: d["trails"][0].update(anything_new=["NAN_HERE"]), "trails.0.anything_new.0"),
        (lambda d: d["trails"][0].update(status="weird"), "trails.0.status"),
        (lambda d: d["trails"][0]["steps"][0].update(index="0"), "trails.0.steps.0.index"),
        (lambda d: d["trails"][0].update(recording_saved="yes"), "trails.0.recording_saved"),
        (lambda d: d["trails"][0]["steps"][0]["tools"][0].update(duration_ms=1e300), "trails.0.steps.0.tools.0"),
        (lambda d: d["trails"][0].update(attempts=[{"status": "failed", "duration_ms": -1}]), "trails.0.attempts.0"),
        (lambda d: d.update(shard={"index": "1", "total": 2}), "shard.index"),
    ],
)
def test_numbers_json_cannot_hold_and_wrong_types_are_misuse_naming_file_and_field(
    cli: CliRunner, tmp_path: Path, one_passed_trail: Path, edit: Any, field: str
) -> None:
    good_report(tmp_path, one_passed_trail)
    document = json.loads((tmp_path / "good.json").read_text(encoding="utf-8"))
    edit(document)
    text = json.dumps(document).replace('"NAN_HERE"', "NaN").replace('"INF_HERE"', "1e999")
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    merged = cli("merge-reports", "good.json", "bad.json", "--json", "m.json", "--html=m.html")
    assert merged.returncode == 3, merged.output
    assert f"bad.json: not a results JSON document ({field}" in merged.stderr
    assert "Traceback" not in merged.output
    assert not (tmp_path / "m.json").exists() and not (tmp_path / "m.html").exists()


def test_a_shards_messages_are_cut_as_a_runs_are(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 1, fail={0})
    assert cli("run", *NULL, "--json", "shard.json").returncode == 1
    document = json.loads((tmp_path / "shard.json").read_text(encoding="utf-8"))
    document["trails"][0]["error"] = "x" * 100_000
    document["trails"][0]["steps"][0]["tools"][0]["error"] = "y" * 100_000
    (tmp_path / "shard.json").write_text(json.dumps(document), encoding="utf-8")
    merged = cli("merge-reports", "shard.json", "--json", "m.json", env={"TRAILBLAZE_MAX_MESSAGE_CHARS": "500"})
    assert merged.returncode == 1, merged.output
    trail = merged.json("m.json")["trails"][0]
    assert trail["error"].startswith("x" * 500 + "… (99500 more characters not shown)")
    assert len(trail["steps"][0]["tools"][0]["error"]) < 600


COUNTING_REPORTER = """
import trailblaze


class Counts:
    def __init__(self, path):
        self.path = path

    @trailblaze.hookimpl
    def trailblaze_run_finish(self, run, result):
        counts = [run.config.command, len(result.trails), result.count("passed"), int(result.exit_code)]
        with open(self.path, "w", encoding="utf-8") as out:
            out.write(" ".join(str(c) for c in [*counts, len(result.merged_from)]))


@trailblaze.hookimpl
def trailblaze_addoption(parser):
    parser.getgroup("reporting").addoption("--counts", metavar="FILE", commands=("run", "merge-reports"))


@trailblaze.hookimpl
def trailblaze_configure(config):
    if config.getoption("counts"):
        config.pluginmanager.register(Counts(config.getoption("counts")), "counts")
"""


def test_a_plugins_reporter_writes_the_merged_run_as_it_writes_a_run(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 3, fail={1})
    for index in (1, 2):
        assert cli("run", *NULL, "--shard", f"{index}/2", "--json", f"s{index}.json").returncode in (0, 1)
    (tmp_path / "counting.py").write_text(COUNTING_REPORTER, encoding="utf-8")
    # -p after the command's name counts: the plugin's option is the command's
    merged = cli("merge-reports", "s1.json", "s2.json", "-p", "counting", "--counts", "counts.txt")
    assert merged.returncode == 1, merged.output
    assert (tmp_path / "counts.txt").read_text(encoding="utf-8") == "merge-reports 3 2 1 2"
    assert merged.stdout == "merged 2 report(s): 3 trails (2 passed, 1 failed)\n"  # the terminal reporter stays out


def test_the_merged_json_to_stdout_is_the_document_alone(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 2)
    assert cli("run", *NULL, "--json", "s1.json").returncode == 0
    merged = cli("merge-reports", "s1.json", "--json", "-")
    assert merged.returncode == 0, merged.output
    assert [t["id"] for t in json.loads(merged.stdout)["trails"]] == ["t00", "t01"]
    assert "merged 1 report(s): 2 trails (2 passed)" in merged.stderr
