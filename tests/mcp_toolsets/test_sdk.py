"""Tools written with @trailblaze/scripting (sdks/typescript), served by its `serve` command as an
MCP toolset of a real project, driving real Chromium through the callback API: typed tools
composing built-ins (recorded in their place when delegating), the context of their calls, and
what their failures make of a run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import CliResult, CliRunner, Project, cli_env
from trailblaze.project.scriptedtools import PACKAGED_SDK

pytestmark = pytest.mark.slow

SDK_CLI = PACKAGED_SDK / "dist" / "cli.js"  # what the wheel carries (`make sdk` makes it)

TOOLS = """\
import { trailblaze } from "@trailblaze/scripting";

export interface NameArgs {
  /** Who to type in. */
  name: string;
}

/** Open the forms page and type a name; what it runs is recorded in its place. */
export const ts_fillName = trailblaze.tool<NameArgs>(
  { supportedPlatforms: ["web"], isDelegating: true },
  async ({ name }, ctx) => {
    await ctx.tools.web_navigate({ url: "/forms.html" });
    await ctx.tools.web_type({ ref: "css=#name", text: name });
    return `typed ${name}`;
  },
);

/** The same as one step of its own: the tool itself is recorded. */
export const ts_fillNameHere = trailblaze.tool<NameArgs>(async ({ name }, ctx) => {
  await ctx.tools.web_navigate({ url: "/forms.html" });
  await ctx.client.fill({ selector: "#name", value: name });
  return `filled ${name}`;
});

/** Check a text through a built-in check. */
export const ts_expect = trailblaze.tool<{ text: string }>(async ({ text }, ctx) => {
  await ctx.tools.web_verifyTextVisible({ text, timeoutMs: 300 });
  return "seen";
});

/** Fail with a message of its own. */
export const ts_fail = trailblaze.tool(async () => {
  throw new Error("the order was not placed");
});

/** A bug. */
export const ts_crash = trailblaze.tool(async () => {
  const order = undefined as unknown as { id: string };
  return order.id;
});

/** Remember a greeting for the user, and where it ran. */
export const ts_greet = trailblaze.tool(
  { requiresContext: true },
  async (_args, ctx) => {
    ctx.memory.set("greeting", ctx.memory.interpolate("hello {{user}}"));
    ctx.memory.set("where", `${ctx.device?.platform} ${ctx.target?.resolveAppId({ defaultAppId: "none" })}`);
    return "greeted";
  },
);
"""


def _setup(project: Project) -> Path:
    if not SDK_CLI.is_file():
        pytest.fail("the TypeScript SDK is not built: run `make sdk` (or `make peers`)")
    tools = project.write("tools/shop.ts", TOOLS)
    project.write(
        "trailblaze.yaml",
        f"""
        base_url: sample-app
        timeout: 5
        target: shop
        targets:
          shop:
            platforms:
              web: {{app_ids: [shop-web]}}
        mcp_servers:
          - name: shop-ts
            command: node
            args: [{SDK_CLI}, serve, tools/shop.ts]
        """,
    )
    return tools


def _trail(project: Project, name: str, calls: str, classifier: str = "web") -> Path:
    return project.trail(name, f"trail:\n  - step: {name}\n    recording:\n      {classifier}:\n{calls}")


def _record_typing(cli_process: Any, project: Project, name: str, step: str, typed: str) -> str:
    """Record a one-step trail with the interactive agent, typing ``typed`` and then ``done``;
    the trail file's text afterwards."""
    trail = project.trail(name, f"trail:\n  - step: {step}\n")
    proc = cli_process("record", f"trails/{name}.trail.yaml", "--agent", "interactive")
    out, err = proc.communicate(f"{typed}\ndone\n", timeout=180)
    assert proc.returncode == 0, out + err
    return trail.read_text()


@pytest.mark.usefixtures("browser")
def test_a_delegating_typescript_tool_is_recorded_as_the_built_ins_it_ran_and_replays(
    cli: CliRunner, cli_process: Any, project: Project
) -> None:
    _setup(project)
    text = _record_typing(cli_process, project, "sign-up", "type Ada into the form", "ts_fillName name=Ada")
    assert "- web_navigate: {url: /forms.html}" in text
    assert "- web_type:" in text and "text: Ada" in text
    assert "ts_fillName" not in text

    result = cli("run", "trails/sign-up.trail.yaml", "--json", "results.json")
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [t["name"] for t in tools] == ["web_navigate", "web_type"]  # replay runs the recording alone


@pytest.mark.usefixtures("browser")
def test_an_executable_typescript_tool_is_recorded_itself_and_runs_its_tools_again_on_replay(
    cli: CliRunner, cli_process: Any, project: Project
) -> None:
    _setup(project)
    text = _record_typing(cli_process, project, "fill", "fill in the name", "ts_fillNameHere name=Grace")
    assert "- ts_fillNameHere: {name: Grace}" in text
    assert "- web_navigate" not in text

    project.write(
        "trails/fill.trail.yaml",
        text + "  - verify: the name is in\n    recording:\n      web:\n"
        '        - web_verifyValue: {ref: "css=#name", type: VALUE, expected: Grace}\n',
    )
    result = cli("run", "trails/fill.trail.yaml", "--json", "results.json")
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [(t["name"], t["delegated_from"], t["recordable"]) for t in tools] == [
        ("web_navigate", ["ts_fillNameHere"], False),
        ("ts_fillNameHere", [], True),
    ]


@pytest.mark.usefixtures("browser")
def test_a_typescript_tool_reads_and_writes_the_sessions_memory_and_knows_its_target(
    cli: CliRunner, project: Project
) -> None:
    _setup(project)
    project.trail(
        "memory",
        """
        config: {memory: {user: ada}}
        trail:
          - step: greet
            recording:
              web:
                - ts_greet: {}
                - assertEquals: {actual: "{{memory.greeting}}", expected: hello ada}
                - assertEquals: {actual: "{{memory.where}}", expected: web shop-web}
        """,
    )
    result = cli("run")
    assert result.returncode == 0, result.output


FAILING_TOOLS = {
    "throws": ("ts_fail", 1, "failed", "ts_fail: the order was not placed at <anonymous> ("),
    "crashes": ("ts_crash", 2, "error", "ts_crash: TypeError: Cannot read properties of undefined"),
    "a-check-it-ran-fails": (
        "ts_expect: {text: Nowhere to be seen}",
        1,
        "failed",
        "ts_expect: web_verifyTextVisible: ",
    ),
}


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory: pytest.TempPathFactory, browser: str) -> tuple[CliResult, Path]:
    """One run of a trail per failing tool (one server, one browser): each trail's result is its own."""
    project = Project(tmp_path_factory.mktemp("failing-ts"))
    tools = _setup(project)
    for name, (tool, *_) in FAILING_TOOLS.items():
        call = tool if ":" in tool else f"{tool}: {{}}"
        _trail(project, name, f"        - web_navigate: {{url: /forms.html}}\n        - {call}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", "--json", "results.json"],
        cwd=project.root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr, project.root), tools


def test_a_run_with_failing_typescript_tools_exits_with_the_worst_trails_code(
    failing_run: tuple[CliResult, Path],
) -> None:
    result, _ = failing_run
    assert result.returncode == 2, result.output  # an error (2) outranks a failure (1)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", list(FAILING_TOOLS))
def test_what_a_failing_typescript_tool_makes_of_the_run(failing_run: tuple[CliResult, Path], name: str) -> None:
    result, tools = failing_run
    tool, exit_code, status, error = FAILING_TOOLS[name]
    trail = next(t for t in result.json()["trails"] if t["id"] == name)
    assert trail["exit_code"] == exit_code, result.output
    step = trail["steps"][0]
    assert step["status"] == status
    assert step["error"].startswith(error), step["error"]
    if tool in ("ts_fail", "ts_crash"):
        assert f"{tools}:" in step["error"]  # where in the tool file it was thrown


@pytest.mark.usefixtures("browser")
def test_validate_checks_calls_against_the_args_interface(cli: CliRunner, project: Project) -> None:
    _setup(project)
    _trail(project, "typo", "        - ts_fillName: {nmae: Ada}\n")
    result = cli("validate")
    assert result.returncode == 3, result.output
    assert "trails/typo.trail.yaml:5:" in result.stderr
    assert "ts_fillName" in result.stderr and "nmae: unknown argument" in result.stderr


ANDROID_TOOLS = """\
import { trailblaze } from "@trailblaze/scripting";

/** Launch the target's app afresh, check it is in front, and zoom in. */
export const sample_android_launch = trailblaze.tool(
  { supportedPlatforms: ["android"], requiresContext: true },
  async (_args, ctx) => {
    const appId = ctx.target?.resolveAppId({ defaultAppId: "com.example.none" });
    await ctx.tools.launchApp({ appId, launchMode: "FORCE_RESTART" });
    await ctx.tools.assertVisibleWithText({ text: "Welcome.*" });
    await ctx.client.pinch({ scale: 2 });
    return `launched ${appId} on ${ctx.device?.driverType}`;
  },
);
"""


def test_a_typescript_tool_on_the_android_stand_in_uses_the_target_and_pinches(
    cli: CliRunner, adb: AdbHostStandIn, phone: FakeAndroid, project: Project
) -> None:
    _setup(project)
    project.write("tools/android.ts", ANDROID_TOOLS)
    project.write(
        "trailblaze.yaml",
        f"""
        driver: android
        target: sample
        targets:
          sample:
            platforms:
              android: {{app_ids: [{SAMPLE_APP}]}}
        mcp_servers:
          - command: node
            args: [{SDK_CLI}, serve, tools/android.ts]
        """,
    )
    _trail(project, "launch", "        - sample_android_launch: {}\n", classifier="android")
    result = cli("run", "--json", "results.json")
    assert result.returncode == 0, result.output
    tools = result.json()["trails"][0]["steps"][0]["tools"]
    assert [t["name"] for t in tools] == ["launchApp", "assertVisibleWithText", "sample_android_launch"]
    assert phone.app.front == SAMPLE_APP
    assert len(phone.gestures) == 1
