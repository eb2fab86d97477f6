"""Every web tool through ``trailblaze run``, in real Chromium against the sample app.

Runs are costly (a browser start each), so one run replays many trails and the assertions
read its results document: the happy path of every tool, then the ways each one fails.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliResult, CliRunner, Project, cli_env

from .support import ref_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WEB_TOOLS = {
    "web_navigate",
    "web_click",
    "web_type",
    "web_fillSecret",
    "web_selectOption",
    "web_pressKey",
    "web_scroll",
    "web_hover",
    "web_wait",
    "web_waitForUrl",
    "web_snapshot",
    "web_verifyTextVisible",
    "web_verifyElementVisible",
    "web_verifyListVisible",
    "web_verifyValue",
    "web_currentUrl",
    "web_evaluate",
    "web_resize",
}

EVERY_TOOL = """
config:
  title: Every web tool once
trail:
  - step: Open the forms page at a small size
    recording:
      web:
        - web_resize: {width: 1000, height: 700}
        - web_navigate: {url: /forms.html}
        - web_evaluate: {script: "if (innerWidth !== 1000) throw new Error('not resized')"}
  - step: Fill in the form
    recording:
      web:
        - web_click: {nodeSelector: {web: {dataTestId: name-input}}}
        - web_type: {text: Ada}
        - web_type: {text: " Lovelace", clearFirst: false, nodeSelector: {web: {dataTestId: name-input}}}
        - web_type: {text: ada@example.com, ref: 'textbox "Email"'}
        - web_fillSecret: {value: not-shown, ref: "css=#password"}
        - web_selectOption: {values: [team], nodeSelector: {web: {ariaRole: combobox, ariaNameRegex: Plan}}}
        - web_click: {nodeSelector: {web: {ariaRole: checkbox}}}
        - web_click: {nodeSelector: {web: {dataTestId: name-input}}}
        - web_pressKey: {key: enter}
  - verify: The result shows it
    recording:
      web:
        - web_verifyElementVisible:
            nodeSelector: {web: {ariaRole: status}}
            expectedText: "Submission result Name: Ada Lovelace .*"
        - web_verifyTextVisible: {text: "name: ada lovelace"}
        - web_verifyListVisible:
            items: ["Plan: Team", "Newsletter: yes"]
            nodeSelector: {web: {dataTestId: submission-result}}
        - web_verifyValue:
            expected: "Name: Ada Lovelace"
            nodeSelector: {web: {ariaRole: paragraph}, childOf: {web: {ariaRole: status}}, index: 0}
        - web_verifyValue: {expected: not-shown, type: VALUE, nodeSelector: {web: {cssSelector: "#password"}}}
        - web_verifyValue: {expected: "[a-z]+", type: ATTRIBUTE, attribute: name, ref: "css=#plan"}
  - step: Scroll the list, hover the last item and open it
    recording:
      web:
        - web_navigate: {url: /lists.html}
        - web_scroll: {direction: DOWN, amount: 5000, nodeSelector: {web: {dataTestId: item-list}}}
        - web_hover: {nodeSelector: {web: {ariaRole: link, ariaNameRegex: Item 50}}}
        - web_verifyElementVisible: {nodeSelector: {web: {ariaRole: tooltip}}, expectedText: Details for Item 50}
        - web_scroll: {direction: DOWN, amount: 2000}
        - web_evaluate: {script: "if (scrollY === 0) throw new Error('the page did not scroll')"}
        - web_verifyValue:
            expected: Old items
            nodeSelector: {web: {ariaRole: heading}, below: {web: {headingLevel: 2, ariaNameRegex: Archived}}}
        - web_scroll: {direction: UP, amount: 2000}
        - web_click:
            nodeSelector:
              web: {ariaRole: link}
              childOf: {web: {cssSelector: li}, containsChild: {web: {ariaRole: link, ariaNameRegex: Item 49}}}
        - web_waitForUrl: {pattern: "detail\\\\.html\\\\?item=49$"}
        - web_currentUrl
        - web_verifyElementVisible: {nodeSelector: {web: {headingLevel: 1, ariaNameRegex: Item 49}}}
  - step: Go back and forth
    recording:
      web:
        - web_navigate: {action: BACK}
        - web_waitForUrl: {pattern: "**/lists.html"}
        - web_navigate: {action: FORWARD}
        - web_waitForUrl: {pattern: "item=49"}
        - web_navigate: {action: RELOAD}
        - web_verifyTextVisible: {text: This is the detail page for Item 49.}
  - step: Wait for the delayed page, with and without a fixed wait
    recording:
      web:
        - web_navigate: {url: /delayed.html}
        - web_verifyElementVisible: {nodeSelector: {web: {cssSelector: "#welcome"}}}
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Unlock}}}
        - web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Continue}}}
        - web_wait: {seconds: 0.05}
        - web_verifyTextVisible: {text: You may continue}
        - web_snapshot: {screenName: delayed page}
        - takeSnapshot: {screenName: delayed-core}
"""


def run_json(cli: CliRunner, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = cli("run", "--json", "results.json", *args)
    assert "Traceback" not in result.output
    return result, result.json()


def by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {trail["id"]: trail for trail in document["trails"]}


def executed(trail: dict[str, Any]) -> list[str]:
    return [tool["name"] for step in trail["steps"] for tool in step["tools"]]


def test_every_web_tool_works(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail("every-tool", EVERY_TOOL)
    result, document = run_json(cli)
    (trail,) = document["trails"]
    assert result.returncode == 0, trail["error"]
    assert trail["status"] == "passed"
    assert set(executed(trail)) >= WEB_TOOLS
    artifacts = project.root / document["artifacts_dir"] / "every-tool"
    assert document["artifacts_dir"].startswith(".trailblaze/artifacts/")  # a folder of its own per run
    assert sorted(p.name for p in artifacts.iterdir()) == [
        "delayed-core.hierarchy.json",
        "delayed-core.png",
        "delayed_page.aria.yaml",
        "delayed_page.png",
    ]
    assert 'button "Continue"' in (artifacts / "delayed_page.aria.yaml").read_text(encoding="utf-8")
    assert (artifacts / "delayed_page.png").read_bytes().startswith(b"\x89PNG")


def test_two_runs_keep_their_own_artifacts(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail(
        "snap",
        """
        trail:
          - step: Snapshot the page
            recording:
              web:
                - web_navigate: {url: "{{args.page}}"}
                - web_snapshot: {screenName: page}
        config:
          args:
            page: {default: /index.html}
        """,
    )
    first, second = (cli("run", "--arg", f"page={page}", "--json", "r.json").json("r.json") for page in PAGES)
    assert first["artifacts_dir"] != second["artifacts_dir"]
    for document, title in zip((first, second), ('heading "Trailblaze Sample App"', 'heading "Forms"'), strict=True):
        aria = project.root / document["artifacts_dir"] / "snap" / "page.aria.yaml"
        assert title in aria.read_text(encoding="utf-8")  # the first run's snapshot was not overwritten


PAGES = ("/index.html", "/forms.html")


def test_snapshots_go_to_the_artifacts_dir_given(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail(
        "snap",
        """
        trail:
          - step: Snapshot the home page
            recording:
              web:
                - web_navigate: {url: /index.html}
                - web_snapshot: {screenName: home}
        """,
    )
    result = cli("run", "--artifacts-dir", "out")
    assert result.returncode == 0, result.output
    assert sorted(p.name for p in (project.root / "out" / "snap").iterdir()) == ["home.aria.yaml", "home.png"]


# -- how the tools fail ---------------------------------------------------------------------------------

FAILURES: dict[str, tuple[str, str]] = {
    # id: (page, the failing call)
    "never-appears": ("/forms.html", 'web_click: {nodeSelector: {web: {cssSelector: "#never"}}, timeoutMs: 300}'),
    "renamed-button": (
        "/forms.html",
        "web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Send}}, timeoutMs: 300}",
    ),
    "misspelt-name": (
        "/forms.html",
        "web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: Sumbit}}, timeoutMs: 300}",
    ),
    "several-match": ("/forms.html", "web_hover: {nodeSelector: {web: {ariaRole: link}}, timeoutMs: 2000}"),
    "several-match-typing": ("/forms.html", "web_type: {text: x, nodeSelector: {web: {ariaRole: textbox}}}"),
    "wrong-text": (
        "/lists.html",
        'web_verifyValue: {expected: "7 items", nodeSelector: {web: {cssSelector: "#count"}}, timeoutMs: 1000}',
    ),
    "wrong-value": (
        "/forms.html",
        "web_verifyValue: {expected: pro, type: VALUE, ref: css=#plan, timeoutMs: 1000}",
    ),
    "wrong-attribute": (
        "/forms.html",
        "web_verifyValue: {expected: email, type: ATTRIBUTE, attribute: type, ref: css=#name, timeoutMs: 1000}",
    ),
    "value-never-appears": (
        "/forms.html",
        'web_verifyValue: {expected: x, nodeSelector: {web: {cssSelector: "#never"}}, timeoutMs: 300}',
    ),
    "scroll-hidden": ("/about.html", 'web_scroll: {ref: "css=#from", timeoutMs: 300}'),
    # it fails at once: a long timeout keeps a loaded machine from making it a timeout instead
    "value-of-a-non-field": (
        "/forms.html",
        "web_verifyValue: {expected: x, type: VALUE, nodeSelector: {web: {headingLevel: 1}}, timeoutMs: 10000}",
    ),
    "url-never-matches": ("/lists.html", 'web_waitForUrl: {pattern: "**/about.html", timeoutMs: 300}'),
    "text-not-visible": (
        "/about.html",
        "web_verifyTextVisible: {text: You came from the delayed page., timeoutMs: 300}",
    ),
    "element-hidden": ("/about.html", 'web_verifyElementVisible: {ref: "css=#from", timeoutMs: 300}'),
    "element-hidden-with-text": (
        "/about.html",
        'web_verifyElementVisible: {ref: "css=#from", expectedText: "", timeoutMs: 300}',
    ),
    "wrong-expected-text": (
        "/about.html",
        "web_verifyElementVisible: {nodeSelector: {web: {headingLevel: 1}}, expectedText: Home, timeoutMs: 1000}",
    ),
    # 2 s, not 0.3 s: under load Item 1 alone could take longer than 0.3 s to be found
    "list-item-missing": ("/lists.html", "web_verifyListVisible: {items: [Item 1, Item 51], timeoutMs: 2000}"),
    "no-such-option": ("/forms.html", "web_selectOption: {values: [gold], ref: css=#plan, timeoutMs: 300}"),
    "disabled-stays-disabled": ("/delayed.html", "web_click: {ref: 'button \"Continue\"', timeoutMs: 300}"),
    "selector-for-android": (
        "/forms.html",
        "web_click: {nodeSelector: {androidMaestro: {textRegex: Submit}}}",
    ),
    "bad-ref": ("/forms.html", "web_click: {ref: '#submit'}"),
    "script-throws": ("/forms.html", "web_evaluate: {script: \"throw new Error('boom')\"}"),
    "script-never-returns": ("/forms.html", "web_evaluate: {script: 'new Promise(() => {})'}"),
    "script-loops": ("/forms.html", "web_evaluate: {script: 'while (true) {}'}"),
    "server-down": ("/forms.html", "web_navigate: {url: 'http://127.0.0.1:CLOSED_PORT/', timeoutMs: 3000}"),
    # patterns that backtrack for ever: a time-bounded match (Python), V8's linear engine (the page)
    "url-pattern-backtracks": (f"/lists.html?q={'a' * 40}", 'web_waitForUrl: {pattern: "(a|a)+b"}'),
    "value-pattern-backtracks": (
        f"'data:text/html,<p id=p>{'a' * 40}</p>'",
        'web_verifyValue: {expected: "(a|a)+b", nodeSelector: {web: {cssSelector: "#p"}}}',
    ),
    "name-pattern-backtracks": (
        f"'data:text/html,<button>{'a' * 40}!</button>'",
        'web_click: {nodeSelector: {web: {ariaRole: button, ariaNameRegex: "(a+)+$"}}, timeoutMs: 1000}',
    ),
}


def closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def failing_trail(page: str, call: str) -> str:
    return f"""
trail:
  - step: Open {page}
    recording:
      web:
        - web_navigate: {{url: {page}}}
  - step: The call that fails
    recording:
      web:
        - {call}
"""


@pytest.fixture(scope="module")
def failures(tmp_path_factory: pytest.TempPathFactory, browser: str) -> dict[str, dict[str, Any]]:
    """One run of every failing trail (fails, not errors: exit 1), one at a time. (Four at a time
    loaded the machine enough, beside the suite's other workers, for a call given 1 s to run out
    of it; two at a time, once in a fresh clone, for a failure message's 5 s read of the page.)"""
    root = tmp_path_factory.mktemp("failures")
    project = Project(root)
    for name, (page, call) in FAILURES.items():
        project.trail(name, failing_trail(page, call.replace("CLOSED_PORT", str(closed_port()))))
    proc = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", "--json", "results.json", "--timeout", "2"],
        cwd=root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    document = CliResult(proc.returncode, proc.stdout, proc.stderr, root).json()
    trails = by_id(document)
    assert set(trails) == set(FAILURES)
    return trails


def failure(trails: dict[str, dict[str, Any]], name: str) -> str:
    trail = trails[name]
    assert trail["status"] == "failed", trail
    step = trail["steps"][1]
    assert step["status"] == "failed"
    location, message = trail["error"].splitlines()[0].split(": ", 1)
    assert location == f"{trail['path']}:9"  # the failing call's line, not its step's (6)
    assert message == f"step 2 (The call that fails): {step['error']}"
    assert step["tools"][-1]["status"] == "failed"
    assert step["error"].startswith(step["tools"][-1]["error"])  # and what is on screen nearest to it
    error: str = step["error"]
    return error


ON_SCREEN_FORMS = "on screen: navigation 'Main'; link 'Forms'"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("never-appears", "web_click: click cssSelector='#never': 0 elements matched within 0.3s; " + ON_SCREEN_FORMS),
        (
            "misspelt-name",
            "web_click: click ariaRole='button', ariaNameRegex='Sumbit': 0 elements matched within 0.3s; "
            "nearest on screen: button 'Submit'",
        ),
        (
            "several-match",
            "web_hover: hover ariaRole='link': 4 elements matched; make the selector unique (index, nthIndex)",
        ),
        ("several-match-typing", "web_type: type into ariaRole='textbox': 4 elements matched"),
        ("wrong-text", "web_verifyValue: text of cssSelector='#count' is '50 items', expected '7 items' (waited 1s)"),
        ("wrong-value", "web_verifyValue: value of ref 'css=#plan' is 'free', expected 'pro' (waited 1s)"),
        ("wrong-attribute", "web_verifyValue: type of ref 'css=#name' is 'text', expected 'email' (waited 1s)"),
        (
            "value-never-appears",
            "web_verifyValue: cssSelector='#never': 0 elements matched within 0.3s; " + ON_SCREEN_FORMS,
        ),
        (
            "scroll-hidden",
            "web_scroll: scroll ref 'css=#from': not possible within 0.3s (1 element matched); on screen:",
        ),
        (
            "value-of-a-non-field",
            "web_verifyValue: headingLevel=1: Error: Node is not an <input>, <textarea> or <select>",
        ),
        ("url-never-matches", "web_waitForUrl: wait for URL '**/about.html' (now http://127.0.0.1:"),
        ("text-not-visible", "web_verifyTextVisible: text 'You came from the delayed page.' visible: not possible"),
        (
            "element-hidden",
            "web_verifyElementVisible: ref 'css=#from' visible: not possible within 0.3s (1 element matched); "
            "on screen:",
        ),
        (
            "element-hidden-with-text",
            "web_verifyElementVisible: ref 'css=#from' visible: not possible within 0.3s (1 element matched); "
            "on screen:",
        ),
        ("wrong-expected-text", "web_verifyElementVisible: text of headingLevel=1 is 'About', expected 'Home'"),
        ("list-item-missing", "web_verifyListVisible: list item 'Item 51' visible: not possible within 2s"),
        ("no-such-option", "web_selectOption: select ['gold'] in ref 'css=#plan': not possible within 0.3s"),
        ("disabled-stays-disabled", "web_click: click ref 'button \"Continue\"': not possible within 0.3s"),
        ("selector-for-android", "the nodeSelector is for androidMaestro, not the web; this call was recorded for"),
        (
            "bad-ref",
            "web_click: click ref '#submit' (read as text: it is not e12, css=<selector> nor role \"name\"): "
            "0 elements matched within",
        ),
        ("script-throws", "web_evaluate: evaluate script: Error: boom"),
        ("script-never-returns", "web_evaluate: evaluate script: it did not finish within 2s (--timeout"),
        ("script-loops", "web_evaluate: evaluate script: it did not finish within 2s (--timeout"),
        (
            "url-pattern-backtracks",
            "web_waitForUrl: matching the pattern '(a|a)+b' took longer than 1s, the limit for one match "
            "(TRAILBLAZE_REGEX_TIMEOUT)",
        ),
        ("value-pattern-backtracks", "web_verifyValue: matching the pattern '(a|a)+b' took longer than 1s"),
        (
            "name-pattern-backtracks",
            "web_click: click ariaRole='button', ariaNameRegex='(a+)+$': 0 elements matched within 1s",
        ),
    ],
)
def test_failures_say_what_went_wrong(failures: dict[str, dict[str, Any]], name: str, message: str) -> None:
    assert message in failure(failures, name)


def test_the_message_names_a_few_elements_and_the_evidence_holds_the_page(failures: dict[str, dict[str, Any]]) -> None:
    """What reads like what was looked for, and nothing after it; when nothing does, the first
    five elements of the page. The whole page is the step's ARIA snapshot, which the trail's
    error names."""
    assert failure(failures, "misspelt-name").endswith("nearest on screen: button 'Submit'")
    # nothing reads like 'Send': the page's buttons, the renamed one among them
    renamed = failure(failures, "renamed-button")
    assert renamed.endswith("0 elements matched within 0.3s; on screen: button 'Submit'; button 'Clear All'")
    never = failure(failures, "never-appears")
    assert never.endswith(
        "; on screen: navigation 'Main'; link 'Forms'; link 'Lists'; link 'Delayed content'; link 'About'; …"
    )
    trail = failures["never-appears"]
    (hierarchy,) = [a["path"] for a in trail["steps"][1]["artifacts"] if a["kind"] == "hierarchy"]
    evidence = trail["error"].splitlines()[1]
    assert evidence.startswith("evidence: ") and f"/{hierarchy}" in evidence  # …/never-appears/step-2.aria.yaml


def test_a_script_that_loops_is_named_and_the_evidence_does_not_wait_for_the_page(
    failures: dict[str, dict[str, Any]],
) -> None:
    # the page cannot take a screenshot or a snapshot: only the console is saved, at once (it
    # used to wait 15 s for the screenshot, then name it as evidence not saved)
    assert failure(failures, "script-loops").endswith("; the page stopped answering (its script does not return)")
    looping = failures["script-loops"]["steps"][1]
    assert looping["evidence_errors"] == []
    assert [artifact["kind"] for artifact in looping["artifacts"]] == ["console"]
    # a promise that never settles leaves the page answering: its evidence is all there
    assert "stopped answering" not in failure(failures, "script-never-returns")
    waiting = failures["script-never-returns"]["steps"][1]
    assert [artifact["kind"] for artifact in waiting["artifacts"]] == ["screenshot", "hierarchy", "console"]


def test_waiting_for_a_url_names_the_url_it_had(failures: dict[str, dict[str, Any]]) -> None:
    error = failure(failures, "url-never-matches")
    assert "/lists.html): not possible within 0.3s" in error


def test_an_unreachable_server_fails_the_step_with_the_browsers_reason(failures: dict[str, dict[str, Any]]) -> None:
    error = failure(failures, "server-down")
    url = r"http://127\.0\.0\.1:\d+/"
    assert re.fullmatch(f"web_navigate: goto {url}: net::ERR_CONNECTION_REFUSED at {url}", error), error


# -- timeouts: the call's timeoutMs, then the trail's config.timeout, then --timeout, then trailblaze.yaml ---


def welcome_trail(config: str = "", call_timeout: str = "") -> str:
    """The delayed page adds "Welcome back!" 800 ms after it loads. Opening it has a
    timeout of its own, so only the check depends on the timeout under test."""
    timeout = f", timeoutMs: {call_timeout}" if call_timeout else ""
    return f"""
config:
  title: "Welcome ({config or "default"}{timeout})"
  {config}
trail:
  - step: Open the delayed page
    recording:
      web:
        - web_navigate: {{url: /delayed.html, timeoutMs: 10000}}
  - verify: The welcome appears
    recording:
      web:
        - web_verifyTextVisible: {{text: Welcome back!{timeout}}}
"""


def test_timeout_precedence(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail("plain", welcome_trail())  # trailblaze.yaml says 5 s
    project.trail("call-short", welcome_trail(call_timeout="100"))
    project.trail("trail-short", welcome_trail(config="timeout: 0.1"))
    project.trail("trail-long-call-short", welcome_trail(config="timeout: 5", call_timeout="100"))
    project.trail("trail-short-call-long", welcome_trail(config="timeout: 0.1", call_timeout="5000"))

    _, document = run_json(cli)
    statuses = {trail_id: trail["status"] for trail_id, trail in by_id(document).items()}
    assert statuses == {
        "plain": "passed",
        "call-short": "failed",
        "trail-short": "failed",
        "trail-long-call-short": "failed",
        "trail-short-call-long": "passed",
    }
    for name in ("call-short", "trail-short", "trail-long-call-short"):
        error = by_id(document)[name]["error"]
        assert error.split(": ", 1)[1].startswith(
            "step 2 (The welcome appears): web_verifyTextVisible: text 'Welcome back!' visible: "
        )
        # the welcome is added 800 ms after load: on a busy machine it may be there by the time
        # the failure counts the matches ("not possible within 0.1s (1 element matched)")
        assert re.search(r"visible: (0 elements matched|not possible) within 0\.1s", error), error

    project.trail("trail-long", welcome_trail(config="timeout: 5"))
    _, document = run_json(cli, "--timeout", "0.1", "trails/plain.trail.yaml", "trails/trail-long.trail.yaml")
    trails = by_id(document)
    assert trails["plain"]["status"] == "failed"  # --timeout beats trailblaze.yaml
    assert re.search(
        r"'Welcome back!' visible: (0 elements matched|not possible) within 0\.1s", trails["plain"]["error"]
    )
    assert trails["trail-long"]["status"] == "passed"  # the trail's own timeout beats --timeout


# -- refs and node selectors ----------------------------------------------------------------------------------


def test_refs_from_a_snapshot_delegate_to_stable_selectors(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail(
        "look",
        """
        trail:
          - step: Look at the forms page
            recording:
              web:
                - web_navigate: {url: /forms.html}
                - web_snapshot: {screenName: forms}
        """,
    )
    assert cli("run").returncode == 0
    (snapshot_path,) = (project.root / ".trailblaze/artifacts").glob("*/look/forms.aria.yaml")
    snapshot = snapshot_path.read_text(encoding="utf-8")
    name, email = ref_of(snapshot, "textbox", "Name"), ref_of(snapshot, "textbox", "Email")
    submit, plan = ref_of(snapshot, "button", "Submit"), ref_of(snapshot, "combobox", "Plan")

    project.trail(
        "act",
        f"""
        trail:
          - step: Fill in the form by refs
            recording:
              web:
                - web_navigate: {{url: /forms.html}}
                - tap: {{ref: {name}}}
                - web_type: {{text: Grace}}
                - web_type: {{text: grace@example.com, ref: {email}}}
                - assertVisible: {{ref: {plan}}}
                - web_click: {{ref: 'button "Clear All"', nodeSelector: {{web: {{cssSelector: "#submit"}}}}}}
                - tap: {{ref: {submit}}}
          - verify: The form was submitted, not cleared
            recording:
              web:
                - web_verifyTextVisible: {{text: "Name: Grace"}}
        """,
    )
    result, document = run_json(cli, "trails/act.trail.yaml")
    (trail,) = document["trails"]
    assert result.returncode == 0, trail["error"]
    tools = [(t["name"], t["args"], t["delegated_from"]) for t in trail["steps"][0]["tools"]]
    assert tools == [
        ("web_navigate", {"url": "/forms.html"}, []),
        ("web_click", {"nodeSelector": {"web": {"dataTestId": "name-input"}}}, ["tap"]),
        ("web_type", {"text": "Grace"}, []),
        ("web_type", {"text": "grace@example.com", "ref": email}, []),
        (
            "web_verifyElementVisible",
            {"nodeSelector": {"web": {"ariaRole": "combobox", "ariaNameRegex": "Plan"}}},
            ["assertVisible"],
        ),
        ("web_click", {"ref": 'button "Clear All"', "nodeSelector": {"web": {"cssSelector": "#submit"}}}, []),
        ("web_click", {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Submit"}}}, ["tap"]),
    ]


UPSTREAM_SHAPED = r"""
config:
  devices: {web: PLAYWRIGHT_NATIVE}
  title: Duplicate names, as upstream records them
trail:
  - step: Open the products
    recording:
      web:
        - web_navigate: {url: /products.html}
  - step: Open the third cable by its quoted name and position
    recording:
      web:
        - web_click:
            ref: e15
            nodeSelector:
              web:
                ariaRole: listitem
                ariaNameRegex: \QPremium Cable (1 m) - $9.99\E
                nthIndex: 1
        - web_verifyTextVisible: {text: "(ID: cable-3)"}
  - step: A ref alone, after a selector that only knows an index
    recording:
      web:
        - web_click: {ref: e23, nodeSelector: {index: 4}}
        - web_verifyTextVisible: {text: "Adapter v2x0 - $19.99 (ID: adapter-2)"}
        - web_click: {ref: e24}
        - web_verifyTextVisible: {text: "(ID: cable-4)"}
  - step: A quoted name that as a regex would also match another
    recording:
      web:
        - web_click: {nodeSelector: {web: {ariaRole: listitem, ariaNameRegex: \QAdapter v2.0 - $19.99\E}}}
        - web_verifyTextVisible: {text: "(ID: adapter-1)"}
  - step: A name that several share is clicked at its first, as upstream's click takes .first()
    recording:
      web:
        - web_click: {nodeSelector: {web: {ariaRole: listitem, ariaNameRegex: ^Premium Cable (1 m) - $9.99$}}}
        - web_verifyTextVisible: {text: "(ID: cable-1)"}
        - web_scroll: {nodeSelector: {web: {ariaRole: listitem}}, amount: 10}
  - step: What upstream finds nothing by (no CSS selector, test id or role) gives way to the ref
    recording:
      web:
        - web_click: {ref: e24, nodeSelector: {web: {nthIndex: 0}}}
        - web_verifyTextVisible: {text: "(ID: cable-4)"}
        - web_click: {ref: e23, nodeSelector: {web: {ariaNameRegex: \QPremium Cable (1 m) - $9.99\E}}}
        - web_verifyTextVisible: {text: "(ID: adapter-2)"}
  - step: A CSS selector decides alone, as upstream's; the role beside it is not checked
    recording:
      web:
        - web_click: {nodeSelector: {web: {cssSelector: "li[data-product=cable-2]", ariaRole: link}}}
        - web_verifyTextVisible: {text: "(ID: cable-2)"}
"""


def test_upstreams_selectors_and_refs_replay(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail("upstream-shaped", UPSTREAM_SHAPED)
    assert cli("validate").returncode == 0
    result, document = run_json(cli)
    (trail,) = document["trails"]
    assert result.returncode == 0, trail["error"]


def test_a_recording_quotes_a_name_as_upstream_does(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail(
        "quoted",
        """
        trail:
          - step: Select the two-metre cable
            recording:
              web:
                - web_navigate: {url: /products.html}
                - tap: {ref: e13}
        """,
    )
    result, document = run_json(cli)
    assert result.returncode == 0, result.output
    (tap,) = [t for t in document["trails"][0]["steps"][0]["tools"] if t["delegated_from"] == ["tap"]]
    assert tap["args"] == {
        "nodeSelector": {"web": {"ariaRole": "listitem", "ariaNameRegex": "\\QPremium Cable (2 m) - $12.50\\E"}}
    }


def test_a_ref_that_is_not_on_screen(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail(
        "gone",
        """
        trail:
          - step: Tap something that is not there
            recording:
              web:
                - web_navigate: {url: /forms.html}
                - tap: {ref: e999}
        """,
    )
    result, document = run_json(cli)
    assert result.returncode == 1
    assert document["trails"][0]["steps"][0]["error"] == "tap: no element with ref 'e999' on the current screen"


# -- web_navigate's URLs ---------------------------------------------------------------------------------------

LOCAL_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Local</title></head>
<body><h1>A page next to the trail</h1><a href="other.html">Other</a></body></html>
"""
OTHER_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Other</title></head><body><h1>The other page</h1></body></html>
"""


def test_navigate_urls(cli: CliRunner, project: Project, browser: str) -> None:
    local = project.write("trails/pages/local.html", LOCAL_PAGE)
    project.write("trails/pages/other.html", OTHER_PAGE)
    project.write(
        "trails/nested/urls.trail.yaml",
        f"""
        trail:
          - step: A file next to the trail, relative to its folder
            recording:
              web:
                - web_navigate: {{url: ../pages/local.html}}
                - web_verifyElementVisible:
                    nodeSelector: {{web: {{headingLevel: 1, ariaNameRegex: A page next to the trail}}}}
                - web_click: {{nodeSelector: {{web: {{ariaRole: link, ariaNameRegex: Other}}}}}}
                - web_waitForUrl: {{pattern: "**/pages/other.html"}}
          - step: A path on base_url, then back and forward
            recording:
              web:
                - web_navigate: {{url: /about.html}}
                - web_waitForUrl: {{pattern: "^http://127\\\\.0\\\\.0\\\\.1:\\\\d+/about\\\\.html$"}}
                - web_navigate: {{action: BACK}}
                - web_verifyTextVisible: {{text: The other page}}
                - web_navigate: {{action: BACK}}
                - web_verifyTextVisible: {{text: A page next to the trail}}
                - web_navigate: {{action: FORWARD}}
                - web_navigate: {{action: FORWARD}}
                - web_verifyTextVisible: {{text: Trailblaze replays trails}}
          - step: An absolute URL
            recording:
              web:
                - web_navigate: {{url: "{local.as_uri()}"}}
                - web_verifyTextVisible: {{text: A page next to the trail}}
                - web_navigate: {{url: "data:text/html,<h1>Inline</h1>"}}
                - web_verifyTextVisible: {{text: Inline}}
        """,
    )
    result, document = run_json(cli)
    (trail,) = document["trails"]
    assert result.returncode == 0, trail["error"]
    assert [s["status"] for s in trail["steps"]] == ["passed"] * 3


def test_a_base_url_folder_serves_its_pages(cli: CliRunner, project: Project, browser: str) -> None:
    project.write("site/pages/local.html", LOCAL_PAGE)  # base_url: a folder, relative to trailblaze.yaml
    project.write("trailblaze.yaml", "base_url: site\ntimeout: 5\n")
    project.trail(
        "folder",
        """
        trail:
          - step: A path on a base_url that is a folder
            recording:
              web:
                - web_navigate: {url: /pages/local.html}
                - web_verifyTextVisible: {text: A page next to the trail}
        """,
    )
    result, document = run_json(cli)  # the folder's path used to be joined without file://: invalid URL
    assert result.returncode == 0, document["trails"][0]["error"]


def test_a_missing_local_page_fails_the_step(cli: CliRunner, project: Project, browser: str) -> None:
    project.trail("missing-page", failing_trail("/index.html", "web_navigate: {url: pages/none.html}"))
    result, document = run_json(cli)
    assert result.returncode == 1
    error = document["trails"][0]["steps"][1]["error"]
    assert error.startswith("web_navigate: goto pages/none.html: net::ERR_FILE_NOT_FOUND at file://")
    assert str(Path(project.root / "trails/pages/none.html").as_uri()) in error


def test_web_wait_waits_at_most_thirty_seconds_as_upstreams(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from trailblaze.drivers.web import tools

    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await real_sleep(0)

    async def waits() -> list[str]:
        monkeypatch.setattr(asyncio, "sleep", sleep)
        return [await tools.web_wait(seconds) for seconds in (1e12, -5, 0.5)]

    assert asyncio.run(waits()) == ["waited 30s (asked for 1e+12s)", "waited 0s (asked for -5s)", "waited 0.5s"]
    assert slept == [30.0, 0.0, 0.5]


def test_a_targets_web_block_gives_the_base_url(cli: CliRunner, project: Project, browser: str) -> None:
    """`targets: {shop: {platforms: {web: {base_url}}}}`: validate and run agree that `/path`
    URLs join it (the session starts there), with no base_url elsewhere."""
    shop = "targets:\n  shop:\n    platforms:\n      web: {base_url: sample-app}\n"
    project.write("trailblaze.yaml", "timeout: 5\n" + shop)
    project.trail(
        "shop",
        """
        config: {target: shop}
        trail:
          - step: Open the forms page of the shop
            recording:
              web:
                - web_navigate: {url: /forms.html}
                - web_verifyTextVisible: {text: Clear All}
        """,
    )
    assert cli("validate").returncode == 0
    result = cli("run")
    assert result.returncode == 0, result.output


STUCK_PAGES = {
    "busy": "<!doctype html><title>Busy</title><h1>Busy</h1>"
    "<script>setTimeout(() => { while (true) {} }, 200)</script>",
    "alerts": "<!doctype html><title>Alerts</title><h1>Alerts</h1>"
    '<script>setTimeout(() => { while (true) { alert("again") } }, 200)</script>',
}


@pytest.mark.parametrize("page", sorted(STUCK_PAGES))
def test_a_check_on_a_page_whose_script_never_returns_says_so_in_about_its_time(
    cli: CliRunner, project: Project, browser: str, page: str
) -> None:
    """A 5 s check on such a page took 35-41 s (the failure's outline and screenshot each waited
    out their own timeouts) while its message said "within 5s"."""
    project.write("site/stuck.html", STUCK_PAGES[page])
    project.write("trailblaze.yaml", "base_url: site\ntimeout: 2\n")
    project.trail(
        "stuck",
        """
        trail:
          - step: Open
            recording:
              web:
                - web_navigate: {url: /stuck.html}
          - verify: Text that never comes
            recording:
              web:
                - web_verifyTextVisible: {text: Nowhere}
        """,
    )
    started = time.monotonic()
    result = cli("run", "--json", "r.json")
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.output
    error = result.json("r.json")["trails"][0]["error"]
    assert "text 'Nowhere' visible: not possible within 2s: the page stopped answering" in error
    assert "step-2.console.log" in error and "step-2.png" not in error  # no screenshot was waited for
    assert elapsed < 30  # a safety net, not a measure of speed: it was over 40 s
