"""A pytest plugin: trail files as pytest items, so teams that scale with pytest (pytest-xdist's
``-n``, ``-k``, ``--lf``, ``--junitxml``, pytest-rerunfailures) run trails the same way.

Installed as the ``pytest11`` entry point ``trailblaze`` but **off** unless asked for with
``-p trailblaze`` or ``--trailblaze``: loading it declares options and nothing else (no
Playwright, no project), so unrelated pytest runs are untouched.

Each ``*.trail.yaml``/``trail.yaml`` file (and each Maestro flow Maestro's workspace rules run)
is collected as one item per trail × device, checked as ``trailblaze run`` checks it (a bad
file is a collection error naming file and line). Each
pytest process (each xdist worker) has its own Trailblaze run: one driver and one device
session per (driver, device, target), reused by the items it runs — a browser starts once per
worker, every trail gets a fresh context. A trail's results document (README, "Results
JSON") is on the report as ``report.trailblaze`` and in ``user_properties`` (so
``--junitxml`` carries it); its error is the failure's text, without a Python traceback.

What a worker can start before its first item starts then (docs/performance.md, "Against the
peers"): as the first trail file is collected, plugins start what the items will need
(``trailblaze_start_early``, as ``trailblaze run`` asks them: the web driver spawns Playwright's
Node.js driver, which boots while the trails are planned); the first item's session opens once
the worker has collected, when its driver's device hosts several sessions (a browser: under
pytest-xdist every worker collects every item, and a phone is not to be taken before its item
runs) — under pytest-xdist, after the worker has sent its collection and while the controller
waits for the other workers'.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trailblaze.api.results import TrailResult
    from trailblaze.api.session import PlannedTrail, RunOptions, Session
    from trailblaze.pluginmanager import Plugins
    from trailblaze.runner.project import Project
    from trailblaze.runner.run import Executor

_STATE = pytest.StashKey["_TrailblazeRun"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("trailblaze", "Trailblaze trails as pytest items (-p trailblaze or --trailblaze)")
    group.addoption("--trailblaze", action="store_true", help="Collect *.trail.yaml files and replay them.")
    group.addoption("--trailblaze-config", metavar="FILE", help="trailblaze.yaml to use (default: searched for).")
    group.addoption("--trailblaze-driver", metavar="KEY", help="Driver for every trail (as run --driver).")
    group.addoption(
        "--trailblaze-device", action="append", default=[], metavar="ID", help="Device; repeat for several."
    )
    group.addoption("--trailblaze-base-url", metavar="URL", help="Base URL for '/path' navigation (as --base-url).")
    group.addoption("--trailblaze-headed", action="store_true", help="Show the browser window.")
    group.addoption("--trailblaze-connect", metavar="WS_URL", help="Use a Playwright browser server (as --connect).")


def _active(config: pytest.Config) -> bool:
    plugins = getattr(config.known_args_namespace, "plugins", None) or []
    return bool(config.getoption("trailblaze", False)) or "trailblaze" in plugins


def pytest_configure(config: pytest.Config) -> None:
    if _active(config):
        config.stash[_STATE] = _TrailblazeRun(config)
        config.addinivalue_line("markers", "trailblaze: a trail replayed by Trailblaze")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        state.close()


@pytest.hookimpl(trylast=True)  # after pytest-xdist's worker has sent the controller its collection
def pytest_collection_finish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is not None and not session.config.option.collectonly:
        state.open_first([item for item in session.items if isinstance(item, TrailItem)])


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if _STATE not in parent.config.stash:
        return None
    if _is_trail_name(file_path.name) or _is_maestro_flow(file_path, parent.config):
        file: TrailFile = TrailFile.from_parent(parent, path=file_path)
        return file
    return None


def _is_trail_name(name: str) -> bool:
    return name.endswith(".trail.yaml") or name == "trail.yaml"


def _is_maestro_flow(path: Path, config: pytest.Config) -> bool:
    """A Maestro flow that Maestro's workspace rules run (not a sub-flow only ``runFlow`` runs),
    searched from the rootdir as ``trailblaze run`` searches a folder it is given."""
    if not path.name.endswith((".yaml", ".yml")) or path.name.endswith(".trail.yaml"):
        return False
    from trailblaze.core.errors import TrailblazeError
    from trailblaze.drivers.maestro.flow import load_flow, looks_like_flow
    from trailblaze.drivers.maestro.workspace import CONFIG_NAMES, flow_workspace_for

    if path.name in CONFIG_NAMES or not looks_like_flow(path):
        return False
    workspace = flow_workspace_for(path, config.rootpath)
    if not workspace.takes(path):
        return False
    try:
        return workspace.wants(load_flow(path).tags)  # its includeTags/excludeTags
    except TrailblazeError:
        return True  # collecting it says what is wrong


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A FIFO, a device or a broken link named like a trail is a collection error naming it, as
    ``trailblaze validate`` reports it: pytest's folders pass over what is neither a file nor a
    folder, so such entries are added here (their :class:`TrailFile` refuses them by name)."""
    report = yield
    if _STATE in collector.config.stash and isinstance(collector, pytest.Directory) and report.outcome == "passed":
        for path in _unreadable_trail_entries(collector.path):
            if not collector.ihook.pytest_ignore_collect(collection_path=path, config=collector.config):
                report.result.append(TrailFile.from_parent(collector, path=path))
    return report


def _unreadable_trail_entries(folder: Path) -> list[Path]:
    import os

    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(Path(e.path) for e in entries if _is_trail_name(e.name) and not e.is_file() and not e.is_dir())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if isinstance(item, TrailItem):
        item.last = nextitem is None  # this worker's last item: nothing is opened for a next one


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    result = getattr(item, "trailblaze_result", None)
    if call.when == "call" and result is not None:
        report.trailblaze = result  # type: ignore[attr-defined]
    return report


class TrailFailed(Exception):
    """A trail that did not pass; the message is what ``trailblaze run`` would print."""


class TrailFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from trailblaze.core.errors import TrailblazeError

        state = self.config.stash[_STATE]
        try:
            planned = state.plan(self.path)
        except TrailblazeError as exc:
            raise self.CollectError(_shown(str(exc))) from None
        devices: list[str | None] = [*state.options.devices] or [None]
        for one in planned:
            for device in devices:
                name = _name(one.trail.id.rsplit("/", 1)[-1] + (f"[{device}]" if len(devices) > 1 else ""))
                item: TrailItem = TrailItem.from_parent(self, name=name, planned=one, device=device)
                item.add_marker("trailblaze")
                item.extra_keyword_matches.update(str(tag) for tag in one.trail.config.tags)  # -k smoke
                yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, self.CollectError):
            return str(excinfo.value.args[0])
        return str(super().repr_failure(excinfo))


class TrailItem(pytest.Item):
    def __init__(self, *, planned: PlannedTrail, device: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.planned = planned
        self.device = device
        self.trailblaze_result: dict[str, Any] | None = None
        #: no item follows this one in this process (set as it starts)
        self.last = False

    def runtest(self) -> None:
        state = self.config.stash[_STATE]
        if self.planned.skip_reason is not None:
            pytest.skip(self.planned.skip_reason)
        # pytest-rerunfailures counts the runs of an item: its first rerun is the trail's first
        # retry (traced by default, its evidence in <trail>-retry1), as with `run --retries`
        retry = getattr(self, "execution_count", 1) - 1
        planned = dataclasses.replace(self.planned, attempt=retry) if retry > 0 else self.planned
        result = state.run(planned, self.device, last=self.last)
        document = result.to_dict()
        self.trailblaze_result = document
        self.user_properties.append(("trailblaze", json.dumps(document, ensure_ascii=False)))
        evidence = _evidence(result, state.options.artifacts_dir)
        self.user_properties.extend(("trailblaze_evidence", str(path)) for path in evidence)
        self.add_report_section("call", "trailblaze", _steps(result, evidence))
        if result.status not in ("passed", "healed"):
            raise TrailFailed(_shown(f"{result.status}: {result.error or result.status}"))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        from trailblaze.core.errors import TrailblazeError

        if isinstance(excinfo.value, TrailFailed):
            return str(excinfo.value)
        if isinstance(excinfo.value, TrailblazeError):  # the browser server, device or config: trailblaze's words
            return _shown(f"error: {excinfo.value}")
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        where = f"trail {self.planned.trail.id}" + (f" on {self.device}" if self.device else "")
        return self.path, None, _name(where)


def _evidence(result: TrailResult, folder: Path | None) -> list[Path]:
    """The files of evidence the trail left (screenshots, hierarchies, console, trace), as paths
    a reader of the pytest report can open."""
    base = folder or Path()
    found = [*(a for step in result.steps for a in step.artifacts), *result.artifacts]
    return [(base / a.path).resolve() for a in found]


def _steps(result: TrailResult, evidence: list[Path]) -> str:
    from trailblaze.core.limits import one_line

    lines = [f"{one_line(result.title)} on {result.driver} ({one_line(result.device or '')}): {result.status}"]
    lines += [f"  {s.status.upper():<8}{s.kind} {s.index + 1}: {one_line(s.text)}" for s in result.steps]
    lines += [f"  evidence: {one_line(str(path))}" for path in evidence]
    return _shown("\n".join(lines))


def _shown(text: str) -> str:
    """``text`` as pytest prints it for us: control characters (NUL, ESC) and bidirectional
    controls escaped, and no line a CI runner would take for a command — as ``trailblaze run``'s
    terminal shows it."""
    from trailblaze.core.limits import inert_line, printable

    return "\n".join(inert_line(line) for line in printable(text).split("\n"))


def _name(text: str) -> str:
    """``text`` on one line, shown as :func:`_shown` shows text (an item's name, its heading)."""
    from trailblaze.core.limits import inert_line, one_line

    return inert_line(one_line(text))


class _TrailblazeRun:
    """This pytest process's Trailblaze run: the project, an event loop, and the sessions
    opened so far (one per driver, device and target), closed at the end."""

    def __init__(self, config: pytest.Config) -> None:
        from trailblaze.core import aio

        self.pytest_config = config
        # the loop what plugins start early runs on (aio's), taken by the driver that uses it
        self.loop = aio.early_runner().get_loop()
        self._project: Project | None = None
        self._executor: Executor | None = None
        self._sessions: dict[tuple[str, str | None, str | None, Any], Session] = {}
        #: why a session opened after collection (:meth:`open_first`) did not open, by its key:
        #: raised by the first item that needs it, as if it had opened it itself
        self._open_failed: dict[tuple[str, str | None, str | None, Any], Exception] = {}
        self._early_started = False
        self.options = self._run_options()

    def _run_options(self) -> RunOptions:
        from trailblaze.api.session import RunOptions

        option = self.pytest_config.getoption
        worker = getattr(self.pytest_config, "workerinput", {}).get("workerid", "main")
        artifacts = Path(str(self.pytest_config.rootpath)) / ".trailblaze" / "artifacts" / f"pytest-{worker}"
        return RunOptions(
            driver=option("trailblaze_driver"), devices=list(option("trailblaze_device")), artifacts_dir=artifacts
        )

    @functools.cached_property
    def plugins(self) -> Plugins:
        """The plugins, built before the project (trailblaze.yaml) so that they can start what
        the items need early."""
        from trailblaze.pluginmanager import get_plugin_manager
        from trailblaze.project.projectfile import plugins_listed_in

        path = self._config_path
        listed = plugins_listed_in(path) if path is not None and path.exists() else []
        return get_plugin_manager(["no:terminal"], listed)

    @functools.cached_property
    def _config_path(self) -> Path | None:
        """trailblaze.yaml: ``--trailblaze-config``, else the one found from here (looked for once)."""
        from trailblaze.project.projectfile import find_config

        given = self.pytest_config.getoption("trailblaze_config")
        return Path(given) if given else find_config()

    @property
    def project(self) -> Project:
        if self._project is None:
            from trailblaze.runner.project import load_project

            option = self.pytest_config.getoption
            values = {
                "driver": option("trailblaze_driver"),
                "base_url": option("trailblaze_base_url"),
                "headed": option("trailblaze_headed"),
                "connect": option("trailblaze_connect"),
            }
            self._project = load_project(
                self._config_path,
                options={k: v for k, v in values.items() if v},
                command="run",
                plugins=self.plugins,
            )
            self.options.arg_values = {k: str(v) for k, v in self._project.config.project.args.items()}
        return self._project

    def plan(self, path: Path) -> list[PlannedTrail]:
        from trailblaze.runner.plan import prepare

        self._start_driver_early()
        return prepare(self.project, dataclasses.replace(self.options, paths=[path])).planned

    def _start_driver_early(self) -> None:
        """Before the first trail is planned, plugins start what the items will need
        (``trailblaze_start_early``: the web driver spawns Playwright's driver, which boots while
        this process plans). Not for ``--collect-only``; anything wrong is for the first item
        that needs it to report, as without this."""
        if self._early_started:
            return
        self._early_started = True
        if self.pytest_config.option.collectonly:
            return
        from trailblaze.core import aio

        try:
            self.plugins.hook.trailblaze_start_early(driver=self.pytest_config.getoption("trailblaze_driver"))
        except Exception:
            aio.close()
            self.loop = aio.early_runner().get_loop()

    def open_first(self, items: list[TrailItem]) -> None:
        """After collection: stop the early driver when no collected trail is a web trail, and
        open the session the first web item will use (its browser launches now, not in the item;
        a phone's session waits for its item: under pytest-xdist every worker collects every
        item). A failure is kept for the item to raise."""
        from trailblaze.core import aio

        self.loop.run_until_complete(aio.keep_only({item.planned.driver_key for item in items}))
        drivers = self.project.drivers
        first = next(
            (
                i
                for i in items
                if i.planned.skip_reason is None and drivers.resolve(i.planned.driver_key).sessions_per_device > 1
            ),
            None,
        )
        if first is not None:
            key = self._key(first.planned, first.device)
            try:
                self.loop.run_until_complete(self._session(first.planned, first.device))
            except Exception as exc:  # the item raises it, in its words (repr_failure)
                self._open_failed[key] = exc

    def run(self, planned: PlannedTrail, device: str | None, *, last: bool = False) -> TrailResult:
        """Replay ``planned``; ``last``: no trail follows it in this process."""
        return self.loop.run_until_complete(self._run(planned, device, last))

    @staticmethod
    def _key(planned: PlannedTrail, device: str | None) -> tuple[str, str | None, str | None, Any]:
        return (planned.driver_key, device, planned.target, planned.workspace)

    async def _session(self, planned: PlannedTrail, device: str | None) -> Session:
        """The session ``planned`` runs on (one per driver, device and target), opened on first use."""
        from trailblaze.api.session import Run
        from trailblaze.runner.run import Executor

        if self._executor is None:
            run = Run(self.project, self.options, self.project.config)
            run.result.artifacts_dir = str(self.options.artifacts_dir)  # failure messages name evidence by it
            self._executor = Executor(run)
        key = self._key(planned, device)
        failed = self._open_failed.pop(key, None)
        if failed is not None:
            raise failed
        session = self._sessions.get(key)
        if session is None:
            session = await self._executor.open_session(planned.driver_key, device, planned.target, planned.workspace)
            self._sessions[key] = session
        return session

    async def _run(self, planned: PlannedTrail, device: str | None, last: bool) -> TrailResult:
        from trailblaze.drivers.web.device import WebDevice
        from trailblaze.runner.replay import TrailReplay

        session = await self._session(planned, device)
        if isinstance(session.device, WebDevice):  # it opens the next trail's context ahead unless told
            session.device.more_trails = not last
        result = await TrailReplay(session, dataclasses.replace(planned, device_id=session.info.id)).run()
        if session.broken is not None:
            del self._sessions[self._key(planned, device)]
            assert self._executor is not None
            await self._executor.close_session(session)
        return result

    def close(self) -> None:
        async def close_all() -> None:
            if self._executor is not None:
                for session in self._sessions.values():
                    await self._executor.close_session(session)
                await self._executor.close_drivers()

        from trailblaze.core import aio

        try:
            self.loop.run_until_complete(close_all())
        finally:
            aio.close()  # what was started early and not taken is stopped, and the loop closed
            if self._project is not None:
                self._project.unconfigure()
