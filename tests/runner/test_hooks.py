"""Every hook, called when its spec says, with what it says — in a real run on the null driver."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pluggy
import pytest

import trailblaze
from tests.support.project import make_project, run, write
from trailblaze.core.errors import ErrorList
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
            from trailblaze.core.errors import Location
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


EARLY_PLUGIN = """
from pathlib import Path

import trailblaze
from trailblaze.core import aio


@trailblaze.hookimpl
def trailblaze_start_early(driver):
    Path("started").write_text(repr(driver))

    async def stop():
        Path("stopped").write_text("unused")

    async def begin():  # on the loop the run will use
        aio.started_early("early-plugin", stop)

    aio.early_runner().run(begin())
"""


@pytest.mark.parametrize(
    ("args", "driver"), [(["run"], "None"), (["run", "--driver", "android"], "'android'"), (["run", "--list"], None)]
)
def test_start_early_is_asked_as_a_run_starts_and_what_it_started_is_stopped_unused(
    cli: Any, tmp_path: Path, args: list[str], driver: str | None
) -> None:
    """Called before trailblaze.yaml is read (its problem is reported after), with ``--driver``;
    not for ``--list``. What nobody took is stopped as the command ends."""
    write(tmp_path, "early_plugin.py", EARLY_PLUGIN)
    write(tmp_path, "trailblaze.yaml", "driver: [not, a, name]\n")
    result = cli("-p", "early_plugin", *args, env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 3, result.output
    assert "trailblaze.yaml" in result.stderr
    if driver is None:
        assert not (tmp_path / "started").exists()
        return
    assert (tmp_path / "started").read_text() == driver
    assert (tmp_path / "stopped").read_text() == "unused"


WORKSPACE_TRAIL = """
trail:
  - step: Greet
    recording:
      test:
        - shop_greet: {text: Home}
"""


class WorkspaceTools:
    """Adds a tool to every upstream workspace: ``shop_greet``, the null driver's tap by
    another name; a workspace holding ``broken`` gets a problem at that file instead."""

    def __init__(self) -> None:
        self.asked: list[Path] = []

    @trailblaze.hookimpl
    def trailblaze_workspace_tools(self, workspace: Any, registry: Any, project: Any) -> list[Any]:
        import dataclasses

        from trailblaze.core.errors import Location, UsageError

        self.asked.append(workspace.config_file)
        broken = workspace.config_file.parent / "broken"
        if broken.exists():
            return [UsageError("this workspace cannot be served", Location(str(broken), 1))]
        tap = project.tools.get("null_tap")
        registry.add(dataclasses.replace(tap, name="shop_greet", source="plugin:workspace_tools"))
        return []


def test_workspace_tools_adds_a_workspaces_tools_once_and_its_problems_stop_the_run(tmp_path: Path) -> None:
    write(tmp_path, "trails/config/trailblaze.yaml", "# the anchor, as upstream's\n")
    write(tmp_path, "trails/shop/a.trail.yaml", WORKSPACE_TRAIL)
    write(tmp_path, "trails/shop/b.trail.yaml", WORKSPACE_TRAIL)
    project = make_project(tmp_path, "driver: null-test\n")
    plugin = WorkspaceTools()
    project.plugins.pm.register(plugin, "workspace_tools")
    result = run(project)
    assert result.exit_code == 0
    assert [t.status for t in result.trails] == ["passed", "passed"]
    assert len(plugin.asked) == 1  # once per workspace, not per trail or per session
    assert "shop_greet" not in project.tools  # the workspace's, not every trail's

    write(tmp_path, "trails/config/broken", "")
    project = make_project(tmp_path, "driver: null-test\n")
    project.plugins.pm.register(WorkspaceTools(), "workspace_tools")
    with pytest.raises(ErrorList) as caught:
        run(project)
    assert str(caught.value.errors[0]).endswith("broken:1: this workspace cannot be served")


def test_collect_file_is_offered_every_file_and_told_which_were_named(tmp_path: Path) -> None:
    write(tmp_path, "trails/flows/home.flow.txt", "Home\n")
    write(tmp_path, "trails/notes.md", "not a trail\n")
    write(tmp_path, "trails/demo.trail.yaml", TRAIL)
    write(tmp_path, "elsewhere/named.flow.txt", "Sign in\n")
    project = make_project(tmp_path, "driver: null-test\n")
    offered: list[tuple[str, bool]] = []

    class FlowFiles:
        """Reads ``*.flow.txt``: one null_tap per line (a format trailblaze knows nothing of)."""

        @trailblaze.hookimpl
        def trailblaze_collect_file(self, path: Path, given: bool) -> Any:
            from trailblaze.core.errors import Location
            from trailblaze.tools.model import ToolCall
            from trailblaze.trail.model import TrailConfig

            offered.append((path.name, given))
            if not path.name.endswith(".flow.txt"):
                return None
            calls = [ToolCall("null_tap", {"text": line}) for line in path.read_text().splitlines()]
            step = Step(0, "step", "tap through", {"test": calls}, Location(str(path)))
            return Trail(path, "flow/" + path.name.removesuffix(".flow.txt"), TrailConfig(), [step])

    project.plugins.pm.register(FlowFiles(), "flow_files")
    result = run(project, paths=[tmp_path / "trails", tmp_path / "elsewhere" / "named.flow.txt"])
    assert sorted(offered) == [
        ("demo.trail.yaml", False),
        ("home.flow.txt", False),
        ("named.flow.txt", True),
        ("notes.md", False),
    ]
    assert sorted((t.id, t.status) for t in result.trails) == [
        ("flow/home", "passed"),
        ("flow/named", "passed"),
        ("hooks/demo", "passed"),
    ]


def test_a_named_file_nobody_reads_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "notes.md", "not a trail\n")
    project = make_project(tmp_path, "driver: null-test\n")
    with pytest.raises(ErrorList, match=r"no plugin can read .*notes\.md"):
        run(project, paths=[tmp_path / "notes.md"])


class RefusesOnSundays:
    """A plugin check before any device opens (``trailblaze_check_run``)."""

    def __init__(self) -> None:
        self.planned: list[tuple[str, str]] = []

    @trailblaze.hookimpl
    def trailblaze_check_run(self, run: trailblaze.Run) -> list[Any]:
        from trailblaze.core.errors import UsageError

        self.planned = [(p.trail.id, p.driver_key) for p in run.planned]
        return [UsageError("no trails on Sundays", p.trail.config_location()) for p in run.planned]


def test_check_run_problems_stop_run_and_validate_before_a_device_opens(tmp_path: Path) -> None:
    from tests.support.null_driver import ACTIONS
    from trailblaze.api.session import RunOptions
    from trailblaze.runner.validate import validate

    write(tmp_path, "trails/demo.trail.yaml", TRAIL)
    project = make_project(tmp_path, "driver: null-test\n")
    plugin = RefusesOnSundays()
    project.plugins.pm.register(plugin, "sundays")
    ACTIONS.clear()
    with pytest.raises(ErrorList) as raised:
        run(project)
    assert str(raised.value).endswith("trails/demo.trail.yaml:1:9: no trails on Sundays")
    assert plugin.planned == [("hooks/demo", "null-test")]
    assert ACTIONS == []  # nothing was touched
    with pytest.raises(ErrorList, match="no trails on Sundays"):
        validate(project, RunOptions())


@trailblaze.tool(name="late_see", platforms=["test"], verification=True)
async def late_see(ctx: trailblaze.ToolContext, text: str) -> None:
    """Check that a text is on the null screen (a tool a session gets late)."""
    await ctx.commands.assert_visible(text=text, timeout_ms=0)


def test_adds_session_tools_defers_unknown_tool_names_to_the_session(tmp_path: Path) -> None:
    write(tmp_path, "trails/demo.trail.yaml", TRAIL.replace("null_see", "late_see"))
    project = make_project(tmp_path, "driver: null-test\n")
    with pytest.raises(ErrorList, match=r"demo.trail.yaml:10:11: unknown tool 'late_see'"):
        run(project)

    class LateTools:
        """Tools that exist only once a session is open, as an MCP server's do."""

        def __init__(self, offer: bool) -> None:
            self.offer = offer

        @trailblaze.hookimpl
        def trailblaze_adds_session_tools(self, config: Any) -> bool:
            return True

        @trailblaze.hookimpl
        def trailblaze_session_setup(self, session: Any) -> None:
            if self.offer:
                session.registry.add(late_see, "late")

    late = make_project(tmp_path, "driver: null-test\n")
    late.plugins.pm.register(LateTools(offer=False), "late")
    result = run(late)  # planned without complaint; the session says what is missing
    assert result.trails[0].status == "error" and "unknown tool 'late_see'" in (result.trails[0].error or "")
    offered = make_project(tmp_path, "driver: null-test\n")
    offered.plugins.pm.register(LateTools(offer=True), "late")
    assert [t.status for t in run(offered).trails] == ["passed"]


def test_pause_live_is_called_before_printing_for_a_person(tmp_path: Path) -> None:
    from trailblaze.api.session import RunOptions
    from trailblaze.runner.record import RecordOptions, record_trails

    write(tmp_path, "trails/demo.trail.yaml", TRAIL)
    project = make_project(tmp_path, "driver: null-test\n")
    paused: list[str] = []

    class Spinner:
        @trailblaze.hookimpl
        def trailblaze_pause_live(self) -> None:
            paused.append("paused")

    project.plugins.pm.register(Spinner(), "spinner")
    notes: list[str] = []
    options = RecordOptions(agent="interactive", echo=lambda text, err=False: notes.append(text))
    result = record_trails(project, RunOptions(), options)
    assert result.exit_code == 0
    assert notes == [
        "note: hooks/demo: nothing to record: every step has a recording that works (--rerecord records them again)"
    ]
    assert paused == ["paused"]


class OnlyTheFirst:
    """A plugin that deselects planned trails (``trailblaze_modify_plan``)."""

    @trailblaze.hookimpl
    def trailblaze_modify_plan(self, run: trailblaze.Run) -> None:
        del run.planned[1:]


def test_modify_plan_deselects_for_run_but_not_for_validate(tmp_path: Path) -> None:
    import asyncio

    from trailblaze.api.session import RunOptions
    from trailblaze.runner.run import execute, prepare

    write(tmp_path, "trails/a.trail.yaml", TRAIL.replace("hooks/demo", "hooks/a"))
    write(tmp_path, "trails/b.trail.yaml", TRAIL.replace("hooks/demo", "hooks/b"))
    project = make_project(tmp_path, "driver: null-test\n")
    project.plugins.pm.register(OnlyTheFirst(), "only-the-first")
    result = asyncio.run(execute(prepare(project, RunOptions(), select=True)))
    assert [t.id for t in result.trails] == ["hooks/a"]
    assert len(prepare(project, RunOptions()).planned) == 2


def test_a_plugins_project_command_takes_the_options_plugins_declare_for_it(cli: Any, tmp_path: Path) -> None:
    write(
        tmp_path,
        "count_plugin.py",
        """
        import click
        import trailblaze
        from trailblaze.cli import current_project, project_command

        @project_command("count-trails")
        def count_trails(plugin_args, config, **options):
            \"\"\"Count the trails under the trails folder.\"\"\"
            project = current_project(options)
            found = sorted(project.config.trails_dir.rglob("*.trail.yaml"))
            click.echo(f"{project.config.command}: {len(found)} {project.config.getoption('suffix')}")
            return 0

        @trailblaze.hookimpl
        def trailblaze_addoption(parser):
            parser.getgroup("counting").addoption("--suffix", default="trails", commands=("count-trails",))

        @trailblaze.hookimpl
        def trailblaze_register_commands(cli):
            cli.add_command(count_trails)
        """,
    )
    write(tmp_path, "trails/a.trail.yaml", TRAIL)
    env = {"PYTHONPATH": str(tmp_path)}
    # -p after the command's name counts: the plugin that adds the command is loaded by it
    result = cli("count-trails", "-p", "count_plugin", "--suffix", "found", env=env)
    assert (result.returncode, result.stdout) == (0, "count-trails: 1 found\n"), result.output
    assert "--suffix TEXT" in cli("-p", "count_plugin", "count-trails", "--help", env=env).stdout
