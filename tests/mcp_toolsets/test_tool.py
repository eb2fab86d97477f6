"""Calling MCP tools: request _meta, the _trailblazeContext envelope, results, delegation, errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import CliRunner, Project
from trailblaze.mcpclient.tool import ref_cycle

from .conftest import Recorded

pytestmark = pytest.mark.usefixtures("browser")


def _setup(project: Project, probe: Path, extra: str = "") -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        base_url: sample-app
        timeout: 5
        mcp_servers:
          - script: {probe}
            env: {{PROBE_SENTINEL: from-yaml}}
        {extra}
        """,
    )


def test_a_call_carries_meta_envelope_and_environment(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    project.trail(
        "calls",
        """
        config: {memory: {user: ada}}
        trail:
          - step: report
            recording:
              web:
                - report: {note: "hi {{memory.user}}"}
        """,
    )
    result = cli("run", "--json", "results.json", env={**recorded.env, "PROBE_INHERITED": "yes"})
    assert result.returncode == 0, result.output
    seen = recorded.one("report")
    meta = seen["meta"]
    assert meta["trailblazeInvocationId"].startswith("inv-")
    tb = meta["trailblaze"]
    assert tb["baseUrl"].startswith("http://127.0.0.1:")
    assert tb["baseUrl"].endswith("/rpc")
    assert tb["sessionId"].startswith("sess-")
    assert tb["invocationId"] == meta["trailblazeInvocationId"]
    assert tb["device"] == {  # our names, and upstream's (its SDK reads those)
        "id": "chromium",
        "platform": "WEB",
        "driver": "playwright-native",
        "width": 1280,
        "height": 720,
        "driverType": "playwright-native",
        "widthPixels": 1280,
        "heightPixels": 720,
    }
    assert tb["capabilities"] == {"sampling": False, "callbacks": True}
    assert tb["token"]
    assert tb["memory"] == {"user": "ada"}  # an aware server: the memory, as upstream's envelope has it
    assert "target" not in tb  # no target configured
    # a script: server is Trailblaze-aware: it gets the envelope as a reserved argument
    assert seen["arguments"]["note"] == "hi ada"
    assert seen["arguments"]["_trailblazeContext"] == {
        "memory": {"user": "ada"},
        "device": {"platform": "WEB", "widthPixels": 1280, "heightPixels": 720, "driverType": "playwright-native"},
    }
    env = seen["env"]
    assert env["PROBE_SENTINEL"] == "from-yaml"
    assert env["PROBE_INHERITED"] == "yes"
    assert env["TRAILBLAZE_DEVICE_PLATFORM"] == "WEB"
    assert env["TRAILBLAZE_DEVICE_DRIVER"] == "playwright-native"
    assert env["TRAILBLAZE_DEVICE_WIDTH_PX"] == "1280"
    assert env["TRAILBLAZE_DEVICE_HEIGHT_PX"] == "720"
    assert env["TRAILBLAZE_SESSION_ID"] == tb["sessionId"]
    assert env["TRAILBLAZE_TOOLSET_FILE"] == str(probe)
    assert env["TRAILBLAZE_CALLBACK_URL"] == tb["baseUrl"]
    assert env["TRAILBLAZE_CALLBACK_TOKEN"] == tb["token"]
    assert seen["cwd"] == str(probe.parent)  # a script runs in its own folder
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["status"], t["delegated_from"]) for t in tools] == [("report", "passed", [])]


PY_PLUGIN = """
import trailblaze
from trailblaze import Delegate


@trailblaze.tool(name="py_outer", delegating=True)
async def outer(ctx: trailblaze.ToolContext, page: str) -> list[Delegate]:
    \"\"\"A Python delegating tool that delegates to an MCP delegating tool.\"\"\"
    return [
        Delegate("delegate", {"delegates": [
            {"tool": "web_navigate", "args": {"url": page}},
            {"tool": "py_check", "args": {"text": "Forms"}},
            {"tool": "report", "args": {"note": "inner"}},
        ]}),
        Delegate("delegate_structured", {"delegates": [{"tool": "web_verifyTextVisible", "args": {"text": "Forms"}}]}),
    ]


@trailblaze.tool(name="py_check", delegating=True)
async def check(ctx: trailblaze.ToolContext, text: str) -> list[Delegate]:
    \"\"\"A Python delegating tool reached through an MCP tool.\"\"\"
    return [Delegate("web_verifyTextVisible", {"text": text})]


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(outer)
    register(check)
"""


def test_nested_delegation_through_mcp_and_python_is_executed_and_recorded(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe, "plugins: [pytools]")
    project.write("pytools.py", PY_PLUGIN)
    project.trail(
        "nested",
        """
        trail:
          - step: sign up
            recording:
              web:
                - py_outer: {page: /forms.html}
        """,
    )
    result = cli("run", "--json", "results.json", env=recorded.env)
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["delegated_from"]) for t in tools] == [
        ("web_navigate", ["py_outer", "delegate"]),
        ("web_verifyTextVisible", ["py_outer", "delegate", "py_check"]),
        ("report", ["py_outer", "delegate"]),
        ("web_verifyTextVisible", ["py_outer", "delegate_structured"]),
    ]
    assert all(t["recordable"] and t["status"] == "passed" for t in tools)
    assert recorded.one("report")["note"] == "inner"


def test_is_error_fails_the_step_with_the_servers_message(cli: CliRunner, project: Project, probe: Path) -> None:
    _setup(project, probe)
    project.trail(
        "fails",
        """
        trail:
          - step: fail
            recording:
              web:
                - fail: {message: the account is locked}
          - step: never runs
            recording:
              web:
                - report: {}
        """,
    )
    result = cli("run", "--json", "results.json")
    assert result.returncode == 1, result.output
    trail = result.json()["trails"][0]
    assert trail["status"] == "failed"
    assert trail["steps"][0]["error"] == "fail: Error executing tool fail: the account is locked"  # the server's text
    assert trail["steps"][1]["status"] == "skipped"


@pytest.mark.parametrize(
    ("exit_code", "status"),
    [(None, "failed"), (1, "failed"), (2, "error"), (3, "error")],
)
def test_an_errors_exit_code_in_the_results_meta_says_what_kind_of_failure_it_is(
    cli: CliRunner, project: Project, probe: Path, exit_code: int | None, status: str
) -> None:
    """What the @trailblaze/scripting SDK sends for a tool that throws: a failed check (1) or a
    tool that broke (2) or was misused (3)."""
    _setup(project, probe)
    meta = {} if exit_code is None else {"trailblaze": {"exitCode": exit_code}}
    project.trail(
        "kinds",
        f"""
        trail:
          - step: fail in some way
            recording:
              web:
                - answer: {{meta: {json.dumps(meta)}, is_error: true, text: "TypeError: x is undefined"}}
        """,
    )
    result = cli("run", "--json", "results.json")
    assert result.returncode == (exit_code or 1), result.output
    step = result.json()["trails"][0]["steps"][0]
    assert (step["status"], step["error"]) == (status, "answer: TypeError: x is undefined")


def test_a_results_memory_changes_are_applied_to_the_sessions_memory(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(project, probe)
    change = {"trailblaze": {"memoryDelta": {"greeting": "hello", "count": 2}, "memoryDeletions": ["user"]}}
    project.trail(
        "memory",
        f"""
        config: {{memory: {{user: ada, kept: yes}}}}
        trail:
          - step: remember and forget
            recording:
              web:
                - answer: {{meta: {json.dumps(change)}}}
                - context_report: {{note: "{{{{memory.greeting}}}}"}}
        """,
    )
    result = cli("run", env=recorded.env)
    assert result.returncode == 0, result.output
    seen = recorded.one("context_report")
    assert seen["note"] == "hello"
    assert seen["meta"]["trailblaze"]["memory"] == {"kept": "yes", "greeting": "hello", "count": 2}


def test_memory_changes_that_are_not_values_and_names_are_misuse(cli: CliRunner, project: Project, probe: Path) -> None:
    _setup(project, probe)
    project.trail(
        "bad-memory",
        """
        trail:
          - step: remember wrongly
            recording:
              web:
                - answer: {meta: {trailblaze: {memoryDeletions: [1, 2]}}}
        """,
    )
    result = cli("run", "--json", "results.json")
    assert result.returncode == 3, result.output
    error = result.json()["trails"][0]["steps"][0]["error"]
    assert "returned _meta.trailblaze.memoryDelta/memoryDeletions that are not an object of values and a list" in error


def test_an_aware_tool_gets_the_app_target_of_its_session(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    _setup(
        project,
        probe,
        """
        target: shop
        targets:
          shop:
            display_name: The Shop
            app_ids: [com.example.shop]
            platforms:
              web: {app_ids: [shop-web]}
              android: {app_ids: [com.example.shop.android]}
        """,
    )
    project.trail("target", "trail:\n  - step: report\n    recording:\n      web:\n        - context_report: {}\n")
    result = cli("run", env=recorded.env)
    assert result.returncode == 0, result.output
    target = recorded.one("context_report")["meta"]["trailblaze"]["target"]
    assert target == {"id": "shop", "displayName": "The Shop", "appIds": ["shop-web", "com.example.shop"]}


def test_delegates_from_a_tool_not_marked_delegating_are_refused(cli: CliRunner, project: Project, probe: Path) -> None:
    _setup(project, probe)
    project.trail(
        "undeclared",
        """
        trail:
          - step: undeclared
            recording:
              web:
                - undeclared_delegates: {}
        """,
    )
    result = cli("run")
    assert result.returncode == 3, result.output
    assert "returned _trailblaze_delegates but is not marked delegating" in result.output
    assert '"trailblaze/isDelegating": true' in result.output


def test_bad_delegates_are_reported_before_any_runs(cli: CliRunner, project: Project, probe: Path) -> None:
    _setup(project, probe)
    project.trail(
        "bad-delegates",
        """
        trail:
          - step: bad
            recording:
              web:
                - delegate:
                    delegates:
                      - {tool: report, args: {note: first}}
                      - {tool: no_such_tool, args: {}}
        """,
    )
    result = cli("run", "--json", "results.json")
    assert result.returncode == 3, result.output
    assert "unknown tool 'no_such_tool' (delegated by delegate)" in result.output
    assert result.json()["trails"][0]["steps"][0]["tools"] == []  # nothing ran


def test_arguments_are_checked_against_the_servers_schema(cli: CliRunner, project: Project, probe: Path) -> None:
    _setup(project, probe)
    trail = project.trail(
        "schema",
        """
        trail:
          - step: wrong type
            recording:
              web:
                - report: {note: 5}
        """,
    )
    result = cli("run")
    assert result.returncode == 3, result.output
    assert f"{trail.relative_to(project.root)}:5:" in result.output  # trails under the working directory
    assert "report: note: 5 is not of type 'string'" in result.output


def test_only_trailblaze_aware_tools_get_the_envelope(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        base_url: sample-app
        mcp_servers:
          - command: {sys.executable}
            args: [{probe}]
        """,
    )
    project.trail(
        "aware",
        """
        trail:
          - step: both
            recording:
              web:
                - report: {note: plain}
                - context_report: {note: marked}
        """,
    )
    result = cli("run", env=recorded.env)
    assert result.returncode == 0, result.output
    assert recorded.one("report")["arguments"] == {"note": "plain"}  # a command: server is not Trailblaze-aware
    marked = recorded.one("context_report")["arguments"]
    assert marked["note"] == "marked"
    assert marked["_trailblazeContext"]["device"]["platform"] == "WEB"
    assert recorded.one("report")["env"]["TRAILBLAZE_TOOLSET_FILE"] == str(project.root / "trailblaze.yaml")
    assert recorded.one("report")["cwd"] == str(project.root)


PATTERN_SERVER = """
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

server = MCPServer("patterns")


@server.tool()
def slow(s: Annotated[str, Field(pattern="^(a|a)+$")]) -> str:
    return s


server.run()
"""


def test_a_servers_schema_pattern_is_matched_with_a_time_bound(cli: CliRunner, project: Project) -> None:
    """A `pattern` in a tool's schema that backtracks without end (here on 40 a's and a '!')
    is an argument problem after TRAILBLAZE_REGEX_TIMEOUT, not a validate or run that hangs."""
    project.write("patterns.py", PATTERN_SERVER)
    project.write("trailblaze.yaml", "base_url: sample-app\nmcp_servers:\n  - script: patterns.py\n")
    text = "a" * 40 + "!"
    project.trail("slow", f"trail:\n  - step: s\n    recording:\n      web:\n        - slow: {{s: '{text}'}}\n")
    for command in ("validate", "run"):
        result = cli(command, env={"TRAILBLAZE_REGEX_TIMEOUT": "0.3"}, timeout=120)
        assert result.returncode == 3, result.output
        assert "slow: s: matching the schema's pattern '^(a|a)+$' took over 0.3s" in result.output
    project.trail("fast", "trail:\n  - step: s\n    recording:\n      web:\n        - slow: {s: b}\n")
    mismatch = cli("validate", "trails/fast.trail.yaml")
    assert mismatch.returncode == 3 and "slow: s: 'b' does not match '^(a|a)+$'" in mismatch.output


TREE = {"$defs": {"node": {"properties": {"kids": {"items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}


@pytest.mark.parametrize(
    ("schema", "starts"),
    [
        ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "#/$defs/a"),
        ({"$ref": "#"}, "#"),
        (
            {"$defs": {"a": {"allOf": [{"not": {"$ref": "#/$defs/a"}}]}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
            "#/$defs/a",
        ),
        (TREE, None),  # a tree: each step checks a smaller value, which ends
        ({"properties": {"next": {"$ref": "#"}}}, None),
        ({"$ref": "#/$defs/missing"}, None),  # jsonschema names what is missing
    ],
)
def test_a_ref_cycle_that_never_reaches_a_smaller_value_is_found(schema: dict[str, Any], starts: str | None) -> None:
    found = ref_cycle(schema)
    assert (found[0] if found else None) == starts
    assert not found or found[0] == found[-1]


DEF_NAMES = st.sampled_from(["a", "b", "c"])
SUBSCHEMAS = st.recursive(
    st.builds(lambda name: {"$ref": f"#/$defs/{name}"}, DEF_NAMES) | st.just({"type": "object"}),
    lambda inner: st.one_of(
        st.builds(lambda items: {"allOf": items}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda items: {"anyOf": items}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda one: {"not": one}, inner),
        st.builds(lambda one: {"properties": {"x": one}}, inner),
        st.builds(lambda one: {"items": one}, inner),
    ),
    max_leaves=6,
)


@given(st.fixed_dictionaries({"a": SUBSCHEMAS, "b": SUBSCHEMAS, "c": SUBSCHEMAS}), SUBSCHEMAS)
@settings(max_examples=300, deadline=None)
def test_a_schema_without_a_cycle_validates_without_recursing_for_ever(defs: dict[str, Any], root: Any) -> None:
    import jsonschema

    schema = {**root, "$defs": defs}
    if ref_cycle(schema) is not None:
        return
    validator = jsonschema.Draft202012Validator(schema)
    for value in ({}, {"x": {"x": [{}]}}, [[{}]], 1):
        list(validator.iter_errors(value))  # a RecursionError here is a cycle the check missed
