"""Declaring servers: where, how paths resolve, which apply to a session, validation errors."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.cli import CliRunner, Project
from tests.support.config import load_config
from trailblaze.core.errors import ErrorList, InfrastructureError, UsageError
from trailblaze.mcpclient import declarations
from trailblaze.mcpclient.declarations import DriverContext, group_by_spawn, session_declarations

from .conftest import Recorded

WEB = DriverContext("playwright-native", "web", ("web", "PLAYWRIGHT_NATIVE"))
ANDROID = DriverContext("android-uiautomator2", "android")


def _config(project: Project, text: str) -> object:
    return load_config(project.write("trailblaze.yaml", text))


def test_entries_from_the_root_the_target_and_applying_toolsets(project: Project) -> None:
    project.write("tools/a.py", "")
    config = _config(
        project,
        """
        target: shop
        targets:
          shop:
            tool_sets: [shop_tools]
            mcp_servers:
              - {name: target-server, url: "http://127.0.0.1:9/mcp"}
        mcp_servers:
          - script: tools/a.py
        tool_sets: [everywhere]
        toolsets:
          everywhere:
            mcp_servers: [{command: ./bin/everywhere, name: ev}]
          shop_tools:
            drivers: [web]
            mcp_servers: [{command: shop-server, args: [--fast, serve.py]}]
          android_tools:
            platforms: [android]
            always_enabled: true
            mcp_servers: [{command: droid}]
          unused:
            mcp_servers: [{command: never}]
        """,
    )
    web = session_declarations(config, WEB, {})  # type: ignore[arg-type]
    assert [(d.label, d.origin, d.toolset) for d in web] == [
        ("a", "project", None),
        ("target-server", "target shop", None),
        ("ev", "toolset everywhere", "everywhere"),
        ("shop-server serve.py", "toolset shop_tools", "shop_tools"),
    ]
    a, remote, ev, shop = web
    assert (a.command, a.args, a.cwd, a.aware) == (
        sys.executable,
        (str(project.root / "tools/a.py"),),
        str(project.root / "tools"),
        True,
    )
    assert (remote.kind, remote.url, remote.aware) == ("http", "http://127.0.0.1:9/mcp", False)
    assert ev.command == str(project.root / "bin/everywhere")  # a command with a slash: relative to the file
    assert shop.command == "shop-server"  # a bare name: looked up on PATH
    assert shop.cwd == str(project.root)
    assert str(a.location) == f"{project.root / 'trailblaze.yaml'}:8:5"
    android = [d.label for d in session_declarations(config, ANDROID, {})]  # type: ignore[arg-type]
    assert android == ["a", "target-server", "ev", "droid"]


def test_env_and_headers_take_variables_from_trailblazes_environment(project: Project) -> None:
    config = _config(
        project,
        """
        mcp_servers:
          - command: srv
            env: {TOKEN: "${SECRET}", PLAIN: x}
          - url: "http://127.0.0.1:${PORT}/mcp"
            headers: {Authorization: "Bearer ${SECRET}"}
        """,
    )
    spawned, remote = session_declarations(config, WEB, {"SECRET": "s3", "PORT": "81"})  # type: ignore[arg-type]
    assert dict(spawned.env) == {"TOKEN": "s3", "PLAIN": "x"}
    assert remote.url == "http://127.0.0.1:81/mcp"
    assert dict(remote.headers) == {"Authorization": "Bearer s3"}
    with pytest.raises(UsageError, match=r"env.TOKEN: \$\{SECRET\} is not set in trailblaze's environment"):
        session_declarations(config, WEB, {"PORT": "1"})  # type: ignore[arg-type]


def test_identical_spawn_tuples_are_grouped(project: Project) -> None:
    config = _config(
        project,
        """
        mcp_servers:
          - {command: srv, args: [a]}
          - {command: srv, args: [a], name: same-again}
          - {command: srv, args: [b]}
        tool_sets: [t]
        toolsets:
          t: {mcp_servers: [{command: srv, args: [a]}]}
        """,
    )
    groups = group_by_spawn(session_declarations(config, WEB, {}))  # type: ignore[arg-type]
    assert [[d.label for d in g] for g in groups] == [["srv a", "same-again", "srv a#2"], ["srv b"]]


def test_script_runtimes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    py, js, ts = (tmp_path / n for n in ("s.py", "s.js", "s.ts"))
    assert declarations.script_command(py) == (sys.executable, [str(py)])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(InfrastructureError, match="no `node` on PATH"):
        declarations.script_command(js)
    with pytest.raises(InfrastructureError, match=r"cannot run TypeScript: .*install Node\.js 20\.6 or later"):
        declarations.script_command(ts)
    tsx = tmp_path / "node_modules" / ".bin" / "tsx"
    tsx.parent.mkdir(parents=True)
    tsx.write_text("#!/bin/sh\n")
    nested = tmp_path / "tools" / "deep" / "s.ts"
    assert declarations.script_command(nested) == (str(tsx), [str(nested)])  # found up the tree
    bun = tmp_path / "bin" / "bun"
    bun.parent.mkdir()
    bun.write_text("#!/bin/sh\n")
    bun.chmod(0o755)
    monkeypatch.setenv("PATH", str(bun.parent))
    assert declarations.script_command(ts) == (str(bun), ["run", str(ts)])  # bun first


def test_scripts_run_on_node_with_the_sdks_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without bun, node runs .ts and .js servers with the SDK trailblaze carries: --import of its
    hooks, which compile TypeScript and find @trailblaze/scripting with no npm install."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node on PATH")
    monkeypatch.setenv("PATH", str(Path(node).parent))
    if shutil.which("bun") is not None:
        pytest.skip("bun is on the same PATH as node")
    for name in ("s.ts", "s.js"):
        command, args = declarations.script_command(tmp_path / name)
        assert command == node
        assert args[0] == "--import"
        assert args[1].startswith("file://") and args[1].endswith("/dist/register.js")
        assert args[2:] == [str(tmp_path / name)]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{command: a, url: 'http://x'}", "exactly one of command:, script: or url:"),
        ("{name: nothing}", "exactly one of command:, script: or url:"),
        ("{command: a, transport: http}", "transport: http needs url:"),
        ("{url: 'http://x', env: {A: b}}", "args:, env: and working_dir: are for spawned servers"),
        ("{command: a, headers: {A: b}}", "headers: is for transport: http servers"),
        ("{script: s.py, working_dir: x}", "working_dir: is for command: entries"),
        ("{script: s.rb}", "script: must be a .py, .ts or .js file"),
        ("{command: a, timeout_s: 0}", "timeout_s: input should be greater than 0"),
        ("{command: a, colour: red}", "colour: unknown key"),
    ],
)
def test_bad_entries_are_reported_with_their_location(project: Project, entry: str, message: str) -> None:
    path = project.write("trailblaze.yaml", f"timeout: 5\nmcp_servers:\n  - {entry}\n")
    with pytest.raises(ErrorList) as info:
        load_config(path)
    text = str(info.value)
    assert message in text
    assert f"{path}:3:" in text


#: upstream's toolsets, which trailblaze ships: a tool_sets: entry may name them
BUILT_IN_TOOLSETS = (
    "android_framework, android_primitives, core_interaction, memory, meta, mobile_primitives, navigation, "
    "observation, verification, web_core, web_framework, web_verification"
)


def test_bad_overlays_and_references_are_reported_with_their_location(project: Project) -> None:
    path = project.write(
        "trailblaze.yaml",
        """
        target: nowhere
        targets: {shop: {tool_sets: [missing]}}
        tool_sets: [also_missing]
        toolsets:
          t:
            default_meta: {"trailblaze/isRecordable": maybe}
        """,
    )
    with pytest.raises(ErrorList) as info:
        load_config(path)
    text = str(info.value)
    assert f"{path}:6:19: toolsets.t.default_meta: trailblaze/isRecordable must be true or false, got 'maybe'" in text
    path = project.write(
        "trailblaze.yaml", "target: nowhere\ntargets: {shop: {tool_sets: [missing]}}\ntool_sets: [x]\n"
    )
    with pytest.raises(ErrorList) as info:
        load_config(path)
    lines = str(info.value).splitlines()
    assert lines == [  # in file order
        f"{path}:1:9: target: 'nowhere' is not defined in targets: (shop)",
        f"{path}:2:30: tool_sets: unknown toolset 'missing' (toolsets: {BUILT_IN_TOOLSETS})",
        f"{path}:3:13: tool_sets: unknown toolset 'x' (toolsets: {BUILT_IN_TOOLSETS})",
    ]


def test_a_missing_script_is_a_config_error_at_session_start(cli: CliRunner, project: Project) -> None:
    project.write("trailblaze.yaml", "mcp_servers:\n  - script: tools/nope.py\n")
    result = cli("tools", "--driver", "web")
    assert result.returncode == 3
    assert (
        f"{project.root / 'trailblaze.yaml'}:2:5: MCP server script not found: {project.root / 'tools/nope.py'}"
        in result.stderr
    )


def test_paths_resolve_against_the_declaring_file_from_any_directory(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded, tmp_path: Path
) -> None:
    (project.root / "sub" / "tools").mkdir(parents=True)
    (project.root / "sub" / "tools" / "probe.py").write_text(probe.read_text())
    (project.root / "sub" / "work").mkdir()
    project.write(
        "sub/trailblaze.yaml",
        f"""
        mcp_servers:
          - script: tools/probe.py
          - command: {sys.executable}
            args: [{probe}, --prefix, cmd_]
            working_dir: work
        """,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = cli(
        "tools",
        "--driver",
        "web",
        "--json",
        "-c",
        str(project.root / "sub/trailblaze.yaml"),
        cwd=elsewhere,
        env=recorded.env,
    )
    assert result.returncode == 0, result.output
    names = {t["name"] for t in json.loads(result.stdout)}
    assert {"report", "cmd_report"} <= names
    assert len(recorded.entries("start")) == 2


def test_servers_spawn_only_for_sessions_they_apply_to_and_once_per_spawn_tuple(
    cli: CliRunner, project: Project, probe: Path, recorded: Recorded
) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        mcp_servers:
          - script: {probe}
        tool_sets: [same, phones]
        toolsets:
          same:
            mcp_servers: [{{script: {probe}}}]
            tools: [report]
          phones:
            platforms: [android]
            mcp_servers: [{{script: {probe}, args: [--prefix, phone_]}}]
          unreferenced:
            mcp_servers: [{{script: {probe}, args: [--prefix, never_]}}]
        """,
    )
    result = cli("tools", "--driver", "web", "--json", env=recorded.env)
    assert result.returncode == 0, result.output
    tools = {t["name"]: t for t in json.loads(result.stdout)}
    assert tools["report"]["toolset"] is None  # the first declaration (the root) took it
    assert not any(n.startswith(("phone_", "never_")) for n in tools)
    assert [s["argv"] for s in recorded.entries("start")] == [[]]  # one process for the shared tuple


def test_a_toolsets_tool_filter_must_name_tools_the_server_offers(
    cli: CliRunner, project: Project, probe: Path
) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        tool_sets: [t]
        toolsets:
          t:
            mcp_servers: [{{script: {probe}}}]
            tools: [report, reprot]
        """,
    )
    result = cli("tools", "--driver", "web")
    assert result.returncode == 3
    assert "toolset t: tools: names 'reprot', which MCP server probe does not offer (it offers: " in result.stderr


def test_the_tool_filter_limits_what_registers(cli: CliRunner, project: Project, probe: Path) -> None:
    project.write(
        "trailblaze.yaml",
        f"""
        tool_sets: [t]
        toolsets:
          t:
            mcp_servers: [{{script: {probe}}}]
            tools: [report, delegate]
        """,
    )
    result = cli("tools", "--driver", "web", "--json")
    assert result.returncode == 0, result.output
    assert sorted(t["name"] for t in json.loads(result.stdout) if t["source"] == "mcp:probe") == ["delegate", "report"]


def test_the_environment_of_trailblaze_reaches_the_resolution(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_TOKEN", "abc")
    config = _config(project, "mcp_servers:\n  - {command: srv, env: {T: '${MY_TOKEN}'}}\n")
    assert dict(session_declarations(config, WEB)[0].env) == {"T": "abc"}  # type: ignore[arg-type]
    assert os.environ["MY_TOKEN"] == "abc"
