"""The reporters: ``--json`` (json_report), ``--junit`` (junit_report) and the terminal.

The JSON document is checked against the example in the README, which is the contract users
read: every object must have exactly the keys the example shows, with the documented types.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import ROOT, CliResult, CliRunner, Project, cli_env

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STATUSES = {"passed", "failed", "error", "skipped", "healed", "incomplete", "flaky"}


def readme_example() -> dict[str, Any]:
    """The example of the reports page (docs/reports.md), the documented contract."""
    page = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    section = page.split("## JSON", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the reports page's JSON section has no ```json example"
    example: dict[str, Any] = json.loads(block.group(1))
    return example


EXAMPLE = readme_example()
KEYS = {
    "document": set(EXAMPLE),
    "summary": set(EXAMPLE["summary"]),
    "trail": set(EXAMPLE["trails"][0]),
    "step": set(EXAMPLE["trails"][0]["steps"][0]),
    "tool": set(EXAMPLE["trails"][0]["steps"][0]["tools"][0]),
    "attempt": set(EXAMPLE["trails"][0]["attempts"][0]),
}


#: document keys only some runs have
OPTIONAL = {"shard"}


def test_the_readme_example_documents_every_required_key() -> None:
    assert {"version", "summary", "trails"} <= KEYS["document"]
    assert {"passed", "failed", "error", "skipped", "duration_ms"} <= KEYS["summary"]
    assert {"path", "id", "title", "status", "driver", "device", "duration_ms", "error", "steps"} <= KEYS["trail"]
    assert {"index", "kind", "text", "status", "duration_ms", "error", "tools"} <= KEYS["step"]
    assert {"name", "args", "status", "duration_ms", "delegated_from"} <= KEYS["tool"]


def check_document(document: dict[str, Any]) -> None:
    """Fail unless ``document`` has exactly the README's shape."""
    assert set(document) | OPTIONAL == KEYS["document"] | OPTIONAL  # "shard": only with --shard
    assert document["version"] == 1
    summary = document["summary"]
    assert set(summary) == KEYS["summary"]
    for status in STATUSES:
        assert summary[status] == sum(1 for t in document["trails"] if t["status"] == status)
    assert isinstance(summary["deselected"], int)
    assert isinstance(summary["duration_ms"], float | int)
    assert summary["duration_ms"] >= 0
    assert isinstance(document["exit_code"], int)
    assert isinstance(document["interrupted"], bool)
    for trail in document["trails"]:
        assert set(trail) == KEYS["trail"], trail["id"]
        assert trail["status"] in STATUSES
        for key in ("path", "id", "title", "driver"):
            assert isinstance(trail[key], str)
        assert trail["device"] is None or isinstance(trail["device"], str)
        assert (trail["error"] is None) == (trail["status"] in ("passed", "skipped"))
        assert isinstance(trail["tags"], list)
        assert isinstance(trail["recording_saved"], bool)
        assert isinstance(trail["attempts"], list)
        assert (trail["status"] != "flaky") or trail["attempts"]
        for attempt in trail["attempts"]:
            assert set(attempt) == KEYS["attempt"]
            assert attempt["status"] in ("failed", "error")
        assert (trail["skip_reason"] is not None) == (trail["status"] == "skipped")
        indexes = [s["index"] for s in trail["steps"] if s["kind"] != "trailhead"]
        assert indexes == list(range(len(indexes)))
        for step in trail["steps"]:
            assert set(step) == KEYS["step"]
            assert step["kind"] in ("step", "verify", "trailhead")
            assert (step["index"] == -1) == (step["kind"] == "trailhead")
            assert step["status"] in STATUSES
            assert isinstance(step["text"], str)
            assert isinstance(step["attempts"], int)
            assert isinstance(step["recorded"], bool)
            assert step["agent"] is None or isinstance(step["agent"], dict)
            assert step["attempts"] >= 1
            for artifact in [*step["artifacts"], *trail["artifacts"]]:
                assert set(artifact) == {"kind", "path"}
                assert artifact["kind"] in ("screenshot", "hierarchy", "console", "trace")
                assert not artifact["path"].startswith("/")
            for tool in step["tools"]:
                assert set(tool) == KEYS["tool"]
                assert isinstance(tool["name"], str)
                assert isinstance(tool["args"], dict)
                assert tool["status"] in STATUSES
                assert isinstance(tool["duration_ms"], float | int)
                assert isinstance(tool["delegated_from"], list)
                assert isinstance(tool["recordable"], bool)


MIXED = {
    "a-passes": """
        config: {title: Passes, tags: [smoke]}
        trailhead:
          step: Open the forms page
          recording:
            web:
              web_navigate: {url: /forms.html}
        trail:
          - step: Type a name
            recording:
              web:
                - web_type: {text: Ada, nodeSelector: {web: {dataTestId: name-input}}}
          - verify: The name is in the field
            recording:
              web:
                - web_verifyValue: {expected: Ada, type: VALUE, ref: "css=#name"}
    """,
    "b-fails": """
        config: {title: Fails}
        trail:
          - step: Open the about page
            recording:
              web:
                - web_navigate: {url: /about.html}
          - verify: Something that is not there
            recording:
              web:
                - web_verifyTextVisible: {text: "root:x:0:0 [bold]nowhere[/bold]", timeoutMs: 100}
          - step: Never reached
            recording:
              web:
                - web_navigate: {url: /index.html}
    """,
    "c-errors": """
        config: {title: Errors}
        trail:
          - step: Open the about page
            recording:
              web:
                - web_navigate: {url: /about.html}
          - step: Run a shared trail that does not load
            recording:
              web:
                - runTrail: {path: shared/broken.yaml}
    """,
    "d-skipped": """
        config:
          title: Skipped
          skip: {web: the web page is not ready}
        trail:
          - step: Open
            recording:
              web:
                - web_navigate: {url: /about.html}
    """,
}


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory, browser: str) -> CliResult:
    """One run with a trail of every status, writing both reports."""
    root = tmp_path_factory.mktemp("mixed")
    project = Project(root)
    for name, text in MIXED.items():
        project.trail(name, text)
    project.write("trails/shared/broken.yaml", "trail:\n  - step: [this is not a step\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "trailblaze",
            "run",
            "--json",
            "out/results.json",
            "--junit",
            "out/results.xml",
            "--trace",
            "retain-on-failure",
        ],
        cwd=root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr, root)


def test_json_document_has_the_documented_shape(mixed_run: CliResult) -> None:
    assert mixed_run.returncode == 3, mixed_run.output  # the missing shared trail is the worst
    document = mixed_run.json("out/results.json")
    check_document(document)
    assert document["summary"] | {"duration_ms": 0} == {
        "passed": 1,
        "failed": 1,
        "error": 1,
        "skipped": 1,
        "healed": 0,
        "incomplete": 0,
        "flaky": 0,
        "deselected": 0,
        "duration_ms": 0,
    }
    assert (document["exit_code"], document["interrupted"]) == (3, False)
    trails = {t["id"]: t for t in document["trails"]}
    assert list(trails) == ["a-passes", "b-fails", "c-errors", "d-skipped"]

    passed = trails["a-passes"]
    assert (passed["path"], passed["title"], passed["tags"]) == ("trails/a-passes.trail.yaml", "Passes", ["smoke"])
    assert (passed["driver"], passed["device"]) == ("playwright-native", "chromium")
    assert [(s["index"], s["kind"], s["text"]) for s in passed["steps"]] == [
        (-1, "trailhead", "Open the forms page"),
        (0, "step", "Type a name"),
        (1, "verify", "The name is in the field"),
    ]
    tool = passed["steps"][1]["tools"][0]
    assert tool == {
        "name": "web_type",
        "args": {"text": "Ada", "nodeSelector": {"web": {"dataTestId": "name-input"}}},
        "status": "passed",
        "duration_ms": tool["duration_ms"],
        "delegated_from": [],
        "recordable": True,
        "error": None,
    }

    failed = trails["b-fails"]
    assert [s["status"] for s in failed["steps"]] == ["passed", "failed", "skipped"]
    assert failed["steps"][2]["tools"] == []
    first, *evidence = failed["error"].splitlines()
    assert first == f"trails/b-fails.trail.yaml:10: step 2 (Something that is not there): {failed['steps'][1]['error']}"
    shown = [f"{document['artifacts_dir']}/{a['path']}" for a in failed["steps"][1]["artifacts"]]
    assert evidence[0] == f"evidence: {', '.join(shown)}"
    assert evidence[1] == f"trace: {document['artifacts_dir']}/b-fails/trace.zip"
    assert [a["kind"] for a in failed["steps"][1]["artifacts"]] == ["screenshot", "hierarchy", "console"]
    assert failed["artifacts"] == [{"kind": "trace", "path": "b-fails/trace.zip"}]
    assert passed["artifacts"] == [] and all(s["artifacts"] == [] for s in passed["steps"])

    errored = trails["c-errors"]
    assert [s["status"] for s in errored["steps"]] == ["passed", "error"]
    assert errored["error"].startswith(
        "trails/c-errors.trail.yaml:10: step 2 (Run a shared trail that does not load): "
    )

    skipped = trails["d-skipped"]
    assert (skipped["steps"], skipped["skip_reason"]) == ([], "the web page is not ready")


def test_junit_has_one_testcase_per_trail(mixed_run: CliResult) -> None:
    document = mixed_run.json("out/results.json")
    trails = {t["id"]: t for t in document["trails"]}
    root = ET.parse(mixed_run.cwd / "out" / "results.xml").getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "trailblaze"
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "4",
        "failures": "1",
        "errors": "1",
        "skipped": "1",
    }
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == ["a-passes", "b-fails", "c-errors", "d-skipped"]
    for name, case in cases.items():
        assert case.get("classname") == "trails"
        assert case.get("file") == f"trails/{name}.trail.yaml"
        time = case.get("time") or ""
        assert re.fullmatch(r"\d+\.\d{3}", time), time
        assert float(time) == pytest.approx(trails[name]["duration_ms"] / 1000, abs=0.0006)
    assert [child.tag for child in cases["a-passes"]] == ["system-out"]
    (failure,) = cases["b-fails"].findall("failure")
    assert failure.get("message") == trails["b-fails"]["error"]
    assert failure.get("message", "").startswith(
        "trails/b-fails.trail.yaml:10: step 2 (Something that is not there): web_verifyTextVisible: "
    )
    attachments = re.findall(r"\[\[ATTACHMENT\|(.+?)\]\]", cases["b-fails"].findtext("system-out") or "")
    assert [Path(a).name for a in attachments] == ["step-2.png", "step-2.aria.yaml", "step-2.console.log", "trace.zip"]
    assert all((mixed_run.cwd / a).is_file() for a in attachments)
    assert "SKIPPED skip" not in (failure.text or "")
    assert "FAILED  verify 2: Something that is not there" in (failure.text or "")
    (error,) = cases["c-errors"].findall("error")
    assert error.get("message") == trails["c-errors"]["error"]
    (skipped,) = cases["d-skipped"].findall("skipped")
    assert skipped.get("message") == "the web page is not ready"
    system_out = cases["a-passes"].findtext("system-out") or ""
    assert "passed  web_type" in system_out


def test_reports_go_into_folders_that_do_not_exist_yet(mixed_run: CliResult) -> None:
    assert (mixed_run.cwd / "out" / "results.json").is_file()
    assert (mixed_run.cwd / "out" / "results.xml").is_file()


def test_junit_survives_text_xml_cannot_hold(cli: CliRunner, project: Project, browser: str) -> None:
    project.write(
        "noisy_tools.py",
        '''
import trailblaze


@trailblaze.tool(name="noisy_failure")
def noisy_failure() -> None:
    """Fail with terminal colours and a control character in the message."""
    raise trailblaze.ToolFailure("\\x1b[31mred\\x1b[0m and a bell \\x07 and a tab\\t <&>")


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(noisy_failure)
''',
    )
    project.trail(
        "noisy",
        """
        config: {title: "Text with \\x1b escapes"}
        trail:
          - step: Fail noisily
            recording:
              web:
                - noisy_failure
        """,
    )
    result = cli("run", "-p", "noisy_tools", "--junit", "results.xml", "--json", "results.json")
    assert result.returncode == 1, result.output
    case = ET.parse(project.root / "results.xml").getroot().find("testsuite/testcase")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None
    assert "red" in (failure.get("message") or "")
    assert "a tab <&>" in (failure.get("message") or "")
    assert "\x1b" in result.json()["trails"][0]["error"]  # JSON can hold anything


# -- secrets never reach the reports ------------------------------------------------------------------

SECRETS = {"literal": "literal-s3cret", "arg": "arg-s3cret", "env": "env-s3cret"}


def test_secrets_never_reach_the_reports(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail(
        "secrets",
        f"""
        config:
          args:
            password: {{type: string, default: placeholder}}
        trail:
          - step: Fill secrets in every way
            recording:
              web:
                - web_navigate: {{url: /forms.html}}
                - web_fillSecret: {{value: {SECRETS["literal"]}, ref: "css=#password"}}
                - web_fillSecret: {{value: "{{{{args.password}}}}", ref: "css=#password"}}
                - web_type: {{text: "${{TB_TEST_SECRET}}", nodeSelector: {{web: {{dataTestId: email-input}}}}}}
                - web_verifyValue: {{expected: "${{TB_TEST_SECRET}}", type: VALUE, ref: "css=#email"}}
        """,
    )
    project.trail(
        "secrets-in-failures",
        """
        trail:
          - step: A check on an environment value fails
            recording:
              web:
                - web_navigate: {url: /forms.html}
                - web_verifyTextVisible: {text: "Hello ${TB_TEST_SECRET}", timeoutMs: 100}
        """,
    )
    project.trail(
        "secret-value-in-failures",
        """
        trail:
          - step: A check reads a field holding a secret
            recording:
              web:
                - web_navigate: {url: /forms.html}
                - web_fillSecret: {value: "{{args.password}}", ref: "css=#password"}
                - web_verifyValue: {expected: other, type: VALUE, ref: "css=#password", timeoutMs: 1000}
        config:
          args:
            password: {type: string, default: placeholder}
        """,
    )
    result = cli(
        "run",
        "-vv",
        "--arg",
        f"password={SECRETS['arg']}",
        "--json",
        "results.json",
        "--junit",
        "results.xml",
        env={"TB_TEST_SECRET": SECRETS["env"]},
    )
    statuses = {t["id"]: t["status"] for t in result.json()["trails"]}
    assert statuses == {"secrets": "passed", "secrets-in-failures": "failed", "secret-value-in-failures": "failed"}
    written = {
        "results.json": (project.root / "results.json").read_text(encoding="utf-8"),
        "results.xml": (project.root / "results.xml").read_text(encoding="utf-8"),
        "the terminal": result.output,
    }
    for where, text in written.items():
        for kind, secret in SECRETS.items():
            assert secret not in text, f"the {kind} secret is in {where}"
    trails = {t["id"]: t for t in result.json()["trails"]}
    tools = trails["secrets"]["steps"][0]["tools"]
    assert [t["args"].get("value") for t in tools if t["name"] == "web_fillSecret"] == ["***", "***"]
    assert tools[3]["args"]["text"] == "${TB_TEST_SECRET}"  # shown as written
    failures = {name: t["error"] for name, t in trails.items() if t["error"]}
    assert "text 'Hello ***' visible: 0 elements matched" in failures["secrets-in-failures"]
    assert "value of ref 'css=#password' is '***', expected 'other'" in failures["secret-value-in-failures"]


# -- the terminal ----------------------------------------------------------------------------------------


def test_quiet_shows_only_failures_and_the_summary(mixed_run: CliResult, cli: CliRunner) -> None:
    result = cli("run", "-q", cwd=mixed_run.cwd)
    lines = result.stdout.splitlines()
    assert not any(line.startswith(("PASSED", "SKIPPED")) for line in lines)
    assert any(line.startswith("FAILED  b-fails") for line in lines)
    # text from the page and the trail is printed as it is: no emoji codes, no markup
    assert "text 'root:x:0:0 [bold]nowhere[/bold]' visible: 0 elements matched" in result.stdout
    assert any(line.startswith("ERROR   c-errors") for line in lines)
    assert lines[-1].startswith("1 passed, 1 failed, 1 error, 1 skipped in ")


def test_terminal_reporter_can_be_replaced(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail("one", MIXED["a-passes"])
    project.write(
        "dots.py",
        """
import trailblaze


@trailblaze.hookimpl
def trailblaze_trail_finish(trail, result, session):
    print("." if result.status == "passed" else "F", end="", flush=True)
""",
    )
    result = cli("run", "-p", "no:terminal", "-p", "dots")
    assert result.returncode == 0, result.output
    assert result.stdout == "."


def test_the_terminal_prints_text_from_trails_and_pages_as_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the terminal prints comes from trails, pages and servers: square brackets are not
    markup and ``:x:`` is not an emoji code, in the plain lines and in a terminal's table."""
    from trailblaze.api.results import RunResult, TrailResult
    from trailblaze.plugins.terminal import TerminalReporter

    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: a terminal, so the summary table is drawn
    monkeypatch.delenv("NO_COLOR", raising=False)
    reporter = TerminalReporter()
    failed = TrailResult("t.trail.yaml", "[red]trail[/red]", "t", "failed", "web", "chromium", error="root:x:0:0")
    passed = TrailResult("u.trail.yaml", "u:thumbs_up:", "u", "passed", "web", "chromium")
    reporter.trailblaze_trail_finish(trail=None, result=failed, session=None)  # type: ignore[arg-type]
    reporter.trailblaze_run_finish(run=None, result=RunResult([failed, passed]))  # type: ignore[arg-type]
    shown = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert "FAILED  [red]trail[/red]" in shown
    assert "        root:x:0:0" in shown
    assert shown.count("[red]trail[/red]") == 2  # the line and the table
    assert "u:thumbs_up:" in shown
    assert "❌" not in shown and "👍" not in shown


def test_a_report_that_cannot_be_written_is_exit_2_after_the_others_are(cli: CliRunner, project: Project) -> None:
    project.write("trailblaze.yaml", "driver: null-test\n")
    project.trail("t", "trail:\n  - step: Nothing to do\n    recording:\n      test: []\n")
    project.write("blocker", "a file where the report's folder would be\n")
    result = cli("run", "-p", "tests.support.null_driver", "--json", "blocker/r.json", "--junit", "out/r.xml")
    assert result.returncode == 2, result.output  # the trail passed: it used to be a traceback and exit 1
    assert result.stderr == "error: cannot write --json blocker/r.json: Not a directory\n"  # blocker is a file
    assert "Traceback" not in result.output
    assert ET.parse(project.root / "out" / "r.xml").getroot().get("tests") == "1"  # the other report is written


def test_reports_replace_a_link_left_where_they_go_and_leave_what_it_pointed_to(
    cli: CliRunner, project: Project
) -> None:
    """A link at a report's path (a repository can commit one) is replaced by the report; the
    earlier report it pointed to, elsewhere, is left as it was — JSON, JUnit and HTML alike."""
    project.write("trailblaze.yaml", "driver: null-test\n")
    project.trail("t", "trail:\n  - step: Nothing to do\n    recording:\n      test: []\n")
    first = cli("run", "-p", "tests.support.null_driver", "--json", "old/r.json", "--junit", "old/r.xml")
    assert first.returncode == 0, first.output
    first = cli("run", "-p", "tests.support.null_driver", "--html=old/index.html")
    assert first.returncode == 0, first.output
    kept = {name: (project.root / "old" / name).read_bytes() for name in ("r.json", "r.xml", "index.html")}
    (project.root / "new").mkdir()
    for name in kept:
        (project.root / "new" / name).symlink_to(project.root / "old" / name)
    args = ("--json", "new/r.json", "--junit", "new/r.xml", "--html=new/index.html")
    result = cli("run", "-p", "tests.support.null_driver", *args)
    assert result.returncode == 0, result.output
    for name, before in kept.items():
        assert (project.root / "old" / name).read_bytes() == before, name
        assert not (project.root / "new" / name).is_symlink(), name
