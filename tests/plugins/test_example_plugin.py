"""Plugins installed for real: ``pip install`` into a folder of their own, found through their
``trailblaze`` entry points (importlib.metadata) with that folder on PYTHONPATH, so the test
environment itself stays as it was.

Four distributions: the bundled examples ``plugins-examples/trailblaze-sample-tools`` (tools) and
``plugins-examples/trailblaze-markdown-report`` (a reporter with its own option and config
section), a test package with a ``trailblaze_tool_call`` wrapper and a
``trailblaze_register_commands`` command, and a package whose module raises on import.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import ROOT, CliResult, CliRunner, Project

pytestmark = pytest.mark.slow

EXAMPLE = ROOT / "plugins-examples" / "trailblaze-sample-tools"
REPORTER = ROOT / "plugins-examples" / "trailblaze-markdown-report"

EXTRAS = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools>=77"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "trailblaze-test-extras"
        version = "2.5.0"
        requires-python = ">=3.11"

        [project.entry-points.trailblaze]
        call_log = "trailblaze_call_log"
        hello = "trailblaze_hello"

        [tool.setuptools]
        py-modules = ["trailblaze_call_log", "trailblaze_hello"]
    """,
    "trailblaze_call_log.py": '''
        """Wraps every tool call (the new-style wrapper documented in hookspecs.py) and logs it."""

        import json
        import os

        import trailblaze


        @trailblaze.hookimpl(wrapper=True)
        def trailblaze_tool_call(call, ctx):
            invocation = yield

            async def logged():
                status = "passed"
                try:
                    return await invocation
                except BaseException as exc:
                    status = type(exc).__name__
                    raise
                finally:
                    path = os.environ.get("CALL_LOG")
                    if path:
                        entry = {"name": call.name, "delegating": ctx.delegating, "status": status}
                        with open(path, "a", encoding="utf-8") as log:
                            log.write(json.dumps(entry) + "\\n")

            return logged()
    ''',
    "trailblaze_hello.py": '''
        """Adds a `trailblaze hello` command."""

        import click

        import trailblaze


        @trailblaze.hookimpl
        def trailblaze_register_commands(cli):
            @cli.command()
            @click.option("--name", default="trail")
            def hello(name):
                """Greet from an installed plugin."""
                click.echo(f"hello {name}, from an installed plugin")
    ''',
}

BROKEN = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools>=77"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "trailblaze-broken"
        version = "0.0.1"

        [project.entry-points.trailblaze]
        broken = "trailblaze_broken"

        [tool.setuptools]
        py-modules = ["trailblaze_broken"]
    """,
    "trailblaze_broken.py": """
        raise RuntimeError("this plugin is broken on purpose")
    """,
}


def write_package(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return folder


def pip_install(target: Path, *sources: Path) -> None:
    """``uv pip install --no-deps --target`` (sources are copies: the build writes into the tree it
    is given). uv, a development dependency, rather than pip: pip spent some 19 s of CPU setting
    up an isolated build environment for each of the four packages, uv about 3 s."""
    uv = [sys.executable, "-m", "uv", "pip", "install", "--quiet", "--no-deps", "--python", sys.executable]
    proc = subprocess.run(
        [*uv, "--target", str(target), *map(str, sources)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@dataclass(frozen=True)
class Installed:
    good: Path  # the example plugin and the extras
    broken: Path

    def env(self, site: Path, **extra: str) -> dict[str, str]:
        return {"PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), **extra}


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    sources = tmp_path_factory.mktemp("plugin-sources")
    ignore = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    example = sources / "trailblaze-sample-tools"
    shutil.copytree(EXAMPLE, example, ignore=ignore)
    reporter = sources / "trailblaze-markdown-report"
    shutil.copytree(REPORTER, reporter, ignore=ignore)
    extras = write_package(sources / "extras", EXTRAS)
    broken = write_package(sources / "broken", BROKEN)
    good_site, broken_site = tmp_path_factory.mktemp("site-good"), tmp_path_factory.mktemp("site-broken")
    pip_install(good_site, example, reporter, extras)
    pip_install(broken_site, broken)
    return Installed(good_site, broken_site)


@pytest.fixture
def run_with(cli: CliRunner, installed: Installed) -> Any:
    """The CLI with the good plugins installed and autoloaded."""

    def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> CliResult:
        return cli(*args, autoload=True, env=installed.env(installed.good, **(env or {})), cwd=cwd)

    return run


# -- discovery --------------------------------------------------------------------------------------


def test_installed_plugins_are_listed_with_their_versions(run_with: Any) -> None:
    result = run_with("plugins", "--json")
    assert result.returncode == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["sample_tools"] == {
        "name": "sample_tools",
        "version": "0.1.0",
        "kind": "entrypoint",
        "module": "trailblaze_sample_tools",
        "distribution": "trailblaze-sample-tools",
        "hooks": ["trailblaze_register_tools"],
    }
    assert (rows["call_log"]["version"], rows["call_log"]["hooks"]) == ("2.5.0", ["trailblaze_tool_call"])
    assert "sample_tools 0.1.0 (entrypoint: trailblaze_sample_tools)" in run_with("plugins").stdout


def test_installed_tools_carry_their_source_and_flags(run_with: Any) -> None:
    tools = {t["name"]: t for t in json.loads(run_with("tools", "--json", "--driver", "web").stdout)}
    sample = {name: t for name, t in tools.items() if t["source"] == "sample_tools"}
    assert {name: t["isDelegating"] for name, t in sample.items()} == {
        "sample_openForms": True,
        "sample_submitContactForm": True,
        "sample_signUp": True,
        "sample_filterItems": False,
        "sample_assertItemCount": False,
    }
    assert sample["sample_submitContactForm"]["inputSchema"]["required"] == ["name", "email"]
    assert sample["sample_signUp"]["description"].startswith("Sign up: open the form")


def test_autoload_off_or_blocked_means_not_there(cli: CliRunner, installed: Installed, project: Project) -> None:
    project.write("trails/sign-up.trail.yaml", (EXAMPLE / "trails" / "sign-up.trail.yaml").read_text())
    off = cli("validate", env=installed.env(installed.good, TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD="1"))
    assert off.returncode == 3
    assert "unknown tool 'sample_signUp'" in off.stderr
    blocked = cli("validate", "-p", "no:sample_tools", autoload=True, env=installed.env(installed.good))
    assert blocked.returncode == 3
    assert "unknown tool 'sample_signUp'" in blocked.stderr
    names = {
        r["name"]
        for r in json.loads(
            cli("plugins", "--json", "-p", "no:sample_tools", autoload=True, env=installed.env(installed.good)).stdout
        )
    }
    assert "sample_tools" not in names
    assert "call_log" in names
    assert cli("validate", autoload=True, env=installed.env(installed.good)).returncode == 0


# -- the example plugin's tools in a run -------------------------------------------------------------------


@pytest.mark.browser
def test_the_example_trail_runs_green_with_delegation_chains(
    run_with: Any, project: Project, browser: str, tmp_path: Path
) -> None:
    project.write("trails/sign-up.trail.yaml", (EXAMPLE / "trails" / "sign-up.trail.yaml").read_text())
    log = tmp_path / "calls.jsonl"
    result = run_with("run", "--json", "results.json", env={"CALL_LOG": str(log)})
    assert result.returncode == 0, result.output
    (trail,) = result.json()["trails"]
    executed = [(t["name"], t["delegated_from"]) for step in trail["steps"] for t in step["tools"]]
    assert executed == [
        ("web_navigate", ["sample_signUp", "sample_openForms"]),
        ("web_type", ["sample_signUp", "sample_submitContactForm"]),
        ("web_type", ["sample_signUp", "sample_submitContactForm"]),
        ("web_selectOption", ["sample_signUp", "sample_submitContactForm"]),
        ("web_click", ["sample_signUp", "sample_submitContactForm"]),
        ("web_verifyTextVisible", ["sample_signUp"]),
        ("web_verifyTextVisible", []),
        ("sample_filterItems", []),  # async, acts through ctx.commands
        ("sample_assertItemCount", []),  # sync, blocking ctx.commands
    ]
    tools = [t for step in trail["steps"] for t in step["tools"]]
    assert tools[1]["args"] == {"text": "Ada Lovelace", "nodeSelector": {"web": {"dataTestId": "name-input"}}}
    assert tools[3]["args"]["values"] == ["Team"]

    # the wrapper saw every call, delegating ones included (a delegating call is done when it
    # has returned its delegates, before they run)
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(c["name"], c["delegating"]) for c in calls] == [
        ("sample_signUp", True),
        ("sample_openForms", True),
        ("web_navigate", False),
        ("sample_submitContactForm", True),
        ("web_type", False),
        ("web_type", False),
        ("web_selectOption", False),
        ("web_click", False),
        ("web_verifyTextVisible", False),
        ("web_verifyTextVisible", False),
        ("sample_filterItems", False),
        ("sample_assertItemCount", False),
    ]
    assert {c["status"] for c in calls} == {"passed"}


@pytest.mark.browser
def test_the_example_project_runs_as_its_readme_says(run_with: Any, tmp_path: Path, browser: str) -> None:
    copy = tmp_path / "trailblaze-sample-tools"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    result = run_with("run", "trails/", cwd=copy)
    assert result.returncode == 0, result.output
    assert "PASSED  sample-tools/sign-up" in result.stdout


@pytest.mark.browser
def test_the_call_wrapper_sees_failures_too(run_with: Any, project: Project, browser: str, tmp_path: Path) -> None:
    project.trail(
        "too-many",
        """
        trail:
          - step: Expect the wrong count
            recording:
              web:
                - sample_filterItems: {query: "4", expected: 3}
        """,
    )
    log = tmp_path / "calls.jsonl"
    result = run_with("run", "--json", "results.json", env={"CALL_LOG": str(log)})
    assert result.returncode == 1
    assert result.json()["trails"][0]["error"].splitlines()[0].split(": ", 1)[1] == (
        "step 1 (Expect the wrong count): sample_filterItems: filtering for '4' left 14 items, expected 3"
    )
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert calls == [{"name": "sample_filterItems", "delegating": False, "status": "ToolFailure"}]


# -- commands from plugins ----------------------------------------------------------------------------------


def test_an_installed_plugin_adds_a_command(run_with: Any) -> None:
    result = run_with("hello", "--name", "Ada")
    assert (result.returncode, result.stdout) == (0, "hello Ada, from an installed plugin\n"), result.output
    assert "  hello " in run_with("--help").stdout
    assert "Greet from an installed plugin." in run_with("hello", "--help").stdout


def test_version_loads_no_plugin(cli: CliRunner, installed: Installed) -> None:
    result = cli("--version", autoload=True, env=installed.env(installed.broken))
    assert result.returncode == 0
    assert result.stdout.startswith("trailblaze ")


# -- a plugin that fails to import ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["run"], ["validate"], ["tools"], ["plugins", "--json"]])
def test_a_broken_plugin_is_named_with_its_cause(
    cli: CliRunner, installed: Installed, project: Project, command: list[str]
) -> None:
    project.trail("t", "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigate: {url: /}\n")
    result = cli(*command, autoload=True, env=installed.env(installed.broken))
    assert result.returncode == 3, result.output
    assert result.stderr == (
        'error: error importing plugin "broken" (from trailblaze-broken): RuntimeError: this plugin is broken '
        "on purpose; fix or uninstall it, or skip it with -p no:broken\n"
    )
    assert result.stdout == ""


def test_a_broken_plugin_can_be_skipped(cli: CliRunner, installed: Installed, project: Project) -> None:
    project.trail("t", "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigate: {url: /}\n")
    env = installed.env(installed.broken)
    assert cli("validate", "-p", "no:broken", autoload=True, env=env).returncode == 0
    assert cli("validate", autoload=True, env={**env, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1"}).returncode == 0


def test_a_command_missing_because_its_plugin_is_broken_says_so(cli: CliRunner, installed: Installed) -> None:
    result = cli("hello", autoload=True, env=installed.env(installed.broken))
    assert result.returncode == 3
    assert result.stderr.startswith('error: error importing plugin "broken" (from trailblaze-broken): RuntimeError')
    assert "No such command" not in result.output


# -- a reporter from a plugin: its own option and config section ---------------------------------------------

NULL_PROJECT = "driver: null-test\nplugins: [tests.support.null_driver]\n"
PASSING_TRAIL = "config: {id: home}\ntrail:\n  - step: Tap\n    recording:\n      test: [{null_tap: {text: Home}}]\n"
FAILING_TRAIL = "config: {id: away}\ntrail:\n  - step: Tap\n    recording:\n      test: [{null_tap: {text: Away}}]\n"


def test_the_example_reporter_adds_its_option_to_run_and_record(run_with: Any) -> None:
    help_text = run_with("run", "--help").stdout
    reporting = help_text[help_text.index("Reporting:") :]
    assert re.search(r"--markdown FILE +Write a Markdown summary here\.", reporting)
    assert "--markdown FILE" in run_with("record", "--help").stdout
    rows = {row["name"]: row for row in json.loads(run_with("plugins", "--json").stdout)}
    assert rows["markdown_report"]["hooks"] == [
        "trailblaze_addoption",
        "trailblaze_configure",
        "trailblaze_unconfigure",
    ]


def test_the_example_reporter_writes_its_summary_as_its_section_says(run_with: Any, project: Project) -> None:
    project.write("trailblaze.yaml", NULL_PROJECT + "markdown:\n  title: Nightly\n  show_passed: false\n")
    project.trail("home", PASSING_TRAIL)
    project.trail("away", FAILING_TRAIL)
    result = run_with("run", "--markdown", "out/summary.md")
    assert result.returncode == 1, result.output
    summary = (project.root / "out" / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("# Nightly\n\n1 passed, 1 failed in ")
    assert "| away | null-1 | failed |" in summary
    assert "| home |" not in summary  # show_passed: false
    failure = "trails/away.trail.yaml:5: step 1 (Tap): null_tap: no 'Away' on screen"  # the call's line
    assert f"## away: failed\n\n```\n{failure}\n```\n" in summary
    assert run_with("run").returncode == 1  # without the option the reporter does nothing
    assert sorted(p.name for p in (project.root / "out").iterdir()) == ["summary.md"]


def test_the_example_reporter_writes_a_merged_report_of_ci_shards(run_with: Any, project: Project) -> None:
    project.write("trailblaze.yaml", NULL_PROJECT + "markdown:\n  title: Merged\n")
    project.trail("home", PASSING_TRAIL)
    project.trail("away", FAILING_TRAIL)
    for index in (1, 2):
        shard = run_with("run", "--shard", f"{index}/2", "--json", f"shards/s{index}.json")
        assert shard.returncode in (0, 1), shard.output
    assert "--markdown FILE" in run_with("merge-reports", "--help").stdout
    merged = run_with("merge-reports", "shards", "--markdown", "merged.md", "--json", "merged.json")
    assert merged.returncode == 1, merged.output
    summary = (project.root / "merged.md").read_text(encoding="utf-8")
    assert summary.startswith("# Merged\n\n1 passed, 1 failed in ")
    assert "| away | null-1 | failed |" in summary and "| home | null-1 | passed |" in summary
    document = json.loads((project.root / "merged.json").read_text(encoding="utf-8"))
    assert [entry["path"] for entry in document["merged_from"]] == ["shards/s1.json", "shards/s2.json"]


def test_the_example_reporters_section_is_checked_like_trailblazes_own(run_with: Any, project: Project) -> None:
    project.write("trailblaze.yaml", NULL_PROJECT + "markdown:\n  show_pased: false\n  max_error_chars: 0\n")
    project.trail("home", PASSING_TRAIL)
    config = project.root / "trailblaze.yaml"
    for command in ("run", "validate"):
        result = run_with(command)
        assert result.returncode == 3
        assert result.stderr.splitlines() == [
            f"error: {config}:4:3: markdown.show_pased: unknown key (did you mean 'show_passed'? expected one of: "
            "max_error_chars, show_passed, title)",
            f"error: {config}:5:20: markdown.max_error_chars: input should be greater than 0",
            "2 problems",
        ]


def test_blocking_the_example_reporter_takes_its_option_and_section_away(run_with: Any, project: Project) -> None:
    project.trail("home", PASSING_TRAIL)
    project.write("trailblaze.yaml", NULL_PROJECT)
    option = run_with("run", "-p", "no:markdown_report", "--markdown", "x.md")
    assert option.returncode == 3 and "No such option '--markdown'" in option.stderr
    project.write("trailblaze.yaml", NULL_PROJECT + "markdown: {title: x}\n")
    section = run_with("run", "-p", "no:markdown_report")
    assert section.returncode == 3
    config = project.root / "trailblaze.yaml"
    assert section.stderr.startswith(f"error: {config}:3:1: markdown: unknown key (expected one of: ")
