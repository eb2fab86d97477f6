"""Keep the plugin contract honest: every hook is typed, documented, tested and in the README, and the
built-ins use it as any plugin would (their options come through ``trailblaze_addoption``)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from conftest import CliRunner

from trailblaze import hookspecs
from trailblaze.core.argparsing import Parser
from trailblaze.pluginmanager import DEFAULT_PLUGINS, ESSENTIAL_PLUGINS, collect_options, get_plugin_manager

ROOT = Path(__file__).resolve().parents[1]
HOOKS = sorted(name for name in dir(hookspecs) if name.startswith("trailblaze_"))


def test_there_are_hooks() -> None:
    assert len(HOOKS) >= 18


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_typed_and_documented(name: str) -> None:
    fn = getattr(hookspecs, name)
    signature = inspect.signature(fn)
    for param in signature.parameters.values():
        assert param.annotation is not inspect.Parameter.empty, f"{name}({param.name}) has no type"
    assert signature.return_annotation is not inspect.Signature.empty, f"{name} has no return type"
    doc = inspect.getdoc(fn) or ""
    assert doc.startswith("Called") or "called" in doc.split(".")[0].lower(), f"{name}: say when it is called"
    assert "return" in doc.lower() or "None" in doc, f"{name}: say what to return and what None means"
    for param in signature.parameters:
        assert f"``{param}``" in doc or param in doc, f"{name}: document the parameter {param}"


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_test(name: str) -> None:
    users = [
        path
        for path in (ROOT / "tests").rglob("test_*.py")
        if path.name != "test_hookspecs.py" and name in path.read_text(encoding="utf-8")
    ]
    assert users, f"no test uses {name}"


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_in_the_plugin_docs(name: str) -> None:
    """The plugins page names each hook (``trailblaze_trail_start``/``_finish`` counts for both);
    the generated hook reference adds each one's signature (tests/docs)."""
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    stem, last = name.rsplit("_", 1)
    assert name in page or (stem in page and f"_{last}" in page), f"docs/plugins.md does not mention {name}"


# -- built-ins are plugins all the way: their options come through the hook ------------------------------


def builtin_parser() -> Parser:
    return collect_options(get_plugin_manager(autoload=False))


def test_every_built_in_option_and_setting_is_declared_by_a_built_in_plugin() -> None:
    parser = builtin_parser()
    builtins = {f"trailblaze.plugins.{name}" for name in (*ESSENTIAL_PLUGINS, *DEFAULT_PLUGINS)}
    owners = {o.owner for o in parser.options} | {s.owner for s in parser.settings.values()}
    owners |= {s.owner for s in parser.sections.values()}
    assert owners <= builtins
    # the reporters, drivers and agents own theirs; the runner's own come from `main`
    assert {o.dest: o.owner.rsplit(".", 1)[1] for o in parser.options if o.dest in OWNERS} == OWNERS
    assert {name: s.owner.rsplit(".", 1)[1] for name, s in {**parser.settings, **parser.sections}.items()} == KEYS


OWNERS = {
    "json": "json_report",
    "junit": "junit_report",
    "verbose": "terminal",
    "quiet": "terminal",
    "headed": "web_playwright",
    "base_url": "web_playwright",
    "remote_debugging_port": "web_playwright",
    "trace": "web_playwright",
    "screenshot": "evidence",
    "html": "html_report",
    "connect": "web_playwright",
    "cdp": "web_playwright",
    "shard": "shard",
    "headless": "browser_agent",
    "driver": "main",
    "arg": "main",
    "timeout": "main",
    "retries": "retries",
    "keyword": "selection",
    "last_failed": "selection",
}
KEYS = {
    "base_url": "web_playwright",
    "headless": "web_playwright",
    "browser": "web_playwright",
    "settle_timeout": "mobile_tools",
    "mcp_servers": "mcp_toolsets",
    "callback_port": "mcp_toolsets",
    "llm": "openai_agent",
    "retries": "retries",
    "artifacts_keep": "evidence",
    "html": "html_report",
    "web": "web_playwright",
    "ios": "ios_wda",
}


def test_the_command_line_defines_none_of_the_options_plugins_declare() -> None:
    from trailblaze.cli import cli

    parser = builtin_parser()
    for name, command in cli.commands.items():
        own = {flag for param in command.params for flag in getattr(param, "opts", ())}
        declared = {flag for option in parser.options_for(name) for flag in option.names}
        assert own & declared == set(), f"cli.py defines {own & declared} for {name}: declare them in a plugin"
    for name in ("run", "record", "validate"):  # all their options come from plugins
        assert sorted(p.name for p in cli.commands[name].params) == ["config", "paths", "plugin_args"]


def test_every_option_a_plugin_declares_is_on_the_command_line(cli: CliRunner) -> None:
    parser = builtin_parser()
    for command in ("run", "record", "mcp"):
        shown = cli(command, "--help").stdout
        for option in parser.options_for(command):
            assert all(name in shown for name in option.names), (command, option.names)
