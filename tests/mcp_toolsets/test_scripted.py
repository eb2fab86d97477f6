"""A trailmap's scripted tools (trailblaze/mcpclient/scripted.py): upstream's own `.ts` tools, unchanged,
served per session by the @trailblaze/scripting SDK in real Chromium; and our own tools' failures."""

from __future__ import annotations

import shutil
import textwrap
import uuid
from pathlib import Path

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.support.cli import ROOT, CliRunner, processes_with
from trailblaze.project.scriptedtools import PACKAGED_SDK

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
#: upstream's playwright-native example, byte for byte (see its README)
UPSTREAM = HERE / "upstream"
EXAMPLE = "examples/playwright-native"
TRAILMAP_TOOLS = f"{EXAMPLE}/trails/config/trailmaps/playwrightSample/tools"
SDK_CLI = PACKAGED_SDK / "dist" / "cli.js"  # what the wheel carries (`make sdk` makes it)


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """A copy of upstream's example in a temporary folder laid out as upstream's repository is,
    so that its tools' `./examples/playwright-native/sample-app/index.html` is found from there."""
    if not SDK_CLI.is_file():
        pytest.fail("the TypeScript SDK is not built: run `make sdk` (or `make peers`)")
    shutil.copytree(UPSTREAM / "examples", tmp_path / "examples")
    return tmp_path


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


SAMPLE_TRAIL = f"{EXAMPLE}/trails/ours/sample.trail.yaml"


def _sample_trail(root: Path, calls: str) -> Path:
    return _write(
        root,
        SAMPLE_TRAIL,
        "config:\n  target: playwrightSample\ntrail:\n  - step: use the sample's tools\n    recording:\n      web:\n"
        + textwrap.indent(textwrap.dedent(calls).lstrip("\n"), "        "),
    )


@pytest.mark.usefixtures("browser")
def test_upstreams_playwright_native_tools_run_unchanged_in_chromium(cli: CliRunner, upstream: Path) -> None:
    _sample_trail(
        upstream,
        """
        - playwrightSample_web_openFixtureAndVerifyText: {}
        - playwrightSample_web_incrementCounterToValue: {increments: 4}
        - playwrightSample_web_openFormIfNeeded: {}
        - playwrightSample_web_submitContactForm: {name: Ada Lovelace, email: ada@example.com}
        - playwrightSample_web_searchProductsAndOpenResult: {}
        - playwrightSample_web_openDuplicateProductDetail: {}
        """,
    )
    result = cli("run", SAMPLE_TRAIL, "--json", "results.json", cwd=upstream)
    assert result.returncode == 0, result.output
    tools = [(t["name"], t["delegated_from"]) for t in result.json()["trails"][0]["steps"][0]["tools"]]
    opened = "playwrightSample_web_openFixtureAndVerifyText"
    assert tools[:3] == [("web_navigate", [opened]), ("web_verifyTextVisible", [opened]), (opened, [])]
    counted = "playwrightSample_web_incrementCounterToValue"
    assert [name for name, by in tools if by == [counted]] == [
        "web_navigate",
        *["web_click"] * 5,  # the counter's tab, then four increments
        "web_verifyValue",
    ]
    assert sum(1 for _, by in tools if not by) == 6  # each scripted tool is recorded itself


def test_validate_checks_a_scripted_tools_arguments_against_its_args_interface(cli: CliRunner, upstream: Path) -> None:
    _sample_trail(
        upstream,
        """
        - playwrightSample_web_incrementCounterToValue: {increments: four, relativPath: x}
        """,
    )
    result = cli("validate", SAMPLE_TRAIL, cwd=upstream)
    assert result.returncode == 3, result.output
    assert f"{SAMPLE_TRAIL}:7:" in result.stderr
    assert "playwrightSample_web_incrementCounterToValue: increments:" in result.stderr
    assert "playwrightSample_web_incrementCounterToValue: relativPath: unknown argument" in result.stderr


def test_a_second_validate_reads_the_described_tools_from_the_cache_without_node(
    cli: CliRunner, upstream: Path, tmp_path: Path
) -> None:
    _sample_trail(upstream, "- playwrightSample_web_openFixtureAndVerifyText: {text: Trailblaze}\n")
    first = cli("validate", SAMPLE_TRAIL, cwd=upstream)
    assert first.returncode == 0, first.output
    assert list((upstream / EXAMPLE / ".trailblaze" / "scripted-tools").glob("*.json"))
    empty = tmp_path / "no-runtime"
    empty.mkdir()
    again = cli("validate", SAMPLE_TRAIL, cwd=upstream, env={"PATH": str(empty)})  # no node, no bun
    assert again.returncode == 0, again.output


def test_without_node_or_bun_a_call_of_a_scripted_tool_says_what_to_install(
    cli: CliRunner, upstream: Path, tmp_path: Path
) -> None:
    _sample_trail(upstream, "- playwrightSample_web_openFixtureAndVerifyText: {}\n")
    empty = tmp_path / "no-runtime"
    empty.mkdir()
    result = cli("validate", SAMPLE_TRAIL, cwd=upstream, env={"PATH": str(empty)})
    assert result.returncode == 3, result.output
    assert (
        f"{SAMPLE_TRAIL}:7:11: playwrightSample_web_openFixtureAndVerifyText is a scripted tool "
        f"(trails/config/trailmaps/playwrightSample/tools/playwrightSample_web_openFixtureAndVerifyText.ts) that "
        "cannot run here: scripted .ts/.js tools need a JavaScript runtime: install Node.js 20.6 or later"
    ) in result.stderr


def test_a_node_too_old_or_a_broken_sdk_says_what_to_do(cli: CliRunner, upstream: Path, tmp_path: Path) -> None:
    """What stops scripted tools gives one line naming the fix (and `doctor`), never a traceback."""
    _sample_trail(upstream, "- playwrightSample_web_openFixtureAndVerifyText: {}\n")
    old = tmp_path / "old-node"
    old.mkdir()
    (old / "node").write_text("#!/bin/sh\necho v18.19.0\n")
    (old / "node").chmod(0o755)
    result = cli("validate", SAMPLE_TRAIL, cwd=upstream, env={"PATH": f"{old}:/usr/bin:/bin"})
    assert result.returncode == 3, result.output
    assert f"scripted .ts/.js tools need Node.js 20.6 or later; {old / 'node'} is v18.19.0" in result.stderr
    assert "`trailblaze doctor` checks the install" in result.stderr
    assert "Traceback" not in result.output

    hollow = tmp_path / "hollow-sdk"
    (hollow / "dist").mkdir(parents=True)
    result = cli("validate", SAMPLE_TRAIL, cwd=upstream, env={"TRAILBLAZE_SCRIPTING_SDK": str(hollow)})
    assert result.returncode == 3, result.output
    assert f"TRAILBLAZE_SCRIPTING_SDK names {hollow}, which holds no built @trailblaze/scripting" in result.stderr
    assert "Traceback" not in result.output


OUR_TOOLS = """
import { trailblaze } from "@trailblaze/scripting";

/** Fails as a check does. */
export const shop_fail = trailblaze.tool(async () => {
  throw new Error("the cart is empty");
});

/** A bug in the tool. */
export const shop_crash = trailblaze.tool(async () => {
  const cart = undefined as unknown as { items: string[] };
  return cart.items.join(",");
});

/** Never answers. */
export const shop_hang = trailblaze.tool(async () => {
  await new Promise(() => {});
  return "never";
});
"""

NEEDS_A_PACKAGE = """
import { trailblaze } from "@trailblaze/scripting";
import leftPad from "left-pad";

/** Uses a package nobody installed. */
export const shop_pad = trailblaze.tool(async () => leftPad("1", 3, "0"));
"""


def _our_workspace(root: Path, *, with_missing_package: bool = False) -> None:
    _write(root, "trails/config/trailblaze.yaml", "targets: [shop]\n")
    _write(
        root,
        "trails/config/trailmaps/shop/trailmap.yaml",
        """
        id: shop
        target:
          display_name: Shop
          tools: [shop_fail, shop_crash, shop_hang]
          platforms:
            web: {}
        """,
    )
    _write(root, "trails/config/trailmaps/shop/tools/shop_errors.ts", OUR_TOOLS)
    if with_missing_package:  # one file that cannot load stops its folder's server: it is said which
        _write(root, "trails/config/trailmaps/shop/tools/shop_pad.ts", NEEDS_A_PACKAGE)


@pytest.mark.usefixtures("browser")
@pytest.mark.parametrize(
    ("tool", "exit_code", "status", "said"),
    [
        ("shop_fail", 1, "failed", "shop_fail: the cart is empty at "),
        ("shop_crash", 2, "error", "shop_crash: TypeError: Cannot read properties of undefined"),
        ("shop_hang", 2, "error", "shop_hang: MCP server scripted tools trails/config/trailmaps/shop/tools "),
        ("shop_pad", 2, "error", "shop_pad: MCP server scripted tools trails/config/trailmaps/shop/tools "),
    ],
    ids=["throws", "crashes", "never-answers", "missing-package"],
)
def test_what_a_failing_scripted_tool_makes_of_the_run(
    cli: CliRunner, tmp_path: Path, tool: str, exit_code: int, status: str, said: str
) -> None:
    _our_workspace(tmp_path, with_missing_package=tool == "shop_pad")
    _write(
        tmp_path,
        "trails/t.trail.yaml",
        f"config: {{target: shop}}\ntrail:\n  - step: s\n    recording:\n      web:\n        - {tool}: {{}}\n",
    )
    result = cli("run", "trails/t.trail.yaml", "--json", "r.json", env={"TRAILBLAZE_SCRIPTED_TOOL_TIMEOUT": "3"})
    assert result.returncode == exit_code, result.output
    step = result.json("r.json")["trails"][0]["steps"][0]
    assert step["status"] == status
    assert step["error"].startswith(said), step["error"]
    if tool in ("shop_fail", "shop_crash"):  # where in the tool's file it was thrown
        assert "trails/config/trailmaps/shop/tools/shop_errors.ts:" in step["error"]
    if tool == "shop_hang":  # the limit that applied, by the name that sets it
        assert "did not answer within 3s (TRAILBLAZE_SCRIPTED_TOOL_TIMEOUT)" in step["error"]
    if tool == "shop_pad":
        assert "left-pad is not installed: run `npm install left-pad` in the tool's folder" in step["error"]


@pytest.mark.usefixtures("browser")
def test_the_typescript_tools_example_runs_green(cli: CliRunner, tmp_path: Path) -> None:
    example = tmp_path / "example"
    shutil.copytree(
        ROOT / "plugins-examples" / "typescript-tools", example, ignore=shutil.ignore_patterns(".trailblaze")
    )
    result = cli("run", "--json", "results.json", cwd=example, env={"PYTHONPATH": f"{example}:{ROOT}"})
    assert result.returncode == 0, result.output
    tools = [(t["name"], t["delegated_from"]) for t in result.json()["trails"][0]["steps"][0]["tools"]]
    assert ("shop_checkPlan", ["shop_web_signUp"]) in tools  # the Python plugin's tool, run by the TypeScript one
    assert tools[-1] == ("shop_web_signUp", [])


CLOCK_TRAIL = """
config:
  id: clock/launch
  target: clock
  devices:
    android: ANDROID_ONDEVICE_ACCESSIBILITY

trailhead:
  step: "Launch the AOSP Desk Clock app (com.android.deskclock) fresh, landing on the Clock tab."
  recording:
    android:
      clock_android_launchApp: {}

trail:
  - step: the clock is in front
    recording:
      android:
        - assertEquals: {actual: clock, expected: clock}
"""


def test_upstreams_clock_launch_tool_runs_on_the_android_stand_in(
    cli: CliRunner, adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path
) -> None:
    """Upstream's clock_android_launchApp.ts, unchanged: the target's app id, and three
    android_adbShell calls (pm grant, am force-stop, am start of the launcher activity)."""
    if not SDK_CLI.is_file():
        pytest.fail("the TypeScript SDK is not built: run `make sdk` (or `make peers`)")
    shutil.copytree(UPSTREAM / "trails", tmp_path / "trails")
    _write(tmp_path, "trails/config/trailblaze.yaml", "targets: [clock]\n")
    _write(tmp_path, "trails/clock/launch.trail.yaml", CLOCK_TRAIL)
    phone.app.installed.add("com.android.deskclock")
    result = cli("run", "trails/clock/launch.trail.yaml", "--json", "r.json")
    assert result.returncode == 0, result.output
    assert phone.app.front == "com.android.deskclock"
    head = result.json("r.json")["trails"][0]["steps"][0]
    launch = "clock_android_launchApp"
    assert [(t["name"], t["delegated_from"]) for t in head["tools"]] == [
        ("android_adbShell", [launch]),  # pm grant fails (the app asks for no such permission): caught
        ("android_adbShell", [launch]),
        ("android_adbShell", [launch]),
        (launch, []),
    ]


#: upstream's own clock trails (trails/clock/ of its repository), byte for byte
SET_ALARM = "trails/clock/set-alarm-730am/trail.yaml"
LAUNCH_SMOKE = "trails/clock/launch-smoke.trail.yaml"


@pytest.fixture
def clock_workspace(tmp_path: Path, phone: FakeAndroid) -> Path:
    """Upstream's trails/ folder (the clock trailmap, its tools and trails) with the Desk Clock installed."""
    if not SDK_CLI.is_file():
        pytest.fail("the TypeScript SDK is not built: run `make sdk` (or `make peers`)")
    shutil.copytree(UPSTREAM / "trails", tmp_path / "trails")
    _write(tmp_path, "trails/config/trailblaze.yaml", "targets: [clock]\n")
    phone.app.installed.add("com.android.deskclock")
    return tmp_path


@pytest.mark.usefixtures("adb")
def test_upstreams_set_alarm_trail_runs_unchanged_on_the_android_stand_in(
    cli: CliRunner, phone: FakeAndroid, clock_workspace: Path
) -> None:
    """Upstream's clock/set-alarm-730am trail as it is: its scripted trailhead, then the picker
    (7, minutes, 30, AM, OK), the 7:30 AM alarm in the list, expanded and deleted."""
    result = cli("run", SET_ALARM, "--json", "r.json")
    assert result.returncode == 0, result.output
    steps = result.json("r.json")["trails"][0]["steps"]
    assert [t["name"] for t in steps[0]["tools"]][-1] == "clock_android_launchApp"
    assert [[t["name"] for t in step["tools"]] for step in steps[1:]] == [
        ["tapOnElementBySelector"],
        ["tapOnElementBySelector"],
        ["tapOnElementBySelector"] * 5,
        ["assertVisibleBySelector"],
        ["tapOnElementBySelector"] * 2,
        ["assertNotVisibleWithText"],
    ]
    assert all(step["status"] == "passed" for step in steps), steps
    assert phone.app.front == "com.android.deskclock"
    assert phone.app.desk_clock.alarms == []  # the trail deleted the alarm it added


@pytest.mark.usefixtures("adb")
def test_the_desk_clock_stand_in_fails_the_trail_when_the_picked_time_is_not_730_am(
    cli: CliRunner, phone: FakeAndroid, clock_workspace: Path
) -> None:
    """The fake can say no: the same trail picking PM instead of AM adds a 7:30 PM alarm, and
    the step expecting 7:30 AM fails."""
    trail = clock_workspace / SET_ALARM
    text = trail.read_text()
    assert text.count("android:id/am_label\n                textRegex: AM") == 1
    trail.write_text(
        text.replace(
            "android:id/am_label\n                textRegex: AM", "android:id/pm_label\n                textRegex: PM"
        )
    )
    result = cli("run", SET_ALARM, "--json", "r.json")
    assert result.returncode == 1, result.output
    steps = result.json("r.json")["trails"][0]["steps"]
    assert [s["status"] for s in steps[3:5]] == ["passed", "failed"]
    assert "7:30.AM" in steps[4]["error"]
    assert phone.app.desk_clock.alarms == [(19, 30)]


@pytest.mark.usefixtures("adb")
def test_upstreams_clock_launch_smoke_trail_runs_unchanged_on_the_android_stand_in(
    cli: CliRunner, phone: FakeAndroid, clock_workspace: Path
) -> None:
    result = cli("run", LAUNCH_SMOKE, "--json", "r.json")
    assert result.returncode == 0, result.output
    steps = result.json("r.json")["trails"][0]["steps"]
    assert [[t["name"] for t in step["tools"]] for step in steps] == [
        ["launchApp"],
        ["assertVisibleBySelector"] * 4,
    ]
    # without the app, the same trail fails
    phone.app.installed.discard("com.android.deskclock")
    phone.app.force_stop("com.android.deskclock")
    assert cli("run", LAUNCH_SMOKE).returncode != 0


#: upstream's android-sample-app workspace (its trailmap and tools) and the one trail of it that
#: calls tools no trailmap defines; the trailmap says why (``trail_validation: {exempt: …}``)
MCP_DEMO = "examples/android-sample-app/trails/mcp-tools-demo/mcp-tools-demo.trail.yaml"


def test_upstreams_exempt_trail_validates_with_its_unknown_tools_as_warnings(cli: CliRunner, upstream: Path) -> None:
    """As upstream's `check` reports and does not fail on its findings: validate passes, each
    unknown tool is a one-line warning with its file:line and the trailmap's reason."""
    result = cli("validate", MCP_DEMO, cwd=upstream)
    assert (result.returncode, result.stdout.strip()) == (0, "1 trail valid"), result.output
    why = "mcp-tools-demo records MCP-subprocess tools not present in the generated typed surface"
    assert result.stderr.splitlines() == [
        f"warning: {MCP_DEMO}:{line}:11: unknown tool {name!r} (not an error: trailmap sampleapp exempts its "
        f"trails from this check: {why})"
        for line, name in ((13, "generateTestUser"), (14, "currentEpochMillis"))
    ]
    # only unknown tools are excused: a wrong argument of a tool that exists still counts
    demo = upstream / MCP_DEMO
    demo.write_text(demo.read_text() + "        - tapOnElementWithText: {txt: Catalog}\n")
    result = cli("validate", MCP_DEMO, cwd=upstream)
    assert result.returncode == 3, result.output
    assert f"error: {MCP_DEMO}:15:39: tapOnElementWithText: txt: unknown argument" in result.stderr


def test_a_run_of_an_exempt_trail_still_fails_at_the_unknown_tool(
    cli: CliRunner, upstream: Path, adb: AdbHostStandIn, phone: FakeAndroid
) -> None:
    result = cli("run", MCP_DEMO, "--driver", "android", "--json", "r.json", cwd=upstream)
    assert result.returncode != 0, result.output
    assert "warning:" in result.stderr
    step = result.json("r.json")["trails"][0]["steps"][0]
    assert step["status"] in ("failed", "error")
    assert "unknown tool 'generateTestUser'" in step["error"]


NESTING = """
import { trailblaze } from "@trailblaze/scripting";

/** Remembers its number. */
export const shop_inner = trailblaze.tool<{ n: number }>(async ({ n }, ctx) => {
  ctx.memory.set("inner", String(n));
  return `inner ${n}`;
});

/** Runs the other tool of its file, through the same server. */
export const shop_outer = trailblaze.tool(async (_args, ctx) => `outer: ${await ctx.tools.shop_inner({ n: 7 })}`);

/** Runs itself. */
export const shop_loop = trailblaze.tool(async (_args, ctx) => ctx.tools.shop_loop({}));
"""


@pytest.mark.usefixtures("browser")
def test_scripted_tools_run_each_other_and_a_loop_stops_at_the_cap_saying_so_once(
    cli: CliRunner, tmp_path: Path
) -> None:
    _our_workspace(tmp_path)
    _write(tmp_path, "trails/config/trailmaps/shop/tools/shop_nesting.ts", NESTING)
    _write(
        tmp_path,
        "trails/t.trail.yaml",
        """
        config: {target: shop}
        trail:
          - step: nest
            recording:
              web:
                - shop_outer: {}
                - assertEquals: {actual: "{{memory.inner}}", expected: "7"}
          - step: loop
            recording:
              web:
                - shop_loop: {}
        """,
    )
    result = cli("run", "trails/t.trail.yaml", "--json", "r.json")
    nested, looped = result.json("r.json")["trails"][0]["steps"]
    assert nested["status"] == "passed", nested
    assert [t["name"] for t in nested["tools"]] == ["shop_inner", "shop_outer", "assertEquals"]
    assert looped["status"] == "error"
    assert "tool calls nested deeper than 16 levels" in looped["error"]
    assert "during the call" not in looped["error"]  # each level's message held the one below it already


def _one_tool_workspace(root: Path, tool: str, source: str) -> str:
    """A workspace whose shop trailmap has the one tool ``tool`` (``source``), and a trail that
    calls it; the trail's path."""
    _write(root, "trails/config/trailblaze.yaml", "targets: [shop]\n")
    _write(root, "trails/config/trailmaps/shop/trailmap.yaml", "id: shop\ntarget:\n  display_name: Shop\n")
    _write(root, f"trails/config/trailmaps/shop/tools/{tool}.ts", source)
    call = f"config: {{target: shop}}\ntrail:\n  - step: s\n    recording:\n      web:\n        - {tool}: {{}}\n"
    _write(root, "trails/t.trail.yaml", call)
    return "trails/t.trail.yaml"


@pytest.mark.usefixtures("browser")
def test_what_a_scripted_tool_detaches_does_not_outlive_the_run(cli: CliRunner, tmp_path: Path) -> None:
    """A child the tool starts in a session of its own, ignoring SIGTERM, escapes the server's
    process group: it carries the run's token, so the run's end kills it."""
    marker = f"escapee-{uuid.uuid4().hex}"
    trail = _one_tool_workspace(
        tmp_path,
        "shop_daemon",
        """
        import { spawn } from "node:child_process";
        import { trailblaze } from "@trailblaze/scripting";

        /** Leaves a daemon behind. */
        export const shop_daemon = trailblaze.tool(async () => {
          spawn("sh", ["-c", "trap '' TERM; sleep 600"], { detached: true, stdio: "ignore" }).unref();
          return "started";
        });
        """,
    )
    result = cli("run", trail, env={"TRAILBLAZE_TEST_MARKER": marker})
    assert result.returncode == 0, result.output
    assert processes_with(marker) == []


@pytest.mark.usefixtures("browser")
def test_a_scripted_tool_gets_what_node_needs_and_what_is_declared_not_every_variable(
    cli: CliRunner, tmp_path: Path
) -> None:
    """A tool that prints its environment (or throws it into an error) cannot leak a credential
    trailblaze was started with unless trailblaze.yaml hands it over in scripted_tools_env:."""
    _write(
        tmp_path, "trailblaze.yaml", "scripted_tools_env:\n  SHOP_API_KEY: ${SHOP_KEY_FOR_TOOLS}\n  SHOP_MODE: test\n"
    )
    trail = _one_tool_workspace(
        tmp_path,
        "shop_env",
        """
        import { trailblaze } from "@trailblaze/scripting";

        /** What the tool's process was given. */
        export const shop_env = trailblaze.tool(async () => {
          const seen = ["PATH", "HOME", "SHOP_API_KEY", "SHOP_MODE", "CLOUD_SECRET", "TRAILBLAZE_SESSION_ID"]
            .map((name) => `${name}=${process.env[name] === undefined ? "unset" : "set"}`)
            .join(" ");
          throw new Error(seen); // the step's error carries it out
        });
        """,
    )
    env = {"CLOUD_SECRET": "s3cr3t-value", "SHOP_KEY_FOR_TOOLS": "k-123456"}
    result = cli("run", trail, "--json", "r.json", env=env)
    assert result.returncode == 1, result.output
    error = result.json("r.json")["trails"][0]["steps"][0]["error"]
    assert (
        "shop_env: PATH=set HOME=set SHOP_API_KEY=set SHOP_MODE=set CLOUD_SECRET=unset TRAILBLAZE_SESSION_ID=set"
    ) in error, error
