"""Evidence of failed steps (the ``evidence`` plugin, ``--screenshot``) and Playwright traces
(the web driver's ``--trace``), through the CLI against a real Chromium."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import CliResult, CliRunner, Project

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = """
<!doctype html><title>Sign in</title>
<script>console.log("hello from the page"); console.error("something broke");</script>
<label>Password <input id="password"></label>
<button>Submit</button>
"""
FAILING = """
config: {id: sign-in}
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {url: page.html}
        - web_fillSecret: {value: "{{secret}}", nodeSelector: {web: {cssSelector: "#password"}}}
  - step: Press the button
    recording:
      web:
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Sumbit}}, timeoutMs: 300}
"""
PASSING = """
config: {id: passes}
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {url: page.html}
  - verify: The button is there
    recording:
      web:
        - web_verifyTextVisible: {text: Submit}
"""


def trace_lines(path: Path) -> list[str]:
    """The events of a Playwright trace, one JSON text each."""
    with zipfile.ZipFile(path) as trace:
        return trace.read("trace.trace").decode("utf-8").splitlines()


def run(project: Project, cli: CliRunner, *args: str) -> tuple[CliResult, dict[str, Any]]:
    """A run that keeps the trace of a failed trail (``--trace`` in ``args`` says otherwise)."""
    project.write("trails/page.html", PAGE)
    options = ("--json", "results.json", "--artifacts-dir", "evidence", "--trace", "retain-on-failure")
    result = cli("run", "trails/", *options, *args, cwd=project.root)
    return result, result.json()


def test_a_failed_step_leaves_a_screenshot_hierarchy_console_and_trace(project: Project, cli: CliRunner) -> None:
    project.trail("sign-in", FAILING.replace("{{secret}}", "hunter2-very-secret"))
    result, document = run(project, cli)
    assert result.returncode == 1, result.output
    (trail,) = document["trails"]
    step = trail["steps"][1]
    assert step["artifacts"] == [
        {"kind": "screenshot", "path": "sign-in/step-2.png"},
        {"kind": "hierarchy", "path": "sign-in/step-2.aria.yaml"},
        {"kind": "console", "path": "sign-in/step-2.console.log"},
    ]
    assert trail["artifacts"] == [{"kind": "trace", "path": "sign-in/trace.zip"}]
    assert document["trails"][0]["steps"][0]["artifacts"] == []  # passing steps: nothing
    folder = project.root / "evidence" / "sign-in"
    assert (folder / "step-2.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    aria = (folder / "step-2.aria.yaml").read_text()
    assert 'button "Submit"' in aria
    assert "hunter2-very-secret" not in aria  # the typed secret is on screen, masked
    console = (folder / "step-2.console.log").read_text().splitlines()
    assert console[0].startswith("[log] hello from the page")
    assert console[1].startswith("[error] something broke")
    with zipfile.ZipFile(folder / "trace.zip") as trace:
        names = trace.namelist()
        contents = b"".join(trace.read(name) for name in names)
    assert "trace.trace" in names and "trace.network" in names
    events = [json.loads(line) for line in trace_lines(folder / "trace.zip")]
    groups = [e.get("title") for e in events if e.get("method") == "tracingGroup"]
    assert groups == ["step 1: Open the page", "step 2: Press the button"]  # the trace reads like the trail
    # Playwright's trace records the fill call and the field's value: masked there too
    assert b"hunter2-very-secret" not in contents and b"hunter2" not in contents
    assert b'"value":"***"' in contents.replace(b" ", b"")
    # the failure message: the failing call's file:line, what was looked for and how many
    # elements matched, what is nearest (the rest of the page is the ARIA snapshot), where the
    # evidence is
    assert step["error"].endswith("': 0 elements matched within 0.3s; nearest on screen: button 'Submit'")
    assert step["error"].count("on screen") == 1
    lines = trail["error"].splitlines()
    assert lines[0].startswith("trails/sign-in.trail.yaml:11: step 2 (Press the button): web_click: ")
    assert lines[1:] == [
        "evidence: evidence/sign-in/step-2.png, evidence/sign-in/step-2.aria.yaml, evidence/sign-in/step-2.console.log",
        "trace: evidence/sign-in/trace.zip",
    ]
    assert "trace: evidence/sign-in/trace.zip" in result.stdout


def test_by_default_a_failed_trail_has_its_screenshot_and_aria_snapshot_but_no_trace(
    project: Project, cli: CliRunner
) -> None:
    """The default ``--trace on-first-retry`` (Playwright Test's): a run without ``--retries``
    records no trace; the failed step's evidence is kept all the same."""
    project.trail("sign-in", FAILING.replace("{{secret}}", "x"))
    project.write("trails/page.html", PAGE)
    result = cli("run", "trails/", "--json", "results.json", "--artifacts-dir", "evidence")
    assert result.returncode == 1, result.output
    (trail,) = result.json()["trails"]
    assert [a["kind"] for a in trail["steps"][1]["artifacts"]] == ["screenshot", "hierarchy", "console"]
    assert trail["artifacts"] == []
    assert sorted(p.name for p in (project.root / "evidence" / "sign-in").iterdir()) == [
        "step-2.aria.yaml",
        "step-2.console.log",
        "step-2.png",
    ]
    assert "trace: " not in trail["error"]


def test_a_passing_trail_keeps_no_trace_and_takes_no_screenshot(project: Project, cli: CliRunner) -> None:
    project.trail("passes", PASSING)
    result, document = run(project, cli)
    assert result.returncode == 0, result.output
    (trail,) = document["trails"]
    assert trail["artifacts"] == [] and all(s["artifacts"] == [] for s in trail["steps"])
    assert not (project.root / "evidence").exists()


def test_screenshot_on_takes_one_after_every_step(project: Project, cli: CliRunner) -> None:
    project.trail("passes", PASSING)
    result, document = run(project, cli, "--screenshot", "on", "--trace", "on")
    assert result.returncode == 0, result.output
    (trail,) = document["trails"]
    assert [s["artifacts"] for s in trail["steps"]] == [
        [{"kind": "screenshot", "path": "passes/step-1.png"}],
        [{"kind": "screenshot", "path": "passes/step-2.png"}],
    ]
    assert trail["artifacts"] == [{"kind": "trace", "path": "passes/trace.zip"}]  # --trace on: kept anyway
    assert (project.root / "evidence" / "passes" / "trace.zip").is_file()


def test_trace_off_and_screenshot_off_keep_only_the_hierarchy(project: Project, cli: CliRunner) -> None:
    project.trail("sign-in", FAILING.replace("{{secret}}", "x"))
    result, document = run(project, cli, "--trace", "off", "--screenshot", "off")
    assert result.returncode == 1, result.output
    (trail,) = document["trails"]
    assert trail["artifacts"] == []
    assert [a["kind"] for a in trail["steps"][1]["artifacts"]] == ["hierarchy", "console"]
    assert sorted(p.name for p in (project.root / "evidence" / "sign-in").iterdir()) == [
        "step-2.aria.yaml",
        "step-2.console.log",
    ]


PLUGIN = """
from pathlib import Path

import trailblaze
from trailblaze.api.results import Artifact


async def _note(folder: Path, name: str, text: str) -> list[Artifact]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return [Artifact("console", str(folder / name))]


@trailblaze.hookimpl
def trailblaze_step_evidence(step, result, session, folder):
    return _note(folder, f"{step.index}.txt", result.status)


@trailblaze.hookimpl
def trailblaze_trail_evidence(trail, result, session, folder):
    return _note(folder, "trail.txt", result.status)
"""


def test_plugins_save_evidence_through_the_hooks(project: Project, cli: CliRunner) -> None:
    project.write("my_evidence.py", PLUGIN)
    project.trail("passes", PASSING)
    result, document = run(project, cli, "-p", "my_evidence", "-p", "no:evidence")
    assert result.returncode == 0, result.output
    (trail,) = document["trails"]
    assert [s["artifacts"] for s in trail["steps"]] == [
        [{"kind": "console", "path": "passes/0.txt"}],
        [{"kind": "console", "path": "passes/1.txt"}],
    ]
    assert trail["artifacts"] == [{"kind": "console", "path": "passes/trail.txt"}]
    assert (project.root / "evidence" / "passes" / "trail.txt").read_text() == "passed"


def test_only_the_newest_runs_are_kept(project: Project, cli: CliRunner) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\ntimeout: 5\nartifacts_keep: 2\n")
    old = project.root / ".trailblaze" / "artifacts"
    for stamp in ("2020-01-01T00-00-00-aaaaaa", "2020-01-02T00-00-00-bbbbbb", "2020-01-03T00-00-00-cccccc"):
        (old / stamp).mkdir(parents=True)
    (old / "mine").mkdir()  # not a run's folder: left alone
    project.trail("passes", PASSING)
    project.write("trails/page.html", PAGE)
    result = cli("run", "trails/", cwd=project.root)
    assert result.returncode == 0, result.output
    assert sorted(p.name for p in old.iterdir()) == ["2020-01-03T00-00-00-cccccc", "mine"]


def test_a_failed_step_on_the_android_stand_in_leaves_its_view_hierarchy_and_a_screenshot(
    project: Project, cli: CliRunner, adb: AdbHostStandIn
) -> None:
    project.write("trailblaze.yaml", "timeout: 1\n")
    project.trail(
        "missing",
        f"""
        config: {{id: missing}}
        trail:
          - step: start
            recording:
              android: [{{launchApp: {{appId: {SAMPLE_APP}}}}}]
          - step: sign in
            recording:
              android: [{{tapOnElementWithText: {{text: Welcome to the sample ap}}}}]
        """,
    )
    result = cli("run", "--driver", "android", "--json", "results.json", "--artifacts-dir", "evidence")
    assert result.returncode == 1, result.output
    (trail,) = result.json()["trails"]
    artifacts = trail["steps"][1]["artifacts"]
    assert [a["kind"] for a in artifacts] == ["screenshot", "hierarchy"]
    assert artifacts[1]["path"] == "missing/step-2.hierarchy.json"
    assert trail["artifacts"] == []  # no trace off the web
    image = (project.root / "evidence" / artifacts[0]["path"]).read_bytes()
    assert image[:3] == b"\xff\xd8\xff" or image[:8] == b"\x89PNG\r\n\x1a\n"
    tree = json.loads((project.root / "evidence" / "missing" / "step-2.hierarchy.json").read_text())
    assert "Welcome to the sample app" in json.dumps(tree)
    step = trail["steps"][1]
    nearest = "nearest on screen: android.widget.TextView 'Welcome to the sample app'"
    assert step["error"].endswith(f"; {nearest}")  # the likeliest one; the whole screen is the hierarchy file
    assert step["tools"][-1]["error"] == step["error"]  # one message: reports show it once


def _can_mount_a_small_disk() -> bool:
    """A user and mount namespace of our own, where a tmpfs is ours to mount (no root needed)."""
    import shutil
    import subprocess

    if shutil.which("unshare") is None:
        return False
    probe = "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d; r=$?; rmdir $d; exit $r"
    return subprocess.run(["unshare", "-rm", "sh", "-c", probe], capture_output=True).returncode == 0


def _run_on_a_full_disk(project: Project, *args: str) -> CliResult:
    """``trailblaze run ARGS`` with ``evidence/`` a 64 KiB tmpfs filled up before it starts,
    mounted in a namespace of the run's own: it is gone when the run ends."""
    import subprocess
    import sys

    from tests.support.cli import cli_env

    (project.root / "evidence").mkdir(exist_ok=True)
    command = " ".join(["exec", sys.executable, "-m", "trailblaze", "run", *args])
    script = f"mount -t tmpfs -o size=64k tmpfs evidence && (cat /dev/zero > evidence/filler 2>/dev/null; {command})"
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        cwd=project.root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr, project.root)


def test_evidence_a_full_disk_refused_is_named_in_every_report_and_no_empty_file_is_left(
    project: Project, cli: CliRunner
) -> None:
    if not _can_mount_a_small_disk():
        pytest.skip("no user namespace to mount a small tmpfs in")
    project.trail("sign-in", FAILING.replace("{{secret}}", "x"))
    project.write("trails/page.html", PAGE)
    args = ("trails/", "--json", "results.json", "--html=report/index.html", "--artifacts-dir", "evidence")
    args = (*args, "--trace", "retain-on-failure")
    result = _run_on_a_full_disk(project, *args)
    assert result.returncode == 1, result.output  # the trail's own failure: evidence does not change it
    (trail,) = result.json()["trails"]
    step = trail["steps"][1]
    assert "screenshot sign-in/step-2.png: No space left on device" in step["evidence_errors"]
    assert "screenshot" not in [a["kind"] for a in step["artifacts"]]
    assert trail["artifacts"] == [] and trail["evidence_errors"][0].startswith("trace sign-in/trace.zip: ")
    assert "ENOSPC" in trail["evidence_errors"][0] or "No space left" in trail["evidence_errors"][0]
    assert "evidence not saved: step 2: screenshot sign-in/step-2.png: No space left on device" in result.stdout
    assert "evidence not saved: trace sign-in/trace.zip: " in result.stdout
    page = (project.root / "report" / "index.html").read_text(encoding="utf-8")
    assert "evidence not saved:<ul><li>screenshot sign-in/step-2.png: No space left on device</li>" in page


def test_evidence_never_writes_through_a_link_left_where_it_goes(project: Project, cli: CliRunner) -> None:
    """A repository can commit links where a run writes its evidence (and a report copies it):
    each is replaced by the run's file; what it pointed to is left as it was."""
    project.trail("sign-in", FAILING.replace("{{secret}}", "x"))
    project.write("trails/page.html", PAGE)
    users = project.root / "precious.png"
    users.write_bytes(b"the user's")
    planted = [
        project.root / "evidence" / "sign-in" / "step-2.png",
        project.root / "evidence" / "sign-in" / "trace.zip",
        project.root / "report" / "data" / "evidence" / "sign-in" / "step-2.png",
    ]
    for link in planted:
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(users)
    args = ("trails/", "--json", "results.json", "--html=report/index.html", "--artifacts-dir", "evidence")
    result = cli("run", *args, "--trace", "retain-on-failure", cwd=project.root)
    assert result.returncode == 1, result.output
    assert users.read_bytes() == b"the user's"
    assert [link.is_symlink() for link in planted] == [False] * len(planted)
    assert planted[0].read_bytes().startswith(b"\x89PNG") and planted[2].read_bytes() == planted[0].read_bytes()
    assert result.json()["trails"][0]["steps"][1]["evidence_errors"] == []


def test_evidence_of_ids_that_climb_or_are_too_long_stays_in_the_run_folder(project: Project, cli: CliRunner) -> None:
    long_id = "checkout-" + "x" * 300
    project.trail("up", FAILING.replace("{{secret}}", "x").replace("id: sign-in", "id: '..'"))
    project.trail("long", FAILING.replace("{{secret}}", "x").replace("id: sign-in", f"id: {long_id}"))
    project.write("trails/page.html", PAGE)
    result = cli(
        "run", "trails/", "--json", "results.json", "--artifacts-dir", "runs/evidence", "--trace=retain-on-failure"
    )
    assert result.returncode == 1, result.output
    assert "evidence not saved" not in result.stdout
    trails = {t["id"]: t for t in result.json()["trails"]}
    assert [a["path"] for a in trails[".."]["artifacts"]] == ["__/trace.zip"]
    (folder,) = [p for p in (project.root / "runs" / "evidence").iterdir() if p.name.startswith("checkout-")]
    assert len(folder.name.encode()) <= 120 and (folder / "step-2.png").is_file()
    assert [a["path"] for a in trails[long_id]["artifacts"]] == [f"{folder.name}/trace.zip"]
    assert sorted(p.name for p in (project.root / "runs").iterdir()) == ["evidence"]  # nothing beside it


SNAPSHOT = """
config: {id: snap}
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {url: page.html}
        - web_snapshot: {screenName: "../../%s"}
"""


def test_a_long_web_snapshot_name_is_shortened_and_a_full_disk_fails_the_call_saying_so(
    project: Project, cli: CliRunner
) -> None:
    project.trail("snap", SNAPSHOT % ("y" * 400))
    project.write("trails/page.html", PAGE)
    ok = cli("run", "trails/", "--json", "results.json", "--artifacts-dir", "evidence", cwd=project.root)
    assert ok.returncode == 0, ok.output
    (image,) = (project.root / "evidence" / "snap").glob("*.png")
    assert image.name.startswith("___.._yyy") and len(image.name.encode()) <= 124
    if not _can_mount_a_small_disk():
        pytest.skip("no user namespace to mount a small tmpfs in")
    (project.root / "results.json").unlink()
    full = _run_on_a_full_disk(project, "trails/", "--json", "results.json", "--artifacts-dir", "evidence")
    assert full.returncode == 1, full.output
    error = full.json()["trails"][0]["steps"][0]["error"]
    assert f"web_snapshot: could not save evidence/snap/{image.name}: No space left on device" in error
    assert "Traceback" not in full.output and "OSError" not in full.output
