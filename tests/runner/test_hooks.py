"""Every hook, called when its spec says, with what it says — in a real run on the null driver."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pluggy
import pytest

import trailblaze
from tests.support.project import make_project, run, write
from trailblaze.trail.model import Step, Trail

TRAIL = """
config: {id: hooks/demo}
trail:
  - step: Sign in
    recording:
      test:
        - null_signIn: {user: ada}
  - verify: Home is there
    recording:
      test:
        - null_see: {text: Home}
"""


class Recorder:
    """A plugin that records every hook call."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    @trailblaze.hookimpl
    def trailblaze_configure(self, config: Any) -> None:
        self.events.append(("configure", config.path.name))

    @trailblaze.hookimpl
    def trailblaze_unconfigure(self, config: Any) -> None:
        self.events.append(("unconfigure", config.path.name))

    @trailblaze.hookimpl
    def trailblaze_run_start(self, run: Any) -> None:
        self.events.append(("run_start", [t.id for t in run.trails]))

    @trailblaze.hookimpl
    def trailblaze_run_finish(self, run: Any, result: Any) -> None:
        self.events.append(("run_finish", result.exit_code))

    @trailblaze.hookimpl
    def trailblaze_session_setup(self, session: Any) -> Any:
        async def setup() -> None:
            session.state["recorder"] = "ready"
            self.events.append(("session_setup", session.info.id))

        return setup()

    @trailblaze.hookimpl
    def trailblaze_session_start(self, session: Any) -> None:
        self.events.append(("session_start", session.state.get("recorder")))

    @trailblaze.hookimpl
    def trailblaze_session_finish(self, session: Any) -> None:
        self.events.append(("session_finish", session.info.id))

    @trailblaze.hookimpl
    def trailblaze_trail_start(self, trail: Trail, session: Any) -> None:
        self.events.append(("trail_start", trail.id))

    @trailblaze.hookimpl
    def trailblaze_trail_finish(self, trail: Trail, result: Any, session: Any) -> None:
        self.events.append(("trail_finish", result.status))

    @trailblaze.hookimpl
    def trailblaze_step_start(self, step: Step, trail: Trail, session: Any) -> None:
        self.events.append(("step_start", step.index))

    @trailblaze.hookimpl
    def trailblaze_step_finish(self, step: Step, result: Any, session: Any) -> None:
        self.events.append(("step_finish", (step.index, result.status, [t.name for t in result.tools])))

    @trailblaze.hookimpl(wrapper=True)
    def trailblaze_tool_call(self, call: Any, ctx: Any) -> Any:
        invocation = yield

        async def observed() -> Any:
            self.events.append(("tool_call", (call.name, ctx.delegating)))
            return await invocation

        return observed()

    @trailblaze.hookimpl
    def trailblaze_tool_report(self, report: Any, session: Any) -> None:
        self.events.append(("tool_report", (report.name, report.delegated_from)))


def test_lifecycle_hooks_fire_in_order(tmp_path: Path) -> None:
    write(tmp_path, "trails/demo.trail.yaml", TRAIL)
    project = make_project(tmp_path, "driver: null-test\n")
    recorder = Recorder()
    project.plugins.pm.register(recorder, "recorder")
    result = run(project)
    project.unconfigure()
    assert result.exit_code == 0
    assert recorder.events == [
        ("configure", "trailblaze.yaml"),  # historic: replayed for a plugin registered later
        ("run_start", ["hooks/demo"]),
        ("session_setup", "null-1"),
        ("session_start", "ready"),
        ("trail_start", "hooks/demo"),
        ("step_start", 0),
        ("tool_call", ("null_signIn", True)),
        ("tool_call", ("null_tap", False)),
        ("tool_report", ("null_tap", ["null_signIn"])),
        ("tool_call", ("null_type", False)),
        ("tool_report", ("null_type", ["null_signIn"])),
        ("step_finish", (0, "passed", ["null_tap", "null_type"])),
        ("step_start", 1),
        ("tool_call", ("null_see", False)),
        ("tool_report", ("null_see", [])),
        ("step_finish", (1, "passed", ["null_see"])),
        ("trail_finish", "passed"),
        ("session_finish", "null-1"),
        ("run_finish", 0),
        ("unconfigure", "trailblaze.yaml"),
    ]


def test_a_tool_call_hook_can_take_over_a_call(tmp_path: Path) -> None:
    write(tmp_path, "trails/demo.trail.yaml", TRAIL)
    project = make_project(tmp_path, "driver: null-test\n")

    class Replacer:
        @trailblaze.hookimpl(tryfirst=True)
        def trailblaze_tool_call(self, call: Any, ctx: Any) -> Any:
            if call.name != "null_see":
                return None

            async def refuse() -> Any:
                raise trailblaze.ToolFailure("checks are disabled here")

            return refuse()

    project.plugins.pm.register(Replacer(), "replacer")
    result = run(project)
    assert result.trails[0].status == "failed"
    assert "checks are disabled here" in (result.trails[0].error or "")


def test_session_setup_failures_end_the_sessions_trails_with_exit_2(tmp_path: Path) -> None:
    write(tmp_path, "trails/demo.trail.yaml", TRAIL)
    project = make_project(tmp_path, "driver: null-test\n")

    class Broken:
        @trailblaze.hookimpl
        def trailblaze_session_setup(self, session: Any) -> Any:
            async def fail() -> None:
                raise ConnectionError("server down")

            return fail()

    project.plugins.pm.register(Broken(), "broken")
    result = run(project)
    assert [t.status for t in result.trails] == ["error"]
    assert result.trails[0].error == "session setup failed: ConnectionError: server down"
    assert result.exit_code == 2


def test_collect_file_lets_a_plugin_read_other_files(tmp_path: Path) -> None:
    write(tmp_path, "trails/x.trail.yaml", "trail:\n  - step: not read by yaml\n")
    project = make_project(tmp_path, "driver: null-test\n")

    class Collector:
        @trailblaze.hookimpl(tryfirst=True)
        def trailblaze_collect_file(self, path: Path, root: Path, arg_values: Any, require_args: bool) -> Any:
            from trailblaze.errors import Location
            from trailblaze.tools.model import ToolCall
            from trailblaze.trail.model import Trail, TrailConfig

            calls = {"test": [ToolCall("null_tap", {"text": "Home"})]}
            step = Step(0, "step", "generated", calls, Location(str(path)))
            return Trail(path, "generated/" + path.stem, TrailConfig(), [step])

    project.plugins.pm.register(Collector(), "collector")
    result = run(project)
    assert [(t.id, t.status) for t in result.trails] == [("generated/x.trail", "passed")]


def test_addhooks_lets_a_plugin_declare_its_own_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec_module = types.ModuleType("myhooks")
    marker = pluggy.HookspecMarker("trailblaze")

    @marker
    def myplugin_extra(value: int) -> int:  # type: ignore[empty-body]
        """An extra hook."""

    spec_module.myplugin_extra = myplugin_extra  # type: ignore[attr-defined]

    class Declares:
        @trailblaze.hookimpl
        def trailblaze_addhooks(self, pluginmanager: pluggy.PluginManager) -> None:
            pluginmanager.add_hookspecs(spec_module)

    class Implements:
        @trailblaze.hookimpl
        def myplugin_extra(self, value: int) -> int:
            return value * 2

    project = make_project(tmp_path)
    project.plugins.pm.register(Declares(), "declares")
    project.plugins.pm.register(Implements(), "implements")
    project.plugins.pm.check_pending()
    assert project.hook.myplugin_extra(value=21) == [42]


def test_registration_hooks_know_which_plugin_registered_what(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert project.tools.get("null_tap").source == "tests.support.null_driver"
    assert project.drivers.source("null-test") == "tests.support.null_driver"
    assert project.drivers.resolve("null").key == "null-test"


def test_register_commands_adds_cli_commands(cli: Any, tmp_path: Path) -> None:
    write(
        tmp_path,
        "hello_plugin.py",
        """
        import click
        import trailblaze

        @trailblaze.hookimpl
        def trailblaze_register_commands(cli):
            @cli.command()
            def hello():
                \"\"\"Say hello.\"\"\"
                click.echo("hello from a plugin")
        """,
    )
    result = cli("-p", "hello_plugin", "hello", env={"PYTHONPATH": str(tmp_path)})
    assert (result.returncode, result.stdout) == (0, "hello from a plugin\n"), result.output
    assert "hello" in cli("-p", "hello_plugin", "--help", env={"PYTHONPATH": str(tmp_path)}).stdout
