"""What ``trailblaze run`` does with trail files, end to end: both formats, arguments, memory,
the environment, retries, shared setup, skips, discovery and isolation between trails.

One run replays a whole project of trails (a browser start costs more than a trail), and the
assertions read its results document.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.support.cli import CliResult, CliRunner, Project, cli_env

pytestmark = pytest.mark.browser

FEATURES = """
config:
  title: Arguments, memory and the environment
  args:
    query: {type: string, default: "4"}
    amount: {type: integer, default: 1}
    clear: {type: boolean, default: true}
  memory:
    greeting: Hello
trailhead:
  step: Open the lists page
  recording:
    web:
      web_navigate: {url: /lists.html}
trail:
  - step: Filter for "{{args.query}}" and remember the count
    recording:
      web:
        - web_type: {text: "{{args.query}}", nodeSelector: {web: {dataTestId: filter-input}}}
        - rememberText: {variable: shown, nodeSelector: {web: {cssSelector: "#count"}}}
        - web_scroll: {amount: "{{args.amount}}", nodeSelector: {web: {dataTestId: item-list}}}
  - verify: The page still says {{memory.shown}}
    recording:
      web:
        - web_verifyValue: {expected: "{{memory.shown}}", nodeSelector: {web: {cssSelector: "#count"}}}
        - assertEquals: {actual: "{{memory.shown}}", expected: 14 items}
        - assertEquals: {actual: "{{memory.greeting}}", expected: Hello, reason: config.memory seeds memory}
  - step: Add the name from the environment to what is typed
    recording:
      web:
        - web_navigate: {url: /forms.html}
        - web_type: {text: "Dr ", nodeSelector: {web: {dataTestId: name-input}}}
        - web_type:
            text: "${TB_E2E_NAME}"
            clearFirst: "{{args.clear}}"
            nodeSelector: {web: {dataTestId: name-input}}
        - web_verifyValue: {expected: Dr Hopper, type: VALUE, nodeSelector: {web: {dataTestId: name-input}}}
"""

LEGACY = """
- config:
    id: legacy/about
    title: The legacy list format
- tools:
    - web_navigate: {url: /about.html}
- prompts:
    - step: Check the about page
      recording:
        tools:
          - web_verifyTextVisible: {text: Trailblaze replays trails}
    - verify: The heading says About
      recording:
        tools:
          - web_verifyElementVisible: {nodeSelector: {web: {headingLevel: 1, ariaNameRegex: About}}}
"""

PER_DEVICE = """
config:
  title: Recordings for several devices
trail:
  - step: Open the about page
    recording:
      android-phone:
        - tapOnElementBySelector: {selector: {textRegex: About}}
      ios:
        - tapOnElementBySelector: {selector: {textRegex: About}}
      web:
        - web_navigate: {url: /about.html}
  - step: Deliberately nothing to do here
    recording:
      web: []
"""

SHARED_SETUP = """
config:
  title: Shared setup (run inline, not a trail of its own)
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
        - web_type: {text: From the setup, nodeSelector: {web: {dataTestId: name-input}}}
"""

USES_SHARED = """
trail:
  - step: Run the shared setup
    recording:
      web:
        - runTrail: {path: ../shared/setup.yaml}
  - verify: The setup typed the name
    recording:
      web:
        - web_verifyValue: {expected: From the setup, type: VALUE, ref: "css=#name"}
"""

COUNTER_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Counter</title></head>
<body><button id="bump" onclick="n.textContent = 'clicked ' + (++count)">Bump</button>
<p id="n">clicked 0</p><script>var count = 0, n = document.getElementById('n');</script></body></html>
"""


def counter_trail(retries: int) -> str:
    """A step that fails on its first attempt and passes on its second: each attempt clicks
    once more and expects two clicks."""
    return f"""
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: {{url: ../pages/counter.html}}
  - step: Click until it says two
    maxRetries: {retries}
    recording:
      web:
        - web_click: {{ref: "css=#bump"}}
        - web_verifyTextVisible: {{text: clicked 2, timeoutMs: 200}}
"""


NO_RECORDING = """
trail:
  - step: Open the about page
    recording:
      web:
        - web_navigate: {url: /about.html}
  - step: Sign in as the admin
    recording:
      android:
        - tapOnElementBySelector: {selector: {textRegex: Sign in}}
  - step: Never reached
"""

BROKEN_SHARED = """
trail:
  - step: Open the about page
    recording:
      web:
        - web_navigate: {url: /about.html}
  - step: Run a shared trail that does not load
    recording:
      web:
        - runTrail: {path: shared/broken.yaml}
  - step: Never reached
    recording:
      web:
        - web_navigate: {url: /index.html}
"""

SKIPPED = """
config:
  skip: {web: the web page is not ready}
trail:
  - step: Open
    recording:
      web:
        - web_navigate: {url: /about.html}
"""

LEAVES_STATE = """
trail:
  - step: Leave things behind
    recording:
      web:
        - web_navigate: {url: /forms.html}
        - web_evaluate: {script: "localStorage.setItem('left', 'behind'); document.cookie = 'left=behind'"}
        - web_navigate: {url: /about.html}
"""

SEES_NO_STATE = """
trail:
  - step: Start with nothing
    recording:
      web:
        - web_evaluate: {script: "if (history.length !== 1) throw new Error('history: ' + history.length)"}
        - web_navigate: {url: /forms.html}
        - web_evaluate:
            script: "if (localStorage.getItem('left') || document.cookie) throw new Error('state leaked')"
"""

NOT_A_TRAIL = "this: is not a trail file at all: [\n"


@pytest.fixture(scope="module")
def project_run(tmp_path_factory: pytest.TempPathFactory, browser: str) -> tuple[Project, CliResult]:
    project = Project(tmp_path_factory.mktemp("project"))
    project.trail("features", FEATURES)
    project.write("trails/legacy/about.trail.yaml", LEGACY)
    project.write("trails/devices/trail.yaml", PER_DEVICE)
    project.write("trails/shared/setup.yaml", SHARED_SETUP)
    project.write("trails/setup/uses-shared.trail.yaml", USES_SHARED)
    project.write("trails/pages/counter.html", COUNTER_PAGE)
    project.trail("retries/once", counter_trail(1))
    project.trail("retries/none", counter_trail(0))
    project.trail("broken-shared", BROKEN_SHARED)
    project.write("trails/shared/broken.yaml", "trail:\n  - step: [this is not a step\n")
    project.trail("skipped", SKIPPED)
    project.trail("state/1-leaves", LEAVES_STATE)
    project.trail("state/2-sees-none", SEES_NO_STATE)
    for ignored in (".git", "node_modules", ".trailblaze", "build", "sub/node_modules"):
        project.write(f"trails/{ignored}/broken.trail.yaml", NOT_A_TRAIL)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "trailblaze",
            "run",
            "--json",
            "results.json",
            "--arg",
            "amount=300",
            "--arg",
            "clear=false",
        ],
        cwd=project.root,
        env=cli_env(TB_E2E_NAME="Hopper"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return project, CliResult(proc.returncode, proc.stdout, proc.stderr, project.root)


@pytest.fixture(scope="module")
def trails(project_run: tuple[Project, CliResult]) -> dict[str, dict[str, Any]]:
    _, result = project_run
    assert "Traceback" not in result.output
    return {trail["id"]: trail for trail in result.json()["trails"]}


def test_discovery_is_sorted_recursive_and_skips_tool_folders(trails: dict[str, dict[str, Any]]) -> None:
    assert list(trails) == [
        "broken-shared",
        "devices",
        "features",
        "legacy/about",
        "retries/none",
        "retries/once",
        "setup/uses-shared",
        "skipped",
        "state/1-leaves",
        "state/2-sees-none",
    ]


def test_the_worst_outcome_decides_the_exit_code(project_run: tuple[Project, CliResult]) -> None:
    _, result = project_run
    assert result.returncode == 3  # a shared trail that does not load: the trail needs work
    *_, summary, reports = result.stdout.rstrip().splitlines()
    assert summary.startswith("7 passed, 1 failed, 1 error, 1 skipped in ")
    assert reports == "reports: JSON results.json"


def test_arguments_memory_and_environment(trails: dict[str, dict[str, Any]]) -> None:
    trail = trails["features"]
    assert trail["status"] == "passed", trail["error"]
    assert trail["title"] == "Arguments, memory and the environment"
    steps = trail["steps"]
    assert [(s["index"], s["kind"], s["text"]) for s in steps] == [
        (-1, "trailhead", "Open the lists page"),
        (0, "step", 'Filter for "4" and remember the count'),
        (1, "verify", "The page still says 14 items"),
        (2, "step", "Add the name from the environment to what is typed"),
    ]
    scroll = steps[1]["tools"][2]
    assert scroll["args"]["amount"] == 300  # an integer argument fills an integer field
    typed = steps[3]["tools"][2]
    assert typed["args"]["clearFirst"] is False
    assert typed["args"]["text"] == "${TB_E2E_NAME}"  # the environment stays as written
    assert "reason" not in steps[2]["tools"][2]["args"]  # kept in the file, not passed to the tool


def test_both_formats_and_recordings_per_device(trails: dict[str, dict[str, Any]]) -> None:
    legacy = trails["legacy/about"]
    assert legacy["status"] == "passed", legacy["error"]
    assert [(s["kind"], s["text"]) for s in legacy["steps"]] == [
        ("step", "tools: web_navigate"),
        ("step", "Check the about page"),
        ("verify", "The heading says About"),
    ]
    devices = trails["devices"]
    assert devices["status"] == "passed", devices["error"]
    assert [[t["name"] for t in s["tools"]] for s in devices["steps"]] == [["web_navigate"], []]


def test_run_trail_shares_setup(trails: dict[str, dict[str, Any]]) -> None:
    trail = trails["setup/uses-shared"]
    assert trail["status"] == "passed", trail["error"]
    assert [t["name"] for t in trail["steps"][0]["tools"]] == ["runTrail"]


def test_max_retries_repeats_the_step(trails: dict[str, dict[str, Any]]) -> None:
    once = trails["retries/once"]
    assert once["status"] == "passed", once["error"]
    assert once["steps"][1]["attempts"] == 2
    assert [t["status"] for t in once["steps"][1]["tools"]] == ["passed", "passed"]  # the attempt that counted
    none = trails["retries/none"]
    assert none["status"] == "failed"
    assert none["steps"][1]["attempts"] == 1
    assert "text 'clicked 2' visible: 0 elements matched within 0.2s" in none["error"]


def test_a_step_without_a_recording_stops_the_run_before_a_browser_starts(cli: CliRunner, project: Project) -> None:
    project.trail("no-recording", NO_RECORDING)
    for command in ("run", "validate"):  # validate answers as run would, for the driver named
        result = cli(command, "--driver", "web")
        assert result.returncode == 3, result.output
        assert result.stderr == (
            "error: trails/no-recording.trail.yaml:6:5: step 2 (Sign in as the admin): no recording for web (it has "
            "recordings for: android); replay needs one: record it with `trailblaze record "
            "trails/no-recording.trail.yaml --step 2 --driver playwright-native` or write `recording: {web: [...]}` "
            "by hand\n"
            "error: trails/no-recording.trail.yaml:10:5: step 3 (Never reached): no recording for web; replay needs "
            "one: record it with `trailblaze record trails/no-recording.trail.yaml --step 3 --driver "
            "playwright-native` or write `recording: {web: [...]}` by hand\n"
            "2 problems\n"
        )
        assert result.stdout == ""  # nothing ran


def test_a_shared_trail_that_is_not_there_is_an_error_of_the_trail(trails: dict[str, dict[str, Any]]) -> None:
    trail = trails["broken-shared"]
    assert trail["status"] == "error"
    assert [s["status"] for s in trail["steps"]] == ["passed", "error", "skipped"]
    assert trail["error"].split(": ", 1)[1].startswith("step 2 (Run a shared trail that does not load): runTrail: ")


def test_skipped_trails(trails: dict[str, dict[str, Any]]) -> None:
    skipped = trails["skipped"]
    assert (skipped["status"], skipped["skip_reason"], skipped["steps"]) == (
        "skipped",
        "the web page is not ready",
        [],
    )


def test_each_trail_starts_with_a_fresh_browser_context(trails: dict[str, dict[str, Any]]) -> None:
    assert trails["state/1-leaves"]["status"] == "passed", trails["state/1-leaves"]["error"]
    assert trails["state/2-sees-none"]["status"] == "passed", trails["state/2-sees-none"]["error"]


# -- separate runs ------------------------------------------------------------------------------------


def test_a_trail_for_other_devices_is_skipped(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail(
        "phone-only",
        """
        config:
          devices: {android-phone: ANDROID_ONDEVICE_ACCESSIBILITY}
        trail:
          - step: Tap About
            recording:
              android-phone:
                - tapOnElementBySelector: {selector: {textRegex: About}}
        """,
    )
    project.trail("web", "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigate: {url: /}\n")
    result = cli("run", "--driver", "web", "--json", "results.json")
    assert result.returncode == 0, result.output
    trails = {t["id"]: t for t in result.json()["trails"]}
    assert trails["phone-only"]["status"] == "skipped"
    assert trails["phone-only"]["skip_reason"] == "trail is for android-phone; this run uses web"
    assert trails["web"]["status"] == "passed"


def test_fail_fast_stops_after_the_first_failure(cli: CliRunner, project: Project, browser: str) -> None:
    failing = (
        "trail:\n  - verify: No\n    recording:\n      web:\n        - web_verifyTextVisible: {text: x, timeoutMs: 1}\n"
    )
    passing = "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigate: {url: /about.html}\n"
    project.trail("a-fails", failing)
    project.trail("b-passes", passing)
    project.trail("c-fails", failing)
    stopped = cli("run", "-x", "--json", "results.json")  # without -x, failures do not stop a run (above)
    assert stopped.returncode == 1
    assert [(t["id"], t["status"]) for t in stopped.json()["trails"]] == [
        ("a-fails", "failed"),
        ("b-passes", "skipped"),  # reported, not left out: they never ran
        ("c-fails", "skipped"),
    ]
