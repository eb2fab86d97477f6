"""The ``trailblaze`` command as a user meets it: a subprocess, its output and its exit code.

Trail semantics are in tests/runner, the web tools in tests/drivers/web/test_tools.py, the reports in
tests/plugins/test_reporters.py; this module holds the command-line contracts: options,
exit codes, bad input, the subcommands, and interruption.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.cli import CliProcess, CliRunner, Project, cli_env, processes_with
from trailblaze import __version__

PASSING = """
config:
  title: A passing trail
trail:
  - step: Open the about page
    recording:
      web:
        - web_navigate: {url: /about.html}
        - web_verifyTextVisible: {text: Trailblaze replays trails}
"""

FAILING = """
trail:
  - step: Open the about page
    recording:
      web:
        - web_navigate: {url: /about.html}
  - verify: A text that is not there
    recording:
      web:
        - web_verifyTextVisible: {text: Not on this page, timeoutMs: 100}
"""

#: a shared trail that is there but does not load: found when runTrail runs it (exit 3)
BROKEN_SHARED_FILE = "trail:\n  - step: [this is not a step\n"

MISUSE_AT_RUN_TIME = """
trail:
  - step: Run a shared trail that does not load
    recording:
      web:
        - runTrail: {path: broken.yaml}
"""

TOOL_ERROR = """
trail:
  - step: A tool that breaks
    recording:
      web:
        - broken_tool: {}
"""

BROKEN_TOOL_PLUGIN = '''
import trailblaze


@trailblaze.tool(name="broken_tool")
def broken_tool() -> None:
    """Raise something that is not a ToolFailure: an error of the tool itself."""
    raise RuntimeError("the tool itself broke")


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(broken_tool)
'''


# -- the basics -------------------------------------------------------------------------------------


def test_version(cli: CliRunner) -> None:
    result = cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"trailblaze {__version__}"


def test_console_script_is_installed(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "trailblaze"
    proc = subprocess.run([str(script), "-V"], capture_output=True, text=True, cwd=tmp_path, env=cli_env(), check=False)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"trailblaze {__version__}"


def test_help_lists_commands_and_run_options(cli: CliRunner) -> None:
    result = cli("--help")
    assert result.returncode == 0
    for command in ("run", "validate", "tools", "plugins", "devices", "init", "sample-app"):
        assert f"  {command}" in result.stdout
    run_help = cli("run", "--help").stdout
    for option in (
        "--driver",
        "--device",
        "--config",
        "--arg",
        "--timeout",
        "--fail-fast",
        "-x",
        "--headed",
        "--json",
        "--junit",
    ):
        assert option in run_help
    assert "Exit codes" in run_help


def test_start_up_imports_no_heavy_library(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "trailblaze", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=cli_env(),
        check=True,
    )
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert "trailblaze" in imported
    assert not imported & {"playwright", "mcp", "httpx", "uiautomator2", "wda"}


def modules_after(cwd: Path, *args: str) -> set[str]:
    """``sys.modules`` as ``trailblaze ARGS`` exits, in a fresh process (``-X importtime`` would
    miss what ``importlib.import_module`` imports: plugins, sections declared by name)."""
    code = (
        "import atexit, runpy, sys; atexit.register(lambda: print(*sys.modules, file=sys.stderr)); "
        f"sys.argv = ['trailblaze', *{list(args)!r}]; runpy.run_module('trailblaze', run_name='__main__')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=cli_env())
    assert proc.returncode == 0, proc.stdout
    return set(proc.stderr.split())


def test_validate_imports_no_section_the_project_leaves_out(project: Project) -> None:
    """Start-up pays for what the command uses: validating a web trail in a project without
    ``llm:`` or ``web:`` imports neither section's model (the openai agent's, the remote
    browser's with its web server's), though their plugins declare both sections."""
    project.trail("about", PASSING)
    sections = {"trailblaze.agents.llm", "trailblaze.drivers.web.remote", "trailblaze.drivers.web.webserver"}
    found = modules_after(project.root, "validate", "trails/about.trail.yaml")
    assert "trailblaze.drivers.web.tools" in found  # the trail's tools were checked
    assert not found & sections
    project.write("trailblaze.yaml", "base_url: sample-app\nllm: {model: m}\nweb: {connect_timeout: 5}\n")
    assert modules_after(project.root, "validate", "trails/about.trail.yaml") >= sections  # set: checked


def test_help_imports_no_report_writer(tmp_path: Path) -> None:
    """The report plugins load for every command; what writes a report (the atomic file
    writer, json, socket for JUnit's hostname) waits for a report to write."""
    found = modules_after(tmp_path, "--help")
    assert "trailblaze.plugins.junit_report" in found
    assert not found & {"trailblaze.core.fileio", "socket", "json"}


# -- exit codes ----------------------------------------------------------------------------------------


@pytest.mark.browser
def test_exit_codes_worst_wins_across_trails(cli: CliRunner, project: Project, browser: str) -> None:
    project.write("broken_tools.py", BROKEN_TOOL_PLUGIN)
    project.trail("a-passing", PASSING)
    project.trail("b-failing", FAILING)
    project.trail("c-tool-error", TOOL_ERROR)
    project.trail("d-misuse", MISUSE_AT_RUN_TIME)
    project.write("trails/broken.yaml", BROKEN_SHARED_FILE)

    everything = cli("run", "-p", "broken_tools", "--json", "results.json")
    statuses = {t["id"]: (t["status"]) for t in everything.json()["trails"]}
    assert statuses == {
        "a-passing": "passed",
        "b-failing": "failed",
        "c-tool-error": "error",
        "d-misuse": "error",
    }
    assert everything.returncode == 3, everything.output  # a shared trail that does not load: the trail needs fixing

    without_misuse = cli(
        "run",
        "-p",
        "broken_tools",
        "trails/a-passing.trail.yaml",
        "trails/b-failing.trail.yaml",
        "trails/c-tool-error.trail.yaml",
    )
    assert without_misuse.returncode == 2, without_misuse.output  # the tool itself broke
    assert "broken_tool (broken_tools) raised RuntimeError: the tool itself broke" in without_misuse.output

    # (exit 1 for a failed trail and 0 for all passed are in every other run of the suite)


# -- bad input: one clear message, the right code, never a traceback ---------------------------------------

MALFORMED = "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigate: {url: /a\n"
WRONG_TYPE = (
    "trail:\n  - step: Open\n    maxRetries: many\n    recording:\n      web:\n        - web_navigate: {url: /a}\n"
)
UNKNOWN_TOOL = "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigat: {url: /a}\n"
WRONG_ARGS = "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigate: {url: 5, speed: fast}\n"
WITH_ARGS = """
config:
  args:
    count: {type: integer, default: 3}
    who: {description: who runs it}
trail:
  - step: Open {{args.count}} for {{args.who}}
    recording:
      web:
        - web_navigate: {url: /about.html}
"""


@pytest.mark.parametrize(
    ("files", "args", "code", "expected"),
    [
        ({"t.trail.yaml": MALFORMED}, [], 3, "t.trail.yaml:6:1: invalid YAML"),
        ({"t.trail.yaml": WRONG_TYPE}, [], 3, "t.trail.yaml:3:17: 'maxRetries:' must be a whole number"),
        (
            {"t.trail.yaml": UNKNOWN_TOOL},
            [],
            3,
            "t.trail.yaml:5:11: unknown tool 'web_navigat' for driver playwright-native; did you mean",
        ),
        ({"t.trail.yaml": WRONG_ARGS}, [], 3, "t.trail.yaml:5:31: web_navigate: url: input should be a valid string"),
        (
            {"t.trail.yaml": PASSING},
            ["--driver", "nope"],
            3,
            "unknown driver 'nope' (known drivers: android-uiautomator2, appium, ios-wda, playwright-native, or "
            "upstream",
        ),
        ({}, ["missing.trail.yaml"], 3, "missing.trail.yaml: no such file or directory"),
        ({"t.trail.yaml": PASSING}, ["--arg", "novalue"], 3, "'novalue': expected NAME=VALUE"),
        (
            {"t.trail.yaml": WITH_ARGS},
            ["--arg", "who=me", "--arg", "count=many"],
            3,
            "--arg count: expected an integer",
        ),
        ({"t.trail.yaml": WITH_ARGS}, [], 3, "trail argument 'who' is required: pass --arg who=VALUE"),
        ({"t.trail.yaml": PASSING}, ["--timeout", "0"], 3, "Invalid value for '--timeout'"),
        ({"t.trail.yaml": PASSING}, ["--timeout", "nan"], 3, "'nan': expected a number of seconds > 0"),
        ({"t.trail.yaml": PASSING}, ["--timeout", "1e308"], 3, "'1e308': expected a number of seconds > 0 and at most"),
        ({"t.trail.yaml": PASSING}, ["--workers", "100000"], 3, "Invalid value for '--workers'"),
        ({"t.trail.yaml": PASSING}, ["--retries", "100000"], 3, "Invalid value for '--retries'"),
        ({"t.trail.yaml": PASSING}, ["--shard-all", "100000"], 3, "Invalid value for '--shard-all'"),
        ({"t.trail.yaml": PASSING}, ["--shard", "1/100000"], 3, "--shard 1/100000: COUNT is at most 1000"),
        ({"trailblaze.yaml": "timeout: 1e308\n"}, [], 3, "trailblaze.yaml:1:10: timeout: input should be less than or"),
        ({"trailblaze.yaml": "retries: 100000\n"}, [], 3, "trailblaze.yaml:1:10: retries: input should be less than"),
        ({"t.trail.yaml": PASSING}, ["--base-url", "http://:80/"], 3, "--base-url: 'http://:80/' has no host"),
        ({"t.trail.yaml": PASSING}, ["-c", "nowhere.yaml"], 3, "nowhere.yaml: config file not found"),
        ({"trailblaze.yaml": "timeout: soon\nbase_urll: x\n"}, [], 3, "trailblaze.yaml:1:10: timeout: input should be"),
        ({"t.trail.yaml": "trail: []\n"}, [], 3, "'trail:' must be a non-empty list"),
        ({}, [], 3, "trails: no such folder (trails_dir of "),
    ],
    ids=[
        "malformed-yaml",
        "wrong-type",
        "unknown-tool",
        "wrong-tool-args",
        "unknown-driver",
        "missing-file",
        "arg-without-value",
        "arg-of-wrong-type",
        "required-arg-missing",
        "bad-timeout",
        "nan-timeout",
        "timeout-for-ever",
        "too-many-workers",
        "too-many-retries",
        "too-many-devices",
        "too-many-shards",
        "config-timeout-for-ever",
        "config-retries-without-end",
        "bad-base-url",
        "missing-config",
        "bad-config",
        "empty-trail",
        "no-trails-dir",
    ],
)
def test_bad_input_gets_one_clear_answer(
    cli: CliRunner, project: Project, files: dict[str, str], args: list[str], code: int, expected: str
) -> None:
    for name, text in files.items():
        project.write(name, text)
    paths = ["t.trail.yaml"] if "t.trail.yaml" in files and not any(a.endswith(".yaml") for a in args) else []
    result = cli("run", *args, *paths)
    assert result.returncode == code, result.output
    assert expected in result.output
    assert "Traceback" not in result.output
    assert result.stdout == ""  # nothing ran, nothing was reported as running


def _fractional_options() -> list[tuple[str, ...]]:
    """Every option of every command (with the built-in plugins' options) that takes a number
    with a fraction: the command's words and the option."""
    import click

    from trailblaze.cli import cli as group
    from trailblaze.cli.commands import ProjectCommand
    from trailblaze.pluginmanager import collect_options, get_plugin_manager

    def fractional(kind: click.ParamType) -> bool:
        try:
            return isinstance(kind.convert("1.5", None, None), float)
        except click.BadParameter:
            return False

    parser = collect_options(get_plugin_manager(autoload=False))
    found: list[tuple[str, ...]] = []

    def walk(command: click.Group, ctx: click.Context, words: tuple[str, ...]) -> None:
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if isinstance(sub, click.Group):
                walk(sub, click.Context(sub, parent=ctx, info_name=name), (*words, name))
                continue
            if isinstance(sub, ProjectCommand):
                sub = sub.with_options(parser)
            assert sub is not None
            for param in sub.params:
                if isinstance(param, click.Option) and not param.is_flag and not param.count and fractional(param.type):
                    found.append((*words, name, param.opts[-1]))

    walk(group, click.Context(group, info_name="trailblaze"), ())
    return found


FRACTIONAL_OPTIONS = _fractional_options()
RATIO_PLUGIN = """
import trailblaze


@trailblaze.hookimpl
def trailblaze_addoption(parser):
    parser.getgroup("ratio").addoption("--ratio", type=float, help="A plugin's number.")
"""


def test_the_commands_have_options_that_take_fractions() -> None:
    """The check below can fail: it finds what it checks."""
    assert {("mcp", "--idle-timeout"), ("mcp", "--timeout"), ("run", "--timeout")} <= set(FRACTIONAL_OPTIONS)


@pytest.mark.parametrize("words", FRACTIONAL_OPTIONS, ids=" ".join)
def test_every_number_option_refuses_nan_and_infinity(cli: CliRunner, project: Project, words: tuple[str, ...]) -> None:
    """nan compares false with every bound (``--idle-timeout nan`` was an internal error, exit 4)
    and infinity is no number of seconds: a usage error naming the option, before anything runs."""
    *command, option = words
    for value in ("nan", "inf", "-inf", "NaN"):
        result = cli(*command, option, value, cwd=project.root)
        assert result.returncode == 3, (value, result.output)
        assert f"Invalid value for '{option}'" in result.stderr and f"'{value}'" in result.stderr, result.stderr
        assert "Traceback" not in result.output


def test_a_plugins_number_option_refuses_nan_and_infinity(cli: CliRunner, project: Project) -> None:
    """A plugin's ``type=float`` option is finite too: the command line makes it one."""
    project.write("ratio_plugin.py", RATIO_PLUGIN)
    env = {"PYTHONPATH": f"{project.root}{os.pathsep}{cli_env()['PYTHONPATH']}"}
    for value in ("nan", "inf"):
        result = cli("-p", "ratio_plugin", "run", "--ratio", value, cwd=project.root, env=env)
        assert result.returncode == 3, result.output
        assert f"Invalid value for '--ratio': '{value}' is not a finite number" in result.stderr
    accepted = cli("-p", "ratio_plugin", "run", "--ratio", "0.5", "--help", cwd=project.root, env=env)
    assert accepted.returncode == 0 and "--ratio" in accepted.stdout, accepted.output


def test_headed_without_a_display_says_so(cli: CliRunner, project: Project) -> None:
    project.trail("t", PASSING)
    result = cli("run", "--headed", env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert result.returncode == 3, result.output
    assert result.stderr == (
        "error: a visible browser needs a display (--headed): no display ($DISPLAY is unset); run without "
        "--headed, or where there is a display\n"
    )  # it used to be Chromium's dbus complaints, exit 2


def test_bad_input_is_reported_before_a_browser_starts(cli: CliRunner, project: Project) -> None:
    project.trail("good", PASSING)
    project.trail("bad", UNKNOWN_TOOL)
    result = cli("run", "--json", "results.json")
    assert result.returncode == 3
    assert "trails/bad.trail.yaml:5:11: unknown tool" in result.stderr
    assert not (project.root / "results.json").exists()  # nothing half-written


@pytest.mark.browser
def test_a_browser_path_that_does_not_exist_is_misuse(cli: CliRunner, project: Project, browser: str) -> None:
    project.write("trailblaze.yaml", "base_url: sample-app\nbrowser: no/such/chromium\n")
    project.trail("t", PASSING)
    result = cli("run")
    assert result.returncode == 3
    assert f"browser not found: {project.root / 'no/such/chromium'}" in result.output
    assert "Traceback" not in result.output


@pytest.mark.browser
@pytest.mark.parametrize(
    ("content", "mode", "says"),
    [
        ("#!/bin/sh\necho 'this is not a browser' >&2\nexit 1\n", 0o755, "this is not a browser"),
        ("not even a program\n", 0o644, "EACCES"),
    ],
    ids=["exits-at-once", "not-executable"],
)
def test_a_browser_that_does_not_start_is_an_infrastructure_error(
    cli: CliRunner, project: Project, browser: str, content: str, mode: int, says: str
) -> None:
    fake = project.write("fake-chromium", content)
    fake.chmod(mode)
    project.write("trailblaze.yaml", "base_url: sample-app\nbrowser: fake-chromium\n")
    project.trail("t", PASSING)
    result = cli("run", "--json", "results.json")
    assert result.returncode == 2, result.output
    error = result.json()["trails"][0]["error"]
    assert error.startswith(f"cannot start the browser at {fake}: ")
    assert says in error
    assert "\n" not in error  # one line, not Playwright's launch log
    assert "Call log" not in result.output
    assert "Traceback" not in result.output


# -- validate ------------------------------------------------------------------------------------------------


def test_validate_reports_every_problem_in_every_file(cli: CliRunner, project: Project) -> None:
    project.trail("a", UNKNOWN_TOOL)
    project.trail("b", WRONG_ARGS)
    project.trail("c", MALFORMED)
    project.trail("d", PASSING)
    project.write("trails/sub/trail.yaml", WRONG_TYPE.replace("web_navigate: {url: /a}", "web_click: {}"))
    result = cli("validate")
    assert result.returncode == 3
    errors = sorted(line for line in result.stderr.splitlines() if line.startswith("error: "))
    assert errors == [
        "error: trails/a.trail.yaml:5:11: unknown tool 'web_navigat'; did you mean 'web_navigate'?",
        "error: trails/b.trail.yaml:5:31: web_navigate: url: input should be a valid string",
        "error: trails/b.trail.yaml:5:41: web_navigate: speed: unknown argument",
        "error: trails/c.trail.yaml:6:1: invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping)",
        "error: trails/sub/trail.yaml:3:17: 'maxRetries:' must be a whole number ≥ 0",
    ]
    assert result.stderr.rstrip().endswith("5 problems")
    assert "Traceback" not in result.output


def test_validate_passes_good_trails_without_a_browser(cli: CliRunner, project: Project) -> None:
    project.trail("a", PASSING)
    project.trail("b", WITH_ARGS)  # a required argument may be missing when only validating
    result = cli("validate")
    assert result.returncode == 0, result.output
    assert result.stdout.strip() == "2 trails valid"


BY_DEVICE = """
trail:
  - step: Open the app
    recording:
      android:
        - pressBack: {}
      android-phone:
        - pressBak: {}
      web:
        - web_navigat: {url: /}
"""


def test_validate_for_a_driver_checks_the_recordings_its_devices_may_replay(cli: CliRunner, project: Project) -> None:
    project.trail("a", BY_DEVICE)
    result = cli("validate", "--driver", "android")
    assert result.returncode == 3
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    # a phone replays android-phone before android; the web recording is not this driver's
    assert errors == [
        "error: trails/a.trail.yaml:7:11: unknown tool 'pressBak' for driver android-uiautomator2; "
        "did you mean 'pressBack'?"
    ]


# -- tools, plugins, devices -------------------------------------------------------------------------------

REGISTRY_KEYS = {
    "name",
    "description",
    "source",
    "inputSchema",
    "platforms",
    "drivers",
    "groups",
    "exposedToLlm",
    "isRecordable",
    "isDelegating",
    "requiresHost",
}


def test_tools_json_has_the_registry_keys(cli: CliRunner, project: Project) -> None:
    result = cli("tools", "--json")
    assert result.returncode == 0
    tools = {t["name"]: t for t in json.loads(result.stdout)}
    for entry in tools.values():
        assert set(entry) >= REGISTRY_KEYS, entry["name"]
        assert isinstance(entry["inputSchema"], dict)
        assert entry["description"]
    click = tools["web_click"]
    assert click["source"] == "web_playwright"
    assert click["platforms"] == ["web"]
    assert set(click["inputSchema"]["properties"]) >= {"ref", "nodeSelector"}
    tap = tools["tap"]
    assert (tap["source"], tap["isDelegating"], tap["isRecordable"], tap["platforms"]) == (
        "core_tools",
        True,
        False,
        None,
    )
    assert tools["web_evaluate"]["exposedToLlm"] is False
    secret = tools["web_fillSecret"]["inputSchema"]["properties"]["value"]
    assert secret.get("writeOnly") or secret.get("format") == "password"


def test_tools_for_a_driver_are_those_its_sessions_get(cli: CliRunner, project: Project) -> None:
    project.write("android_tools.py", ANDROID_ONLY_PLUGIN)
    everything = {t["name"] for t in json.loads(cli("tools", "--json", "-p", "android_tools").stdout)}
    on_web = {t["name"] for t in json.loads(cli("tools", "--json", "--driver", "web", "-p", "android_tools").stdout)}
    assert "android_only" in everything
    assert "android_only" not in on_web
    assert {"web_click", "tap", "runTrail"} <= on_web
    plain = cli("tools", "--driver", "PLAYWRIGHT_NATIVE")
    assert plain.returncode == 0
    assert "web_navigate" in plain.stdout
    assert plain.stdout.rstrip().splitlines()[-1].startswith(f"{len(on_web)} tools")
    assert cli("tools", "--driver", "nope").returncode == 3


ANDROID_ONLY_PLUGIN = '''
import trailblaze


@trailblaze.tool(name="android_only", platforms=["android"])
def android_only() -> None:
    """Only for Android."""


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(android_only)
'''


def test_plugins_json_lists_the_builtins_with_their_hooks(cli: CliRunner, project: Project) -> None:
    result = cli("plugins", "--json")
    assert result.returncode == 0
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    for name in ("trail_files", "core_tools", "web_playwright", "terminal", "json_report", "junit_report"):
        assert rows[name]["kind"] == "builtin"
        assert rows[name]["version"] == __version__
    assert rows["trail_files"]["hooks"] == ["trailblaze_collect_file"]
    assert "trailblaze_register_drivers" in rows["web_playwright"]["hooks"]
    assert rows["json_report"]["hooks"] == ["trailblaze_addoption", "trailblaze_configure", "trailblaze_unconfigure"]
    blocked = {row["name"] for row in json.loads(cli("plugins", "--json", "-p", "no:junit_report").stdout)}
    assert "junit_report" not in blocked
    assert "json_report" in blocked
    plain = cli("plugins").stdout
    assert f"core_tools {__version__} (builtin: trailblaze.plugins.core_tools)" in plain


@pytest.mark.browser
def test_devices(cli: CliRunner, project: Project, browser: str) -> None:
    result = cli("devices", "--json")
    assert result.returncode == 0
    rows = json.loads(result.stdout)
    (device,) = [row for row in rows if row["driver"] == "playwright-native"]  # mobile drivers list theirs too
    assert (device["id"], device["platform"], device["driver"]) == ("chromium", "web", "playwright-native")


# -- init -----------------------------------------------------------------------------------------------------


@pytest.mark.browser
def test_init_then_run_is_green(cli: CliRunner, tmp_path: Path, browser: str) -> None:
    made = cli("init", "my-project")
    assert made.returncode == 0, made.output
    root = tmp_path / "my-project"
    assert (root / "trailblaze.yaml").is_file()
    assert (root / "trails" / "example.trail.yaml").is_file()
    assert "cd my-project && trailblaze run" in made.stdout
    ran = cli("run", cwd=root)
    assert ran.returncode == 0, ran.output
    assert "1 passed" in ran.stdout


def test_run_where_there_is_no_project_suggests_init(cli: CliRunner, tmp_path: Path) -> None:
    for command in ("run", "validate"):
        result = cli(command)
        assert result.returncode == 3, result.output
        assert result.stderr == (
            "error: trails: no such folder, and no trailblaze.yaml here or in a folder above: `trailblaze init` "
            "creates a project (trailblaze.yaml, and trails/ with an example), or name trail files: "
            "trailblaze run PATH…\n"
        )


def test_init_has_git_ignore_what_runs_leave(cli: CliRunner, tmp_path: Path) -> None:
    made = cli("init")
    assert made.returncode == 0, made.output
    assert "created .gitignore" in made.stdout
    ignore = tmp_path / ".gitignore"
    assert ignore.read_text(encoding="utf-8").splitlines()[1:] == [".trailblaze/", "trailblaze-report/"]
    ignore.write_text("node_modules\n/.trailblaze", encoding="utf-8")  # someone's own, no newline at the end
    again = cli("init", "--force")
    assert again.returncode == 0, again.output
    assert "added trailblaze-report/ to .gitignore" in again.stdout
    lines = ignore.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["node_modules", "/.trailblaze"] and lines[-1] == "trailblaze-report/"
    unchanged = ignore.read_text(encoding="utf-8")
    assert ".gitignore" not in cli("init", "--force").stdout and ignore.read_text(encoding="utf-8") == unchanged


def test_a_misspelt_argument_gets_the_nearest_name(cli: CliRunner, project: Project) -> None:
    project.trail(
        "typo",
        """
        trail:
          - step: Type
            recording:
              web:
                - web_type: {txt: hello, nodeSelector: {web: {ariaRol: textbox}}}
        """,
    )
    result = cli("validate")
    assert result.returncode == 3
    assert "web_type: txt: unknown argument (did you mean 'text'?)" in result.stderr
    assert "web_type: nodeSelector.web.ariaRol: unknown argument (did you mean 'ariaRole'?)" in result.stderr


def test_init_refuses_to_overwrite(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "trailblaze.yaml").write_text("timeout: 3\n", encoding="utf-8")
    refused = cli("init")
    assert refused.returncode == 3
    assert "trailblaze.yaml already exists; use --force to overwrite" in refused.stderr
    assert (tmp_path / "trailblaze.yaml").read_text(encoding="utf-8") == "timeout: 3\n"
    assert not (tmp_path / "trails").exists()  # nothing half-written
    forced = cli("init", "--force")
    assert forced.returncode == 0
    assert "base_url: sample-app" in (tmp_path / "trailblaze.yaml").read_text(encoding="utf-8")


# -- sample-app -----------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_sample_app_serves_until_interrupted(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "trailblaze", "sample-app", "--port", str(port)]
    with subprocess.Popen(command, cwd=tmp_path, env=cli_env(), stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.strip() == f"serving the sample app at http://127.0.0.1:{port}/ (Ctrl-C to stop)"
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/forms.html", timeout=10) as response:
                assert response.status == 200
                assert "<h1>Forms</h1>" in response.read().decode()
            busy = subprocess.run(
                command, capture_output=True, text=True, cwd=tmp_path, env=cli_env(), timeout=30, check=False
            )
            assert busy.returncode == 3
            assert f"cannot listen on 127.0.0.1:{port}" in busy.stderr
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=10) == 0
        finally:
            if proc.poll() is None:
                proc.kill()


# -- output ------------------------------------------------------------------------------------------------------


@pytest.mark.browser
def test_output_is_plain_when_not_a_terminal(tmp_path: Path, project: Project, browser: str) -> None:
    project.trail("ok", PASSING)
    project.trail("not-ok", FAILING)
    env = {k: v for k, v in cli_env().items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.run(
        [sys.executable, "-m", "trailblaze", "run", "-vv"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert "\x1b" not in proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"trailblaze {__version__} · 2 trails · playwright-native"
    failed = next(i for i, line in enumerate(lines) if line.startswith("FAILED  not-ok ("))
    location, message = lines[failed + 1].strip().split(": ", 1)  # the trail file and the failing call's line first
    assert re.fullmatch(r"trails/not-ok\.trail\.yaml:\d+", location), location
    assert message.startswith(
        "step 2 (A text that is not there): web_verifyTextVisible: text 'Not on this page' visible: "
        "0 elements matched within"
    )
    assert any(line.startswith("PASSED  ok (") for line in lines)
    assert lines[-1].startswith("1 passed, 1 failed in ")
    assert "      passed  web_navigate" in proc.stdout  # -vv: every tool call


# -- interruption -----------------------------------------------------------------------------------------------

SLOW = """
trail:
  - step: Open the forms page
    recording:
      web:
        - web_navigate: {url: /forms.html}
  - step: Wait for a button that never comes
    recording:
      web:
        - web_click: {nodeSelector: {web: {cssSelector: "#never"}}, timeoutMs: 120000}
"""


@pytest.mark.browser
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to see the process tree")
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_interrupting_a_run(cli_process: CliProcess, project: Project, browser: str, how: str) -> None:
    """Ctrl-C in a terminal signals the whole foreground process group (Playwright's driver
    too); SIGTERM (CI cancelling a job) reaches trailblaze alone. Either way: exit 130, the
    finished trails and the one in flight reported, nothing left running."""
    project.trail("a-quick", PASSING)
    project.trail("b-slow", SLOW)
    marker = uuid.uuid4().hex
    proc = cli_process(
        "run", "-v", "--json", "results.json", "--junit", "results.xml",
        cwd=project.root, env={"TRAILBLAZE_TEST_MARKER": marker}, session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    seen = ""
    while "PASSED  step 1: Open the forms page" not in seen.split("b-slow", 1)[-1]:
        line = proc.stdout.readline()
        assert line, f"the run ended early: {seen}"
        seen += line
    assert len(processes_with(marker)) >= 3  # trailblaze, Playwright's driver, Chromium
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, seen + out + err
    assert "1 passed, 1 error (interrupted)" in out
    assert "Traceback" not in err
    assert "never retrieved" not in err
    results = json.loads((project.root / "results.json").read_text(encoding="utf-8"))
    assert results["interrupted"] is True
    assert results["exit_code"] == 130
    assert [(t["id"], t["status"], t["error"]) for t in results["trails"]] == [
        ("a-quick", "passed", None),
        ("b-slow", "error", "interrupted during step 2 (Wait for a button that never comes)"),  # in flight
    ]
    junit = ET.parse(project.root / "results.xml").getroot()
    assert [c.get("name") for c in junit.iter("testcase")] == ["a-quick", "b-slow"]
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []


NOT_UTF8 = b"caf\xe9".decode("utf-8", "surrogateescape")  # how Python hands over bytes that are not UTF-8


def test_bytes_that_are_not_utf8_in_an_argument_or_a_file_name_are_escaped_in_every_report(
    cli: CliRunner, tmp_path: Path
) -> None:
    """A Latin-1 ``--arg`` value with ``--json`` was a raw traceback, exit 1, a 0-byte crash log
    and no report; a Latin-1 trail file name was exit 4 and no report although the trail passed."""
    (tmp_path / "trailblaze.yaml").write_text("driver: null-test\n", encoding="utf-8")
    (tmp_path / "trails").mkdir()
    trail = (
        "config: {args: {who: {type: string, default: x}}}\n"
        "trail:\n  - step: 'Greet {{args.who}}'\n    recording:\n      test:\n        - null_tap: {text: Home}\n"
    )
    (tmp_path / "trails" / f"{NOT_UTF8}.trail.yaml").write_text(trail, encoding="utf-8")
    reports = ("--json", "r.json", "--junit", "r.xml", "--html=report.html")
    result = cli("run", "-p", "tests.support.null_driver", "-v", "--arg", f"who={NOT_UTF8}", *reports)
    assert result.returncode == 0, result.output
    assert "Traceback" not in result.output and not (tmp_path / ".trailblaze" / "logs").exists()
    assert "PASSED  step 1: Greet caf\\xe9" in result.stdout  # the byte, shown as what it is
    document = json.loads((tmp_path / "r.json").read_bytes().decode("utf-8"))  # UTF-8, valid JSON
    (only,) = document["trails"]
    assert (only["path"], only["steps"][0]["text"]) == (f"trails/{NOT_UTF8}.trail.yaml", f"Greet {NOT_UTF8}")
    ET.fromstring((tmp_path / "r.xml").read_bytes())
    assert "caf\\udce9" in (tmp_path / "report.html").read_bytes().decode("utf-8")


def test_a_trail_with_thousands_of_problems_lists_the_first_and_counts_the_rest(
    cli: CliRunner, project: Project
) -> None:
    step = "  - step: Open\n    recording:\n      web:\n        - web_navigat: {url: /index.html}\n"
    project.trail("many", "trail:\n" + step * 3000)
    for command in ("validate", "run"):
        result = cli(command, "--driver", "web")
        assert result.returncode == 3, result.output
        lines = result.stderr.splitlines()
        assert lines[0].startswith("error: trails/many.trail.yaml:5:11: unknown tool 'web_navigat'")
        assert lines[-2:] == ["… and 2950 more problems", "3000 problems"]
        assert len(lines) == 52 and result.stdout == ""


def _examples(help_text: str) -> list[str]:
    lines = help_text.split("Examples:\n", 1)[1].splitlines()
    return [line.strip() for line in lines if line.startswith("  ") and line.strip()]


PARSE_EACH = """
import contextlib, io, json, sys
from trailblaze.cli.main import _main
codes = []
for words in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        codes.append([_main([*words, "--help"]), err.getvalue()])
print(json.dumps(codes))
"""


def test_every_command_s_help_ends_with_examples_that_parse(cli: CliRunner, project: Project) -> None:
    """Each `--help` shows how the command is called; every example is a command line the
    CLI accepts (checked by parsing it: `--help` after it stops before anything runs, yet an
    unknown option or command is still an error)."""
    import shlex

    top = cli("--help")
    assert top.returncode == 0
    listed = top.stdout.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    commands = [line.split()[0] for line in listed.splitlines() if line.strip()]
    assert {"run", "record", "validate", "mcp", "tools", "init", "show-report", "merge-reports"} <= set(commands)
    examples: list[str] = []
    for command in [None, *commands]:
        shown = cli(*([command] if command else []), "--help")
        assert shown.returncode == 0, shown.output
        found = _examples(shown.stdout)
        assert found, f"trailblaze {command or ''} --help has no example"
        for example in found:
            assert example.startswith(f"trailblaze {command or ''}".strip()), example
        examples += found
    lines = [shlex.split(e.split(" > ")[0].split(" && ")[0].replace('"$TOKEN"', "t0ken"))[1:] for e in examples]
    parsed = subprocess.run(
        [sys.executable, "-c", PARSE_EACH, json.dumps(lines)],
        cwd=project.root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    results = json.loads(parsed.stdout)
    assert [(e, r) for e, r in zip(examples, results, strict=True) if r[0] != 0] == []
    assert len(examples) >= 2 * len(commands)


def test_an_unknown_option_in_an_example_would_be_caught(cli: CliRunner, project: Project) -> None:
    assert cli("run", "--headed", "--no-such-option", "--help").returncode == 3
