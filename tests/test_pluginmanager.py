from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

import trailblaze
from tests.support.project import make_project
from trailblaze.core.errors import UsageError
from trailblaze.pluginmanager import DEFAULT_PLUGINS, ESSENTIAL_PLUGINS, get_plugin_manager


def fake_distribution(site: Path, name: str, module: str, body: str) -> None:
    """An installed distribution with a `trailblaze` entry point, as pip would leave it."""
    (site / f"{module}.py").write_text(body, encoding="utf-8")
    info = site / f"{name.replace('-', '_')}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.2.3\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[trailblaze]\n{module} = {module}\n", encoding="utf-8")


def test_builtins_are_plugins_registered_by_name() -> None:
    plugins = get_plugin_manager(autoload=False)
    names = [row["name"] for row in plugins.describe()]
    builtins = [*ESSENTIAL_PLUGINS, *DEFAULT_PLUGINS]
    assert names[: len(builtins)] == builtins
    web = next(row for row in plugins.describe() if row["name"] == "web_playwright")
    assert web["kind"] == "builtin" and web["version"] == trailblaze.__version__
    assert web["hooks"] == [
        "trailblaze_addoption",
        "trailblaze_check_run",
        "trailblaze_configure",
        "trailblaze_doctor",
        "trailblaze_register_commands",
        "trailblaze_register_drivers",
        "trailblaze_register_tools",
        "trailblaze_session_setup",
        "trailblaze_start_early",
        "trailblaze_trail_evidence",
        "trailblaze_trail_start",
    ]
    assert plugins.builtin() == {*ESSENTIAL_PLUGINS, *DEFAULT_PLUGINS}
    assert "web_playwright" not in get_plugin_manager(["no:web_playwright"], autoload=False).builtin()


def test_the_runners_own_options_cannot_be_blocked() -> None:
    with pytest.raises(UsageError, match="plugin 'main' cannot be blocked"):
        get_plugin_manager(["no:main"], autoload=False)


def test_p_no_blocks_a_plugin_and_p_loads_a_module() -> None:
    plugins = get_plugin_manager(["no:junit_report", "tests.support.null_driver"], autoload=False)
    assert not plugins.pm.has_plugin("junit_report")
    assert plugins.pm.is_blocked("junit_report")
    assert plugins.info["tests.support.null_driver"].kind == "module"


def test_entry_points_load_unless_autoload_is_disabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_distribution(tmp_path, "acme-tools", "acme_tools", "import trailblaze\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins = get_plugin_manager()
    info = plugins.info["acme_tools"]
    assert (info.kind, info.version, info.distribution) == ("entrypoint", "1.2.3", "acme-tools")
    monkeypatch.setenv("TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert "acme_tools" not in get_plugin_manager().info
    monkeypatch.delenv("TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD")
    assert "acme_tools" not in get_plugin_manager(["no:acme_tools"]).info


def test_a_plugin_that_fails_to_import_is_named_with_its_cause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_distribution(tmp_path, "broken-tools", "broken_tools", "raise RuntimeError('missing API key')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageError) as info:
        get_plugin_manager()
    assert str(info.value) == (
        'error importing plugin "broken_tools" (from broken-tools): RuntimeError: missing API key; '
        "fix or uninstall it, or skip it with -p no:broken_tools"
    )
    monkeypatch.delitem(sys.modules, "broken_tools", raising=False)


def test_a_misspelled_hook_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("typo_plugin")

    @trailblaze.hookimpl
    def trailblaze_register_tool(register: Any) -> None: ...

    module.trailblaze_register_tool = trailblaze_register_tool  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "typo_plugin", module)
    with pytest.raises(UsageError, match="plugin 'typo_plugin' implements a hook trailblaze does not have"):
        get_plugin_manager(["typo_plugin"], autoload=False)


def test_a_plugin_module_that_does_not_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match='error importing plugin "no_such_module": ModuleNotFoundError'):
        get_plugin_manager(["no_such_module"], autoload=False)


def test_trace_prints_every_hook_call(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TRAILBLAZE_TRACE_PLUGINS", "1")
    plugins = get_plugin_manager(autoload=False)
    plugins.hook.trailblaze_step_start(step=None, trail=None, session=None)
    err = capsys.readouterr().err
    assert "[trailblaze trace] trailblaze_step_start(step, trail, session) -> []" in err
    with pytest.raises(AttributeError):
        plugins.hook.trailblaze_check_run(run=None)
    err = capsys.readouterr().err
    assert "[trailblaze trace] trailblaze_check_run(run) -> [web_playwright, mcp_toolsets]" in err
    assert "[trailblaze trace] trailblaze_check_run raised AttributeError" in err


def test_the_same_tool_from_two_plugins_names_both(tmp_path: Path) -> None:
    project = make_project(tmp_path)

    class Copycat:
        @trailblaze.hookimpl
        def trailblaze_register_tools(self, register: Any) -> None:
            from tests.support.null_driver import null_tap

            register(null_tap)

    project.plugins.pm.register(Copycat(), "copycat")
    with pytest.raises(
        UsageError, match=r"'null_tap' is registered twice: by tests\.support\.null_driver and by copycat"
    ):
        _ = project.tools


def test_the_same_driver_name_from_two_plugins_names_both(tmp_path: Path) -> None:
    project = make_project(tmp_path)

    class Other:
        @trailblaze.hookimpl
        def trailblaze_register_drivers(self, register: Any) -> None:
            from tests.support.null_driver import NullDriver

            class Clash(NullDriver):
                key = "clash"
                aliases = ("web",)

            register(Clash)

    project.plugins.pm.register(Other(), "other")
    with pytest.raises(UsageError, match=r"driver 'web' is registered twice: by web_playwright \(PlaywrightDriver\)"):
        _ = project.drivers


def test_a_badly_declared_tool_is_reported_with_its_plugin(tmp_path: Path) -> None:
    project = make_project(tmp_path)

    @trailblaze.tool()
    def sloppy(*args: object) -> None: ...

    class Sloppy:
        @trailblaze.hookimpl
        def trailblaze_register_tools(self, register: Any) -> None:
            register(sloppy)

    project.plugins.pm.register(Sloppy(), "sloppy-plugin")
    with pytest.raises(UsageError, match=r"plugin 'sloppy-plugin' registered a bad tool: tool 'sloppy': \*args"):
        _ = project.tools
