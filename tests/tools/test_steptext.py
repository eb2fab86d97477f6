"""Step texts written from recorded calls (``trailblaze.tools.steptext``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailblaze.tools import steptext
from trailblaze.tools.model import ToolCall

STATUS = {"web": {"cssSelector": 'select[name="status"]'}}
ADD = {"ariaRole": "link", "ariaNameRegex": "Add"}
ROW = {"web": {"ariaRole": "row"}, "containsChild": {"web": {"ariaRole": "rowheader", "ariaNameRegex": "Tickets"}}}
KYOTO = {"web": {"ariaRole": "heading", "ariaNameRegex": "Kyoto"}}


@pytest.mark.parametrize(
    ("name", "args", "text"),
    [
        ("web_navigate", {"url": "/about"}, "Open /about"),
        ("web_navigate", {"action": "BACK"}, "Go back"),
        ("web_selectOption", {"values": ["shipped"], "nodeSelector": STATUS}, "Select 'shipped' in status"),
        ("web_click", {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Search"}}}, "Click 'Search'"),
        (
            "web_click",
            {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "\\QSay (hi)\\E"}}},
            "Click 'Say (hi)'",
        ),
        (
            "web_click",
            {
                "nodeSelector": {
                    "web": {"cssSelector": "#content-main > div:nth-of-type(2) > table > tbody > tr > td > a"}
                }
            },
            f"Click a link{steptext.POSITION_WARNING}",  # never a wrapper's id: what it is, and how it is found
        ),
        (
            "web_click",
            {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Save", "nthIndex": 1}}},
            f"Click the 2nd 'Save'{steptext.POSITION_WARNING}",
        ),
        ("web_click", {"nodeSelector": {"web": ADD, "childOf": ROW}}, "Click 'Add' in the Tickets row"),
        (
            "web_click",
            {
                "nodeSelector": {
                    "web": ADD,
                    "childOf": {**ROW, "childOf": {"web": {"ariaRole": "table", "ariaNameRegex": "Help"}}},
                }
            },
            "Click 'Add' in the Tickets row of the Help table",
        ),
        (
            "web_click",
            {"nodeSelector": {"web": ADD, "childOf": {"web": {"ariaRole": "article"}, "containsChild": KYOTO}}},
            "Click 'Add' in the Kyoto card",
        ),
        (
            "web_click",
            {
                "nodeSelector": {
                    "web": ADD,
                    "childOf": {
                        "web": {"dataTestId": "snack-tile"},
                        "containsChild": {"web": {"cssSelector": ':text-is("Mochi")'}},
                    },
                }
            },
            "Click 'Add' in the Mochi snack tile",
        ),
        (
            "web_click",
            {"nodeSelector": {"web": ADD, "childOf": {"web": {"ariaRole": "caption"}}}},
            "Click 'Add' in the caption",
        ),
        ("web_click", {"nodeSelector": {"web": ADD, "childOf": {"web": {"cssSelector": "#apps"}}}}, "Click 'Add'"),
        (
            "web_type",
            {
                "text": "3",
                "nodeSelector": {
                    "web": {"ariaRole": "spinbutton", "ariaNameRegex": "Nights"},
                    "childOf": {"web": {"ariaRole": "group", "ariaNameRegex": "Capsule Inn"}},
                },
            },
            "Type '3' in Nights in the Capsule Inn group",
        ),
        (
            "assertVisibleBySelector",
            {"nodeSelector": {"web": ADD, "childOf": ROW}},
            "Check that 'Add' in the Tickets row is visible",
        ),
        ("web_click", {"nodeSelector": {"web": {"cssSelector": 'p:text-is("2 orders")'}}}, "Click '2 orders'"),
        ("web_click", {"ref": "e12", "longPress": True}, "Long-press 'e12'"),
        (
            "web_type",
            {"text": "ada", "nodeSelector": {"web": {"ariaRole": "textbox", "ariaNameRegex": "Name"}}},
            "Type 'ada' in Name",
        ),
        ("web_type", {"text": "ada", "nodeSelector": {"web": {"cssSelector": 'input[name="q"]'}}}, "Type 'ada' in q"),
        (
            "web_type",
            {"text": "ada", "nodeSelector": {"web": {"dataTestId": "name-input"}}},
            "Type 'ada' in name-input",
        ),
        (
            "web_fillSecret",
            {"value": "hunter2", "nodeSelector": {"web": {"cssSelector": "#password"}}},
            "Type a secret in password",
        ),
        ("web_pressKey", {"key": "Enter"}, "Press Enter"),
        ("web_verifyTextVisible", {"text": "Order 1045"}, "Check that 'Order 1045' is visible"),
        ("web_verifyTextNotVisible", {"text": "Loading"}, "Check that 'Loading' is not visible"),
        (
            "web_verifyElementCount",
            {"count": 3, "nodeSelector": {"web": {"dataTestId": "result-row"}}},
            "Check that 'result-row' finds 3",
        ),
        (
            "web_verifyElementState",
            {"state": "DISABLED", "nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Continue"}}},
            "Check that 'Continue' is disabled",
        ),
        ("web_verifyUrl", {"pattern": "**/orders"}, "Check that the URL matches '**/orders'"),
        ("web_verifyTitle", {"expected": "Orders"}, "Check that the title is 'Orders'"),
        ("assertNotVisibleWithText", {"text": "Loading.*"}, "Check that 'Loading.*' is not visible"),
        (
            "web_verifyValue",
            {"expected": "Ada", "type": "VALUE", "nodeSelector": {"web": {"dataTestId": "name"}}},
            "Check that name is 'Ada'",
        ),
        (
            "tapOnElementBySelector",
            {"nodeSelector": {"androidAccessibility": {"resourceIdRegex": "com.example:id/submit"}}},
            "Tap 'submit'",
        ),
        ("tapOnElementBySelector", {"selector": {"containsChild": {"textRegex": "Forms"}}}, "Tap 'Forms'"),
        (
            "tapOnElementBySelector",
            {
                "nodeSelector": {
                    "androidAccessibility": {"textRegex": "Add"},
                    "childOf": {
                        "androidAccessibility": {"resourceIdRegex": "com.example:id/model_row"},
                        "containsDescendants": [{"androidAccessibility": {"textRegex": "Tickets"}}],
                    },
                }
            },
            "Tap 'Add' in the Tickets model row",
        ),
        (
            "tapOnElementBySelector",
            {"nodeSelector": {"androidAccessibility": {"textRegex": "Add"}, "index": 2}},
            f"Tap the 3rd 'Add'{steptext.POSITION_WARNING}",
        ),
        ("tapOnElementWithText", {"text": "Sign in"}, "Tap 'Sign in'"),
        ("inputText", {"text": "ada@example.com"}, "Type 'ada@example.com'"),
        ("launchApp", {"appId": "com.example", "launchMode": "REINSTALL"}, "Launch com.example"),
        ("assertVisibleWithText", {"text": "Welcome"}, "Check that 'Welcome' is visible"),
        ("swipe", {"direction": "UP"}, "Swipe up"),
        ("pressKey", {"keyCode": "ENTER"}, "Press Enter"),
        ("runTrail", {"path": "shared/login.trail.yaml"}, "Run shared/login.trail.yaml"),
        ("myplugin_login", {"user": "ada", "remember": True}, "Run myplugin_login with user 'ada', remember 'True'"),
        ("myplugin_reset", {}, "Run myplugin_reset"),
        ("web_navigate", {"action": "GOTO"}, "Run web_navigate with action 'GOTO'"),  # no url: said plainly
    ],
)
def test_a_call_reads_as_a_sentence(name: str, args: dict[str, Any], text: str) -> None:
    assert steptext.describe_call(name, args) == text


def test_a_step_of_several_calls_says_each_and_stays_a_sentence() -> None:
    calls = [
        ToolCall("web_type", {"text": "ada", "nodeSelector": {"web": {"cssSelector": 'input[name="q"]'}}}),
        ToolCall("web_click", {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Search"}}}),
    ]
    assert steptext.step_text(calls, "x") == "Type 'ada' in q; Click 'Search'"
    assert steptext.step_text([], "web_currentUrl") == "web_currentUrl"
    long = [ToolCall("web_verifyTextVisible", {"text": "x" * 500})] * 5
    assert len(steptext.step_text(long, "x")) == steptext.MAX_CHARS


def test_the_reason_is_not_an_argument_to_describe() -> None:
    assert steptext.describe_call("web_pressKey", {"key": "Tab", "reason": "next field"}) == "Press Tab"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=10,
)


@given(
    name=st.sampled_from([*steptext.PHRASES, "other"]), args=st.dictionaries(st.text(max_size=12), _JSON, max_size=4)
)
def test_any_arguments_make_a_text_of_bounded_length(name: str, args: dict[str, Any]) -> None:
    text = steptext.step_text([ToolCall(name, args)], "fallback")
    assert text and len(text) <= steptext.MAX_CHARS
