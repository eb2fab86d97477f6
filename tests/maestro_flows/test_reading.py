"""Reading Maestro flow files into trails (trailblaze/drivers/maestro/flow.py), without a device:
the shape that makes a file a flow, where each step is written, ${…} and its scopes, runFlow
files inline, the workspace rules — and any input at all read into a trail or one clear error."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.drivers.maestro.commands import ARGUMENTS, UNSUPPORTED
from trailblaze.drivers.maestro.flow import looks_like_flow, read_flow, split_flow
from trailblaze.drivers.maestro.workspace import flow_workspace_for

APP = "com.example.app"


def flow(tmp_path: Path, text: str, name: str = "flow.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def read(path: Path, env: dict[str, str] | None = None, environ: dict[str, str] | None = None) -> Any:
    return read_flow(path, default_id=path.stem, given_env=env or {}, environ=environ or {})


def test_one_step_per_command_at_its_line_with_the_hooks_around(tmp_path: Path) -> None:
    path = flow(
        tmp_path,
        f"# a comment\nappId: {APP}\nname: Sign in\ntags: smoke\nonFlowStart:\n  - launchApp\n"
        "onFlowComplete:\n  commands:\n    - back\n---\n- tapOn: OK\n\n- assertVisible:\n    id: done\n",
    )
    assert looks_like_flow(path)
    trail, problems = read(path)
    assert problems == []
    assert (trail.id, trail.title, trail.config.tags) == ("Sign in", "Sign in", ["smoke"])
    assert [(s.text, s.kind, s.location.line) for s in trail.steps] == [
        (f"onFlowStart: launchApp: {APP}", "step", 6),
        ("tapOn: OK", "step", 11),
        ("assertVisible: id: done", "verify", 13),
        ("onFlowComplete: back", "step", 9),
    ]
    call = trail.steps[0].recordings["ios"][0]
    assert (call.name, call.args) == ("mobile_maestro", {"commands": [{"launchApp": {"appId": APP}}]})
    assert set(trail.steps[0].recordings) == {"android", "ios"}


def test_a_web_flow_is_recorded_for_the_web_driver(tmp_path: Path) -> None:
    trail, problems = read(flow(tmp_path, "url: https://example.com\n---\n- launchApp\n- back\n"))
    assert problems == []
    assert trail.config.devices == {"web": "playwright-native"}
    assert trail.steps[0].recordings["web"][0].args == {"commands": [{"launchApp": {"appId": "https://example.com"}}]}


@pytest.mark.parametrize(
    "text",
    [
        "name: x\n---\n- back\n",  # no app, no url
        f"appId: {APP}\n- back\n",  # no separator
        "trail:\n  - step: x\n",  # a trail
        f"- appId: {APP}\n---\n- back\n",  # a header that is a list
        f"appId: {APP}\n---\ntapOn: OK\n",  # commands that are no list
    ],
)
def test_what_is_not_shaped_like_a_flow(tmp_path: Path, text: str) -> None:
    assert not looks_like_flow(flow(tmp_path, text))


def test_variables_from_their_scopes(tmp_path: Path) -> None:
    path = flow(
        tmp_path,
        f"appId: {APP}\nenv:\n  USER: ${{USER || 'ada'}}\n  GREETING: hi ${{USER}}\n---\n"
        "- inputText: ${GREETING} ${MAESTRO_TEAM} \\${LITERAL}\n"
        "- runFlow:\n    env: {USER: bob}\n    commands:\n      - inputText: ${USER} ${MAESTRO_FILENAME}\n",
    )
    trail, problems = read(path, environ={"MAESTRO_TEAM": "blue", "HOME": "/root"})
    assert problems == []
    assert trail.steps[0].recordings["android"][0].args == {"commands": [{"inputText": "hi ada blue ${LITERAL}"}]}
    inner = trail.steps[1].recordings["android"][0].args["commands"][0]["runFlow"]["commands"][0]
    assert inner == {"inputText": {"text": "bob flow", "at": f"{path}:10"}}
    # -e wins over MAESTRO_*, and the header's `||` reads it
    trail, _ = read(path, env={"USER": "grace", "MAESTRO_TEAM": "red"}, environ={"MAESTRO_TEAM": "blue"})
    assert trail.steps[0].recordings["android"][0].args == {"commands": [{"inputText": "hi grace red ${LITERAL}"}]}


def test_run_flow_files_go_inline_with_their_lines(tmp_path: Path) -> None:
    flow(
        tmp_path,
        "appId: x\nenv: {WHO: sub}\n---\n- tapOn: ${WHO}\n- runFlow:\n    when: {true: '${ON}'}\n"
        "    commands: [back]\n",
        "parts/sub.yaml",
    )
    path = flow(tmp_path, f"appId: {APP}\n---\n- runFlow:\n    file: parts/sub.yaml\n    env: {{ON: 'false'}}\n")
    trail, problems = read(path)
    assert problems == []
    (step,) = trail.steps
    command = step.recordings["android"][0].args["commands"][0]["runFlow"]
    assert command["label"] == "runFlow parts/sub.yaml"
    tap, inner = command["commands"]
    assert tap == {"tapOn": {"text": "sub", "at": f"{tmp_path / 'parts/sub.yaml'}:4"}}
    assert inner["runFlow"]["when"] == {"true": "false"}


def test_workspace_rules(tmp_path: Path) -> None:
    top = flow(tmp_path, f"appId: {APP}\n---\n- back\n", "flows/top.yaml")
    sub = flow(tmp_path, f"appId: {APP}\n---\n- back\n", "flows/sub/inner.yaml")
    workspace = flow_workspace_for(sub, tmp_path)  # the project's folder holds no flow: flows/ is the workspace
    assert workspace.folder == (tmp_path / "flows").resolve()
    assert workspace.takes(top) and not workspace.takes(sub)
    flow(tmp_path, "flows: ['*', 'sub/**']\nincludeTags: [a]\nexcludeTags: b\n", "flows/config.yaml")
    workspace = flow_workspace_for(sub, tmp_path)
    assert workspace.takes(sub)
    assert workspace.wants(["a"]) and not workspace.wants(["a", "b"]) and not workspace.wants([])


# -- any input ---------------------------------------------------------------------------------------

_NAMES = st.sampled_from(sorted([*ARGUMENTS, *UNSUPPORTED, "tapOnn", "runFlow", "repeat", "retry"]))
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.text(string.ascii_letters + " ${}|'.*/%,", max_size=12),
    st.sampled_from(["${A}", "${A || 'x'}", "${output.x}", "sub.yaml", "loop.yaml", "50%, 50%"]),
)
_KEYS = st.sampled_from(["text", "id", "commands", "file", "env", "when", "times", "while", "index", "optional", "x"])
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=10,
)
_COMMANDS = st.lists(st.one_of(_NAMES, st.dictionaries(_NAMES, _VALUES, min_size=1, max_size=1), _VALUES), max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commands=_COMMANDS, env=st.dictionaries(st.sampled_from(["A", "B"]), _SCALARS, max_size=2))
def test_any_flow_reads_into_a_trail_or_clear_problems(tmp_path: Path, commands: list[Any], env: Any) -> None:
    flow(tmp_path, f"appId: {APP}\n---\n- runFlow: loop.yaml\n", "loop.yaml")
    text = yaml.safe_dump({"appId": APP, "env": env}) + "---\n" + yaml.safe_dump(commands)
    path = flow(tmp_path, text)
    try:
        trail, problems = read(path)
    except TrailblazeError as exc:  # the file as a whole cannot be read: one located message
        failure: TrailblazeError | None = exc
    else:
        failure = None
    if failure is not None:
        assert str(failure).startswith(str(path))
        return
    for problem in problems:
        assert isinstance(problem, UsageError)
        assert problem.location is not None and problem.location.path is not None
    assert all(s.location.line is not None for s in trail.steps)


@settings(max_examples=200, deadline=None)
@given(st.text(string.printable, max_size=80))
def test_any_text_splits_or_is_no_flow(text: str) -> None:
    parts = split_flow(text)
    if parts is not None:
        header, body = parts
        assert body.count("\n") >= header.count("\n")  # the commands keep their line numbers


def test_commands_maestro_writes_bare(tmp_path: Path) -> None:
    text = f"appId: {APP}\n---\n- eraseText\n- inputRandomNumber\n- inputRandomText\n- hideKeyboard\n- stopApp\n"
    trail, problems = read(flow(tmp_path, text))
    assert problems == []
    assert trail.steps[-1].recordings["android"][0].args == {"commands": [{"stopApp": APP}]}


@pytest.mark.parametrize(
    ("config", "options", "waits"), [("", {}, 17.0), ("timeout: 3\n", {}, None), ("", {"timeout": 2.0}, None)]
)
def test_lookups_wait_maestros_17_s_unless_the_run_says(
    tmp_path: Path, config: str, options: dict[str, Any], waits: float | None
) -> None:
    """A flow's config.timeout is Maestro's 17 s when neither trailblaze.yaml's timeout: nor
    --timeout says how long (then theirs, as for any trail)."""
    from tests.support.project import make_project
    from trailblaze.runner.checks import collect_trails

    path = flow(tmp_path, "url: https://example.com\n---\n- launchApp\n", "flows/a.yaml")
    project = make_project(tmp_path, config, ("no:terminal",), options=options)
    trails, problems = collect_trails(project, [path], {})
    assert problems == []
    assert trails[0].config.timeout == waits
