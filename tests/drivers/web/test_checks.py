"""The web driver's checks after Playwright Test's ``expect`` (web_verifyTextNotVisible,
web_verifyElementCount, web_verifyElementState, web_verifyUrl, web_verifyTitle) and upstream's
not-visible checks on the web (assertNotVisibleWithText, assertNotVisibleBySelector), through
``trailblaze run`` in real Chromium against the sample app: each passes when what it checks
holds — also once it comes to hold, within its wait — in a ``verify:`` step, and fails (exit 1)
saying what the page had when it does not.

Runs are costly (a browser start each): one run holds every check that passes, one every check
that fails, and the tests read their results documents.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliResult, Project, cli_env

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHECKS = {
    "assertNotVisibleWithText",
    "assertNotVisibleBySelector",
    "web_verifyTextNotVisible",
    "web_verifyElementCount",
    "web_verifyElementState",
    "web_verifyUrl",
    "web_verifyTitle",
}

# the delayed page shows "Loading…" for 1.5 s after "Load data" is clicked, then three results;
# "Continue" is enabled 1 s after "Unlock" is clicked; the note the trail adds goes away after
# 3 s. The checks wait for that (10 s at most).
NOTE = (
    "document.body.insertAdjacentHTML('beforeend', '<p id=note>Working…</p>'); "
    "setTimeout(() => document.getElementById('note').remove(), 3000)"
)
HOLDING = """
config:
  title: Every check holds
  timeout: 10
trail:
  - step: Load the data, and show a note for 3 s
    recording:
      web:
        - web_navigate: {url: /delayed.html}
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Load data}}}
        - web_evaluate: {script: "NOTE"}
        - web_verifyTextVisible: {text: Working}
  - verify: The note and the loading text go away, the results come, nothing else shows
    recording:
      web:
        - assertNotVisibleWithText: {text: "Working…"}
        - assertNotVisibleWithText: {text: "Load.*ing.*"}
        - web_verifyTextNotVisible: {text: loading}
        - web_verifyElementCount: {count: 3, nodeSelector: {web: {cssSelector: "#results li"}}}
        - assertNotVisibleBySelector: {nodeSelector: {web: {cssSelector: "#never"}}}
        - assertNotVisibleBySelector: {selector: {css: "#continued"}}
        - assertNotVisibleBySelector:
            nodeSelector: {web: {ariaRole: heading}, below: {web: {ariaRole: button, ariaNameRegex: Go to About later}}}
        - web_verifyUrl: {pattern: "**/delayed.html"}
        - web_verifyUrl: {pattern: "delayed\\\\.html$"}
        - web_verifyUrl: {pattern: delayed}
        - web_verifyTitle: {expected: "Delayed content · Sample App"}
        - web_verifyTitle: {expected: "Delayed .* App"}
        - web_verifyElementState: {state: DISABLED, ref: 'button "Continue"'}
  - step: Unlock
    recording:
      web:
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Unlock}}}
  - verify: Continue comes to be enabled
    recording:
      web:
        - web_verifyElementState: {state: ENABLED, nodeSelector: {web: {ariaRole: button, ariaNameRegex: Continue}}}
  - step: Filter the list
    recording:
      web:
        - web_navigate: {url: /lists.html}
        - web_type: {text: Item 1, nodeSelector: {web: {cssSelector: "#filter"}}}
  - verify: Item 1 and Items 10 to 19 are shown, of 50
    recording:
      web:
        - web_verifyElementCount: {count: 11, nodeSelector: {web: {cssSelector: "#items li"}}}
        - web_verifyElementCount: {count: 50, visibleOnly: false, nodeSelector: {web: {cssSelector: "#items li"}}}
  - step: Tick the newsletter and go to the name
    recording:
      web:
        - web_navigate: {url: /forms.html}
        - web_verifyElementState: {state: UNCHECKED, nodeSelector: {web: {ariaRole: checkbox}}}
        - web_click: {nodeSelector: {web: {ariaRole: checkbox}}}
        - web_click: {nodeSelector: {web: {dataTestId: name-input}}}
  - verify: The form's states, and a hidden alert is not visible
    recording:
      web:
        - web_verifyElementState: {state: CHECKED, nodeSelector: {web: {ariaRole: checkbox}}}
        - web_verifyElementState: {state: EDITABLE, nodeSelector: {web: {dataTestId: name-input}}}
        - web_verifyElementState: {state: FOCUSED, nodeSelector: {web: {dataTestId: name-input}}}
        - assertNotVisibleBySelector: {nodeSelector: {web: {cssSelector: "#form-error"}}}
        - web_verifyElementCount: {count: 0, nodeSelector: {web: {cssSelector: "#form-error"}}}
        - web_verifyElementCount: {count: 1, visibleOnly: false, nodeSelector: {web: {cssSelector: "#form-error"}}}
"""

# id: (page, the failing call)
FAILURES: dict[str, tuple[str, str]] = {
    "text-stays": ("/about.html", "assertNotVisibleWithText: {text: Trailblaze replays trails.*, timeoutMs: 300}"),
    "part-stays": ("/about.html", "web_verifyTextNotVisible: {text: REPLAYS TRAILS, timeoutMs: 300}"),
    "element-stays": (
        "/about.html",
        "assertNotVisibleBySelector: {nodeSelector: {web: {headingLevel: 1}}, timeoutMs: 300}",
    ),
    "laid-out-element-stays": (
        "/about.html",
        "assertNotVisibleBySelector: {nodeSelector: {web: {ariaRole: link}, below: {web: {headingLevel: 1}}}, "
        "timeoutMs: 300}",
    ),
    "selector-for-android": (
        "/about.html",
        "assertNotVisibleBySelector: {nodeSelector: {androidAccessibility: {textRegex: About}}, timeoutMs: 300}",
    ),
    "count-wrong": (
        "/about.html",
        "web_verifyElementCount: {count: 3, nodeSelector: {web: {ariaRole: link}}, timeoutMs: 300}",
    ),
    "count-none": (
        "/about.html",
        "web_verifyElementCount: {count: 1, nodeSelector: {web: {cssSelector: '#from'}}, timeoutMs: 300}",
    ),
    "state-wrong": (
        "/delayed.html",
        "web_verifyElementState: {state: ENABLED, ref: 'button \"Continue\"', timeoutMs: 300}",
    ),
    "state-of-nothing": (
        "/forms.html",
        "web_verifyElementState: {state: CHECKED, nodeSelector: {web: {cssSelector: '#never'}}, timeoutMs: 300}",
    ),
    "url-wrong": ("/lists.html", "web_verifyUrl: {pattern: '**/about.html', timeoutMs: 300}"),
    "title-wrong": ("/about.html", "web_verifyTitle: {expected: Home, timeoutMs: 300}"),
}


def failing_trail(page: str, call: str) -> str:
    return f"""
trail:
  - step: Open {page}
    recording:
      web:
        - web_navigate: {{url: {page}}}
  - verify: The check that does not hold
    recording:
      web:
        - {call}
"""


def run(root: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", "--json", "results.json", "--timeout", "2"],
        cwd=root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc, CliResult(proc.returncode, proc.stdout, proc.stderr, root).json()


def test_every_check_passes_when_what_it_checks_holds(tmp_path: Path, browser: str) -> None:
    Project(tmp_path).trail("holding", HOLDING.replace('"NOTE"', f'"{NOTE}"'))
    proc, document = run(tmp_path)
    (trail,) = document["trails"]
    assert proc.returncode == 0, trail["error"]
    assert [step["status"] for step in trail["steps"]] == ["passed"] * 8
    assert {tool["name"] for step in trail["steps"] for tool in step["tools"]} >= CHECKS


@pytest.fixture(scope="module")
def failures(tmp_path_factory: pytest.TempPathFactory, browser: str) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("failures")
    project = Project(root)
    for name, (page, call) in FAILURES.items():
        project.trail(name, failing_trail(page, call))
    proc, document = run(root)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # checks that did not hold: no errors
    trails = {trail["id"]: trail for trail in document["trails"]}
    assert set(trails) == set(FAILURES)
    return trails


def failure(trails: dict[str, dict[str, Any]], name: str) -> str:
    trail = trails[name]
    assert trail["status"] == "failed", trail
    step = trail["steps"][1]
    assert (step["kind"], step["status"]) == ("verify", "failed")
    error: str = step["error"]
    return error


ON_SCREEN_ABOUT = "on screen: navigation 'Main'; link 'Forms'; link 'Lists'; link 'Delayed content'; link 'About'"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "text-stays",
            "assertNotVisibleWithText: text 'Trailblaze replays trails.*': still visible after 0.3s "
            "(1 element visible: 'Trailblaze replays trails against this sample app.')",
        ),
        (
            "part-stays",
            "web_verifyTextNotVisible: text 'REPLAYS TRAILS': still visible after 0.3s "
            "(1 element visible: 'Trailblaze replays trails against this sample app.')",
        ),
        (
            "element-stays",
            "assertNotVisibleBySelector: headingLevel=1: still visible after 0.3s (1 element visible: 'About')",
        ),
        (
            "laid-out-element-stays",
            "assertNotVisibleBySelector: ariaRole='link', below(headingLevel=1): still visible after 0.3s "
            "(1 element visible: 'Back to home')",
        ),
        ("selector-for-android", "the nodeSelector is for androidAccessibility, not the web"),
        ("count-wrong", "web_verifyElementCount: ariaRole='link': 5 elements visible, expected 3 (waited 0.3s)"),
        ("count-none", "web_verifyElementCount: cssSelector='#from': 0 elements visible, expected 1 (waited 0.3s); "),
        (
            "state-wrong",
            "web_verifyElementState: ref 'button \"Continue\"' is disabled, expected enabled (waited 0.3s)",
        ),
        ("state-of-nothing", "web_verifyElementState: cssSelector='#never': 0 elements matched within 0.3s"),
        ("url-wrong", "web_verifyUrl: the URL is 'http://127.0.0.1:"),
        ("title-wrong", "web_verifyTitle: the title is 'About · Sample App', expected 'Home' (waited 0.3s)"),
    ],
)
def test_a_check_that_does_not_hold_says_what_the_page_had(
    failures: dict[str, dict[str, Any]], name: str, message: str
) -> None:
    assert message in failure(failures, name)


def test_what_is_still_visible_is_named_and_the_page_is_left_to_the_evidence(
    failures: dict[str, dict[str, Any]],
) -> None:
    """A not-visible check names the elements still shown and ends there: the rest of the page
    is the step's ARIA snapshot. A count of 0 names the first elements of the page, so the
    message still says which page it was."""
    for name in ("text-stays", "part-stays", "element-stays", "laid-out-element-stays"):
        error = failure(failures, name)
        assert error.endswith("')") and "on screen" not in error, (name, error)
    assert failure(failures, "count-none").endswith(f"(waited 0.3s); {ON_SCREEN_ABOUT}; …")
    for name in ("text-stays", "count-none"):
        (hierarchy,) = [a for a in failures[name]["steps"][1]["artifacts"] if a["kind"] == "hierarchy"]
        assert hierarchy["path"].endswith("step-2.aria.yaml")


def test_a_wrong_url_names_the_url_the_page_has(failures: dict[str, dict[str, Any]]) -> None:
    error = failure(failures, "url-wrong")
    assert "/lists.html', expected '**/about.html' (waited 0.3s)" in error
