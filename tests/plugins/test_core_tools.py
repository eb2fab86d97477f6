"""The tools every driver has (the ``core_tools`` plugin), replayed on the web driver.

One run holds a trail that uses each of them successfully and one trail per way they fail.
(``tap`` and ``assertVisible`` are in tests/drivers/web/test_tools.py, with the refs they take.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.support.cli import CliResult, CliRunner, Project, cli_env

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: 40 powers: evaluated naively (each exponent twice), 2**40 visits
TOWER_OF_POWERS = " ** ".join(["1"] * 40)
EVERY_CORE_TOOL = """
config:
  memory: {expected: 50 items}
trail:
  - step: Remember what the list page says
    recording:
      web:
        - web_navigate: {url: /lists.html}
        - rememberText: {variable: count, nodeSelector: {web: {cssSelector: "#count"}}}
        - rememberText: {variable: heading, selector: {css: h1}}
        - rememberText: {variable: byId, selector: {idRegex: count}}
        - rememberText: {variable: byBoth, selector: {css: p, idRegex: count}}
        - dumpMemory
  - verify: Compare values
    recording:
      web:
        - assertEquals: {actual: "{{memory.count}}", expected: "{{memory.expected}}"}
        - assertEquals: {actual: 14.0, expected: "14"}
        - assertEquals: {actual: true, expected: "true"}
        - assertNotEquals: {actual: "{{memory.heading}}", expected: Forms}
        - assertEquals: {actual: "{{memory.byId}}", expected: "{{memory.expected}}"}
        - assertEquals: {actual: "{{memory.byBoth}}", expected: "{{memory.expected}}"}
        - assertMath: {expression: "2 * (3 + 4) - 10 / 4", expected: 11.5}
        - assertMath: {expression: "1,000 // 8 + 2 ** 3 % 5", expected: "128"}
        - assertMath: {expression: "TOWER_OF_POWERS", expected: 1}
  - step: Wait for the page to change after loading data, then settle
    recording:
      web:
        - web_navigate: {url: /delayed.html}
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Load data}}}
        - waitForChange: {timeoutMs: 8000, quietWindowMs: 300}
        - wait: {timeToWaitInSeconds: 0}
        - takeSnapshot: {screenName: "after: loading", description: the page while it loads}
        - objectiveStatus: {status: COMPLETE, explanation: all done}
""".replace("TOWER_OF_POWERS", TOWER_OF_POWERS)

FAILING: dict[str, str] = {
    "assert-equals": 'assertEquals: {actual: "{{memory.count}}", expected: 49 items}',
    "assert-not-equals": 'assertNotEquals: {actual: "{{memory.count}}", expected: 50 items}',
    "assert-math-wrong": 'assertMath: {expression: "2 + 2", expected: 5}',
    "assert-math-not-arithmetic": "assertMath: {expression: \"__import__('os')\", expected: 0}",
    "assert-math-division-by-zero": 'assertMath: {expression: "1 / 0", expected: 0}',
    "assert-math-overflow": 'assertMath: {expression: "1e300 ** 2", expected: 0}',
    "assert-math-complex": 'assertMath: {expression: "(-8) ** 0.5", expected: 0}',
    "assert-math-too-long": 'assertMath: {expression: "' + "+".join(["1"] * 5000) + '", expected: 5000}',
    "memory-not-set": 'assertEquals: {actual: "{{memory.total}}", expected: 1}',
    "remember-missing": 'rememberText: {variable: gone, nodeSelector: {web: {cssSelector: "#gone"}}}',
    "remember-without-selector": "rememberText: {variable: what, prompt: the count}",
    "remember-legacy-mobile-only": "rememberText: {variable: what, selector: {textRegex: Lists, enabled: true}}",
    "remember-legacy-id-pattern": 'rememberText: {variable: what, selector: {idRegex: "co.*"}}',
    "remember-legacy-css-and-id": "rememberText: {variable: what, selector: {css: h1, idRegex: count}}",
    "objective-failed": "objectiveStatus: {status: FAILED, explanation: the list was empty}",
    "no-change": "waitForChange: {timeoutMs: 300}",
    "run-trail-broken": "runTrail: {path: shared/broken.yaml}",
    "run-trail-failing": "runTrail: {path: shared/fails.yaml}",
    "run-trail-itself": "runTrail: {path: shared/itself.yaml}",
}


def failing_trail(call: str) -> str:
    return f"""
trail:
  - step: Open the list and remember the count
    recording:
      web:
        - web_navigate: {{url: /lists.html}}
        - rememberText: {{variable: count, nodeSelector: {{web: {{cssSelector: "#count"}}}}}}
  - step: The call that fails
    recording:
      web:
        - {call}
"""


SHARED_FAILS = """
trail:
  - step: Click something missing
    recording:
      web:
        - web_click: {nodeSelector: {web: {cssSelector: "#missing"}}, timeoutMs: 100}
"""
SHARED_ITSELF = """
trail:
  - step: Run myself
    recording:
      web:
        - runTrail: {path: itself.yaml}
"""


@pytest.fixture(scope="module")
def core_run(tmp_path_factory: pytest.TempPathFactory, browser: str) -> CliResult:
    """Every core tool, and each failing call, in one run (four trails at a time: the failing
    ones mostly wait out their timeouts)."""
    project = Project(tmp_path_factory.mktemp("core"))
    project.trail("every-core-tool", EVERY_CORE_TOOL)
    for name, call in FAILING.items():
        project.trail(f"fails/{name}", failing_trail(call))
    project.write("trails/fails/shared/fails.yaml", SHARED_FAILS)
    project.write("trails/fails/shared/itself.yaml", SHARED_ITSELF)
    project.write("trails/fails/shared/broken.yaml", "trail:\n  - step: [this is not a step\n")
    proc = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", "--json", "results.json", "--workers", "4"],
        cwd=project.root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    result = CliResult(proc.returncode, proc.stdout, proc.stderr, project.root)
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def trails(core_run: CliResult) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in core_run.json()["trails"]}


def test_every_core_tool_works(core_run: CliResult, trails: dict[str, dict[str, Any]]) -> None:
    trail = trails["every-core-tool"]
    assert trail["status"] == "passed", trail["error"]
    names = [t["name"] for step in trail["steps"] for t in step["tools"]]
    assert {"rememberText", "dumpMemory", "assertEquals", "assertNotEquals", "assertMath", "waitForChange"} <= set(
        names
    )
    assert {"wait", "takeSnapshot", "objectiveStatus"} <= set(names)
    objective = trail["steps"][2]["tools"][-1]
    assert objective["recordable"] is False  # an agent's signal, never part of a recording
    folder = core_run.cwd / core_run.json()["artifacts_dir"] / "every-core-tool"
    assert sorted(p.name for p in folder.iterdir()) == ["after__loading.hierarchy.json", "after__loading.png"]
    hierarchy = json.loads((folder / "after__loading.hierarchy.json").read_text(encoding="utf-8"))
    assert "Load data" in json.dumps(hierarchy)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("assert-equals", "assertEquals: expected '49 items', got '50 items'"),
        ("assert-not-equals", "assertNotEquals: expected a value other than '50 items'"),
        ("assert-math-wrong", "assertMath: 2 + 2 = 4, expected 5"),
        ("assert-math-not-arithmetic", "assertMath: cannot evaluate \"__import__('os')\": only numbers and"),
        ("assert-math-division-by-zero", "assertMath: cannot evaluate '1 / 0': float division by zero"),
        ("assert-math-overflow", "assertMath: cannot evaluate '1e300 ** 2': (34, 'Numerical result out of range')"),
        ("assert-math-complex", "assertMath: cannot evaluate '(-8) ** 0.5': the result is not a real number"),
        (
            "assert-math-too-long",
            "assertMath: the expression has 9999 characters, more than the limit of 1000 "
            "(TRAILBLAZE_MAX_EXPRESSION_CHARS)",
        ),
        ("memory-not-set", "assertEquals: {{memory.total}} not set (memory holds: count)"),
        ("remember-missing", "rememberText: no element to read for 'gone'"),
        ("remember-legacy-css-and-id", "rememberText: no element to read for 'what'"),  # both must hold
        ("remember-without-selector", "rememberText: rememberText without nodeSelector/selector needs an agent"),
        ("objective-failed", "objectiveStatus: the list was empty"),
        ("no-change", "waitForChange: the screen did not change within 300 ms"),
        (
            "run-trail-failing",
            "runTrail: runTrail shared/fails.yaml: web_click: click cssSelector='#missing': "
            "0 elements matched within 0.1s",
        ),
        ("run-trail-itself", "runTrail nested deeper than 8 levels (does itself.yaml run itself?)"),
    ],
)
def test_core_tool_failures(trails: dict[str, dict[str, Any]], name: str, message: str) -> None:
    trail = trails[f"fails/{name}"]
    assert trail["status"] == "failed", trail
    step = trail["steps"][1]
    assert step["status"] == "failed"
    assert message in step["error"]


def test_a_shared_trail_that_does_not_load_is_a_broken_trail(
    core_run: CliResult, trails: dict[str, dict[str, Any]]
) -> None:
    trail = trails["fails/run-trail-broken"]
    assert trail["status"] == "error"  # the trail points at a bad file: misuse, exit 3, not a failed check
    error = trail["steps"][1]["error"]
    assert error.startswith("runTrail: ") and "trails/fails/shared/broken.yaml:3:1: invalid YAML" in error
    assert core_run.returncode == 3


def test_a_shared_trail_that_is_not_there_is_found_before_the_run(cli: CliRunner, project: Project) -> None:
    project.trail(
        "t", "trail:\n  - step: s\n    recording:\n      web:\n        - runTrail: {path: shared/nothing.yaml}\n"
    )
    for command in ("validate", "run"):
        result = cli(command)
        assert result.returncode == 3, result.output
        assert "trails/t.trail.yaml:5:28: runTrail: shared/nothing.yaml: file not found" in result.stderr


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "remember-legacy-mobile-only",
            "rememberText: a legacy selector with enabled cannot be used on the web; "
            "use a nodeSelector with a web: block",
        ),
        ("remember-legacy-id-pattern", "rememberText: idRegex 'co.*' is a pattern; on the web use a nodeSelector"),
    ],
)
def test_a_legacy_selector_without_web_meaning_is_misuse(
    trails: dict[str, dict[str, Any]], name: str, message: str
) -> None:
    trail = trails[f"fails/{name}"]
    assert trail["status"] == "error", trail  # the recording asks for something the web has not: exit 3
    assert trail["steps"][1]["error"] == message
