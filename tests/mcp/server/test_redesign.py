"""What an agent records through ``trailblaze mcp`` is a test worth keeping: a session driven by
the refs on the screen alone (the test gives no selector) saves a trail that ``trailblaze run``
replays on the page, and on a redesign of it that adds wrappers, reorders sections and renames
every class (tests/drivers/web/pages); one of many equal links is recorded by the row that holds
it, and replays when the rows move and a new group comes first."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.server.support import ok, server_command, stdio, wire_data
from tests.support.cli import CliRunner, Project, cli_env
from trailblaze.trail.loader import load_trail

pytestmark = [pytest.mark.usefixtures("browser"), pytest.mark.slow]

PAGES = Path(__file__).resolve().parents[2] / "drivers" / "web" / "pages"
ORIGINAL = (PAGES / "original").as_uri()
REDESIGNED = (PAGES / "redesigned").as_uri()


def refs(screen: str, element: str) -> list[str]:
    """The refs of the screen's lines that show ``element`` (``combobox``, ``button "Search"``)."""
    return re.findall(rf"^\s*{re.escape(element)}(?: [^\[\n]*)? \[(e\d+)]$", screen, re.MULTILINE)


def only_ref(screen: str, element: str) -> str:
    found = refs(screen, element)
    assert len(found) == 1, f"{element}: {found} in\n{screen}"
    return found[0]


def _orders_project(project: Project) -> None:
    project.write("trailblaze.yaml", f"base_url: {ORIGINAL}\ntimeout: 5\n")


def test_a_session_driven_by_refs_replays_on_the_page_and_on_its_redesign(project: Project, cli: CliRunner) -> None:
    _orders_project(project)

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            ok(await client.call_tool("trail", {"action": "START", "name": "orders"}))
            out["open"] = ok(await client.call_tool("web_navigate", {"url": "/orders.html"}))
            screen = ok(await client.call_tool("ask", {"question": "what can I search by?"}))["screen"]
            out["type"] = ok(await client.call_tool("web_type", {"ref": only_ref(screen, "textbox"), "text": "ada"}))
            out["select"] = ok(
                await client.call_tool("web_selectOption", {"ref": only_ref(screen, "combobox"), "values": ["shipped"]})
            )
            out["search"] = ok(await client.call_tool("web_click", {"ref": only_ref(screen, 'button "Search"')}))
            screen = ok(await client.call_tool("ask", {"question": "which orders are shown?"}))["screen"]
            details = refs(screen, 'button "Details"')
            assert len(details) == 2, screen  # Ada Lovelace's and Ada Yonath's orders
            out["details"] = ok(
                await client.call_tool("tap", {"ref": details[1], "reason": "Open the second order's details"})
            )
            screen = ok(await client.call_tool("ask", {"question": "what do the details say?"}))["screen"]
            shown = only_ref(screen, 'paragraph "Order 1045 · Ada Yonath · shipped"')
            out["check"] = ok(await client.call_tool("assertVisible", {"ref": shown}))
            out["save"] = ok(await client.call_tool("trail", {"action": "SAVE"}))
        return out

    out = asyncio.run(scenario())
    texts = [out[key]["recorded"]["text"] for key in ("open", "type", "select", "search", "details", "check")]
    assert texts == [
        "Open /orders.html",
        "Type 'ada' in q",
        "Select 'shipped' in status",
        "Click 'Search'",
        "Open the second order's details",
        "Check that 'Order 1045 · Ada Yonath · shipped' is visible",
    ]
    saved = project.root / out["save"]["file"]
    steps = load_trail(saved, environ={}).steps
    targets = [call.args.get("nodeSelector") for step in steps for call in (step.recordings or {})["web"]]
    assert targets == [
        None,  # web_navigate
        {"web": {"cssSelector": 'input[name="q"]'}},
        {"web": {"cssSelector": 'select[name="status"]'}},
        {"web": {"ariaRole": "button", "ariaNameRegex": "Search"}},
        {
            "web": {"ariaRole": "button", "ariaNameRegex": "Details"},
            "childOf": {
                "web": {"ariaRole": "row"},
                "containsChild": {"web": {"ariaRole": "cell", "ariaNameRegex": "1045"}},
            },
        },
        {"web": {"cssSelector": 'p:text-is("Order 1045 · Ada Yonath · shipped")'}},
    ]
    assert "ref:" not in saved.read_text(encoding="utf-8")  # no ephemeral refs

    on_the_page = cli("run", str(saved), cwd=project.root)
    assert on_the_page.returncode == 0, on_the_page.output
    on_the_redesign = cli("run", str(saved), "--base-url", REDESIGNED, cwd=project.root)
    assert on_the_redesign.returncode == 0, on_the_redesign.output


def ref_after(screen: str, landmark: str, element: str) -> str:
    """The ref of the first ``element`` line after the ``landmark`` line, as an agent reading the
    screen picks "the Add link of the Tickets row"."""
    lines = screen.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith(landmark)), None)
    assert start is not None, f"{landmark} not in\n{screen}"
    for line in lines[start + 1 :]:
        found = refs(line, element)
        if found:
            return found[0]
    raise AssertionError(f"no {element} after {landmark} in\n{screen}")


def test_the_add_link_of_one_row_replays_when_blocks_are_wrapped_reordered_and_a_group_added_first(
    project: Project, cli: CliRunner
) -> None:
    # Django's admin index: every model's row has an Add link; the agent clicks the Tickets row's
    project.write("trailblaze.yaml", f"base_url: {ORIGINAL}\ntimeout: 5\n")

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio(project.root) as client:
            ok(await client.call_tool("device", {"action": "WEB"}))
            ok(await client.call_tool("trail", {"action": "START", "name": "add a ticket"}))
            screen = ok(await client.call_tool("web_navigate", {"url": "/admin.html"}))["screen"]
            assert len(refs(screen, 'link "Add"')) == 5, screen
            add = ref_after(screen, 'rowheader "Tickets"', 'link "Add"')
            out["add"] = ok(await client.call_tool("web_click", {"ref": add}))
            out["check"] = ok(
                await client.call_tool(
                    "step",
                    {
                        "objective": "The ticket form opened",
                        "hint": "VERIFY",
                        "tools": "- web_verifyTextVisible: {text: Opened tickets/ticket/add/}",
                    },
                )
            )
            out["save"] = ok(await client.call_tool("trail", {"action": "SAVE"}))
        return out

    out = asyncio.run(scenario())
    assert out["add"]["recorded"]["text"] == "Click 'Add' in the Tickets row"
    saved = project.root / out["save"]["file"]
    (click,) = (load_trail(saved, environ={}).steps[1].recordings or {})["web"]
    assert click.args["nodeSelector"] == {
        "web": {"ariaRole": "link", "ariaNameRegex": "Add"},
        "childOf": {
            "web": {"ariaRole": "row"},
            "containsChild": {"web": {"ariaRole": "rowheader", "ariaNameRegex": "Tickets"}},
        },
    }
    for base_url in (ORIGINAL, REDESIGNED):  # the redesign: each block wrapped, apps reordered, Billing first
        replay = cli("run", str(saved), "--base-url", base_url, cwd=project.root)
        assert replay.returncode == 0, replay.output


def _inspect(inspector: Path, cwd: Path, tool: str, **args: str) -> dict[str, Any]:
    """One ``tools/call`` through the MCP Inspector's CLI: a connection (and a browser) of its own."""
    command = [str(inspector), "--cli", *cli_command(), "--method", "tools/call", "--tool-name", tool]
    for key, value in args.items():
        command += ["--tool-arg", f"{key}={value}"]
    result = subprocess.run(
        command, cwd=cwd, env=cli_env(), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stdout + result.stderr
    reply: dict[str, Any] = json.loads(result.stdout)
    assert reply["isError"] is False, reply
    return reply


def cli_command() -> list[str]:
    return server_command(["mcp"])


def test_the_inspector_records_by_refs_what_replays_on_the_redesign(
    inspector: Path, project: Project, cli: CliRunner
) -> None:
    # The Inspector's CLI makes one call per connection, so the refs are read in one call and
    # acted on in the next, on the same page (ids are numbered from the page, as upstream does);
    # what the second call recorded is written into a trail and replayed
    _orders_project(project)
    opened = _inspect(
        inspector, project.root, "step", objective="Open the orders", tools="- web_navigate: {url: /orders.html}"
    )
    screen = wire_data(opened)["screen"]
    calls = [
        {"web_navigate": {"url": "/orders.html"}},
        {"web_type": {"ref": only_ref(screen, "textbox"), "text": "ada"}},
        {"web_selectOption": {"ref": only_ref(screen, "combobox"), "values": ["shipped"]}},
        {"web_click": {"ref": only_ref(screen, 'button "Search"')}},
        {"web_verifyTextVisible": {"text": "2 orders"}},
    ]
    searched = _inspect(
        inspector, project.root, "step", objective="Search Ada's shipped orders", tools=json.dumps(calls)
    )
    recorded = wire_data(searched)["recorded"]["tools"]
    assert recorded[1:4] == [
        {"web_type": {"text": "ada", "nodeSelector": {"web": {"cssSelector": 'input[name="q"]'}}}},
        {
            "web_selectOption": {
                "values": ["shipped"],
                "nodeSelector": {"web": {"cssSelector": 'select[name="status"]'}},
            }
        },
        {"web_click": {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Search"}}}},
    ]
    recording = json.dumps(recorded)  # JSON is YAML: the recorded calls as a trail's recording
    trail = project.trail(
        "inspected", f"trail:\n  - step: Search Ada's shipped orders\n    recording:\n      web: {recording}\n"
    )
    for base_url in (ORIGINAL, REDESIGNED):
        replay = cli("run", str(trail), "--base-url", base_url, cwd=project.root)
        assert replay.returncode == 0, replay.output
