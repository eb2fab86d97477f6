"""The web tools for the browser session and the generic probes on the web, in real Chromium
against the sample app: web_getStorageState, web_applyCookies, web_assertNetworkEvent,
web_requestDetails, findMatches, waitUntilNotVisible, rememberNumber, inputTextRandom."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.drivers.maestro import capture
from tests.support.project import make_project, run, write

pytestmark = pytest.mark.browser

SESSION = """
trail:
  - step: Storage, cookies and the network
    recording:
      web:
        - web_navigate: {url: "/forms.html?campaign=spring-launch"}
        - web_evaluate: {script: "localStorage.setItem('theme', 'dark'); document.cookie = 'seen=1; path=/'"}
        - web_getStorageState
        - web_applyCookies:
            cookiesJson: '{"cookies": [{"name": "sid", "value": "abc", "url": "http://127.0.0.1/", "sameSite": "lax"}]}'
        - web_evaluate:
            script: "fetch('/beacon', {method: 'POST', body: JSON.stringify({event: 'Checkout-Started'})})"
        - web_assertNetworkEvent: {eventName: checkout-started, timeoutMs: 3000}
        - web_assertNetworkEvent: {eventName: SPRING-LAUNCH, timeoutMs: 0}
        - web_requestDetails: {include: [BOUNDS, OFFSCREEN_ELEMENTS]}
  - step: Probes, numbers and random values
    recording:
      web:
        - findMatches: {selector: {web: {ariaRole: textbox}}}
        - waitUntilNotVisible: {nodeSelector: {web: {dataTestId: submission-result}}, timeoutMs: 100}
        - waitUntilNotVisible: {nodeSelector: {web: {dataTestId: name-input}}, timeoutMs: 200}
        - web_click: {nodeSelector: {web: {dataTestId: name-input}}}
        - inputTextRandom: {variable: code, prefix: "ORD-", digitCount: 4}
        - web_verifyValue: {expected: "{{memory.code}}", type: VALUE, nodeSelector: {web: {dataTestId: name-input}}}
        - web_navigate: {url: /lists.html}
        - rememberNumber: {variable: total, prompt: how many items, nodeSelector: {web: {cssSelector: "#count"}}}
        - assertEquals: {actual: "{{memory.total}}", expected: "50"}
"""

FAILURES = """
trail:
  - step: An event that was never sent
    recording:
      web:
        - web_navigate: {url: /index.html}
        - web_assertNetworkEvent: {eventName: never-sent, timeoutMs: 200}
"""

BAD_COOKIES = """
trail:
  - step: Cookies that are not JSON
    recording:
      web:
        - web_navigate: {url: /index.html}
        - web_applyCookies: {cookiesJson: "[{name: x"}
"""


def test_session_tools_and_probes_on_the_web(tmp_path: Path, browser: str) -> None:
    write(tmp_path, "trails/a-session.trail.yaml", SESSION)
    write(tmp_path, "trails/b-failures.trail.yaml", FAILURES)
    write(tmp_path, "trails/c-cookies.trail.yaml", BAD_COOKIES)
    capture.OUTPUTS.clear()
    project = make_project(
        tmp_path,
        f"base_url: sample-app\ntimeout: 5\nbrowser: {browser}\n",
        ("no:terminal", "tests.drivers.maestro.capture"),
    )
    result = run(project, driver="web")
    session, failures, cookies = result.trails
    assert [(s.status, s.error) for s in session.steps] == [("passed", None), ("passed", None)]
    outputs = dict(capture.OUTPUTS)
    state = json.loads(outputs["web_getStorageState"])
    assert {"name": "seen", "value": "1"}.items() <= state["cookies"][0].items()
    assert state["origins"][0]["localStorage"] == [{"name": "theme", "value": "dark"}]
    assert outputs["web_applyCookies"] == "applied 1 cookie(s)"
    assert outputs["web_requestDetails"] == "noted: BOUNDS, OFFSCREEN_ELEMENTS"
    matches = outputs["findMatches"]
    assert [(m["resourceId"], m["matchedText"]) for m in matches][:2] == [("name-input", None), ("email-input", None)]
    assert all(m["bounds"]["right"] > m["bounds"]["left"] for m in matches)
    waits = [output for name, output in capture.OUTPUTS if name == "waitUntilNotVisible"]
    assert waits == [True, False]
    assert outputs["rememberNumber"] == {"total": "50"}
    assert outputs["inputTextRandom"].startswith("typed 'ORD-")
    assert failures.status == "failed"
    assert "web_assertNetworkEvent: no request named 'never-sent' in its URL or body after 200 ms" in (
        failures.error or ""
    )
    assert cookies.status == "failed"
    assert "web_applyCookies: cookiesJson is not JSON: Expecting property name enclosed in double quotes" in (
        cookies.error or ""
    )
