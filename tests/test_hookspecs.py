"""Keep the plugin contract honest: every hook is typed, documented, called by a test and in the
docs, every type a hook names is exported from ``trailblaze``, and the built-ins use the contract
as any plugin would (their options come through ``trailblaze_addoption``)."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import trailblaze
from tests.support.cli import CliRunner
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


HOOKS_PY = "tests/runner/test_hooks.py"
#: for each hook, the test that implements it, runs what calls it, and asserts its effect
HOOK_TESTS = {
    "trailblaze_addhooks": (HOOKS_PY, "test_addhooks_lets_a_plugin_declare_its_own_hooks"),
    "trailblaze_addoption": ("tests/core/test_argparsing.py", "test_configure_reads_options_settings_and_sections"),
    "trailblaze_configure": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_unconfigure": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_register_tools": ("tests/tools/test_toolpage.py", "test_a_plugin_tool_without_descriptions_says_so"),
    "trailblaze_register_drivers": (
        "tests/project/test_toolsets.py",
        "test_a_plugins_driver_adds_a_platform_targets_may_have",
    ),
    "trailblaze_register_agents": (
        "tests/api/test_agent.py",
        "test_a_plugin_registers_an_agent_next_to_the_built_in_ones",
    ),
    "trailblaze_register_commands": (HOOKS_PY, "test_register_commands_adds_cli_commands"),
    "trailblaze_start_early": (
        HOOKS_PY,
        "test_start_early_is_asked_as_a_run_starts_and_what_it_started_is_stopped_unused",
    ),
    "trailblaze_workspace_tools": (
        HOOKS_PY,
        "test_workspace_tools_adds_a_workspaces_tools_once_and_its_problems_stop_the_run",
    ),
    "trailblaze_collect_file": (HOOKS_PY, "test_collect_file_is_offered_every_file_and_told_which_were_named"),
    "trailblaze_check_run": (HOOKS_PY, "test_check_run_problems_stop_run_and_validate_before_a_device_opens"),
    "trailblaze_modify_plan": (HOOKS_PY, "test_modify_plan_deselects_for_run_but_not_for_validate"),
    "trailblaze_adds_session_tools": (HOOKS_PY, "test_adds_session_tools_defers_unknown_tool_names_to_the_session"),
    "trailblaze_run_start": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_run_finish": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_session_setup": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_session_start": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_session_finish": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_trail_start": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_trail_finish": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_step_start": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_step_finish": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_step_evidence": ("tests/plugins/test_evidence.py", "test_plugins_save_evidence_through_the_hooks"),
    "trailblaze_trail_evidence": ("tests/plugins/test_evidence.py", "test_plugins_save_evidence_through_the_hooks"),
    "trailblaze_tool_call": (HOOKS_PY, "test_a_tool_call_hook_can_take_over_a_call"),
    "trailblaze_pause_live": (HOOKS_PY, "test_pause_live_is_called_before_printing_for_a_person"),
    "trailblaze_tool_report": (HOOKS_PY, "test_lifecycle_hooks_fire_in_order"),
    "trailblaze_doctor": ("tests/cli/test_doctor.py", "test_a_plugin_adds_its_checks_through_the_hook"),
}


def test_every_hook_is_named_with_its_test() -> None:
    assert sorted(HOOK_TESTS) == HOOKS


def implements(node: ast.AST, hook: str) -> bool:
    """Whether ``node`` holds an implementation of ``hook``: a ``def``, or plugin source in a
    string that the test writes to a file."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef) and inner.name == hook:
            return True
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and f"def {hook}(" in inner.value:
            return True
    return False


def reached_from(test: ast.FunctionDef, module: ast.Module) -> list[ast.AST]:
    """The test and every module-level definition it uses, directly or through another (a plugin
    class, the plugin source it writes)."""
    definitions: dict[str, ast.AST] = {}
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            definitions[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            definitions.update((t.id, node) for t in targets if isinstance(t, ast.Name))
    reached, todo = [test], [test]
    while todo:
        for name in {n.id for n in ast.walk(todo.pop()) if isinstance(n, ast.Name)}:
            found = definitions.get(name)
            if found is not None and found not in reached:
                reached.append(found)
                todo.append(found)
    return reached


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_test_that_calls_it(name: str) -> None:
    """The test named for each hook registers an implementation of it (as a class, a function or
    a plugin file it writes), so the run it starts calls the hook, and asserts what came of it."""
    path, test_name = HOOK_TESTS[name]
    where = f"{path}::{test_name}"
    module = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    tests = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == test_name]
    assert tests, f"{where} does not exist"
    (test,) = tests
    assert any(isinstance(n, ast.Assert) for n in ast.walk(test)), f"{where} asserts nothing"
    assert any(implements(node, name) for node in reached_from(test, module)), f"{where} does not implement {name}"


def test_the_check_of_a_hooks_test_sees_what_it_uses() -> None:
    module = ast.parse(
        "class Plugin:\n    def trailblaze_run_start(self, run): ...\n"
        "SOURCE = 'def trailblaze_run_finish(run, result): ...'\n"
        "def test_a():\n    register(Plugin(), SOURCE)\n    assert True\n"
        "def test_b():\n    assert True\n"
    )
    test_a, test_b = (n for n in module.body if isinstance(n, ast.FunctionDef))
    for hook in ("trailblaze_run_start", "trailblaze_run_finish"):
        assert not implements(test_a, hook)
        assert any(implements(n, hook) for n in reached_from(test_a, module))
    assert reached_from(test_b, module) == [test_b]


def named_in_plugins_page(page: str) -> set[str]:
    """The hooks the plugins page names: ``trailblaze_x`` in backquotes, and a shared stem's other
    ends after it (```trailblaze_run_start`/`_finish``)."""
    named = set()
    for first, rest in re.findall(r"`(trailblaze_[a-z_]+)`((?:/`_[a-z]+`)*)", page):
        named.add(first)
        stem = first.rsplit("_", 1)[0]
        named.update(f"{stem}{end}" for end in re.findall(r"`(_[a-z]+)`", rest))
    return named


def test_the_plugin_docs_name_every_hook_and_no_other() -> None:
    """docs/plugins.md lists the hooks; the hook reference it links (generated from hookspecs.py,
    checked in tests/docs/test_hook_reference.py) shows each one's real signature."""
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    assert "[Hook reference](hooks.md)" in page
    assert sorted(named_in_plugins_page(page)) == HOOKS


def signature_types(fn: Callable[..., Any]) -> set[str]:
    """Every name a hook's annotations use (they are strings: ``from __future__ import annotations``)."""
    found: set[str] = set()
    for annotation in [*fn.__annotations__.values()]:
        tree = ast.parse(annotation, mode="eval") if isinstance(annotation, str) else ast.parse(repr(annotation))
        found |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return found


def hookspec_imports() -> dict[str, str]:
    """Where each name hookspecs.py imports comes from (under TYPE_CHECKING too)."""
    tree = ast.parse(Path(hookspecs.__file__).read_text(encoding="utf-8"))
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update((a.asname or a.name, node.module) for a in node.names)
        elif isinstance(node, ast.Import):
            found.update((a.asname or a.name, a.name) for a in node.names)
    return found


def test_every_type_a_hook_names_is_exported_from_trailblaze() -> None:
    """A plugin types its hooks with ``trailblaze.X`` for every type a hook passes or returns."""
    imported = hookspec_imports()
    ours = set()
    for name in HOOKS:
        for type_name in signature_types(getattr(hookspecs, name)):
            module = imported.get(type_name)
            if module is None:
                assert type_name in {*dir(builtins), "None"}, f"{name}: {type_name} is imported from nowhere"
            elif module.startswith("trailblaze"):
                ours.add((type_name, module))
    assert {"Trail", "Step", "Session", "ToolReport"} <= {t for t, _ in ours}
    for type_name, module in sorted(ours):
        assert type_name in trailblaze.__all__, f"{type_name} ({module}) is not in trailblaze.__all__"
        assert getattr(trailblaze, type_name) is getattr(importlib.import_module(module), type_name)


def test_the_plugin_docs_name_every_type_hooks_pass() -> None:
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    paragraph = page.split("The types hooks receive are public", 1)[1].split("\n\n", 1)[0]
    imported = hookspec_imports()
    ours = {
        t
        for name in HOOKS
        for t in signature_types(getattr(hookspecs, name))
        if imported.get(t, "").startswith("trailblaze")
    }
    assert {t for t in ours if f"`{t}`" not in paragraph and f"`trailblaze.{t}`" not in paragraph} == set()


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
    "scripted_tools_env": "mcp_toolsets",
    "llm": "openai_agent",
    "retries": "retries",
    "artifacts_keep": "evidence",
    "html": "html_report",
    "web": "web_playwright",
    "ios": "ios_wda",
    "appium": "appium",
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
