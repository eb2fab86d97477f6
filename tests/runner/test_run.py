"""Planning and lanes: devices, shards, workers, fail-fast, skips — on the in-process null driver."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.support import null_driver
from tests.support.project import make_project, run, write
from trailblaze.api.results import RunResult
from trailblaze.core.errors import ErrorList, UsageError


def trails(root: Path, count: int, *, fail: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    for i in range(count):
        text = "Nowhere" if i in fail else "Home"
        write(
            root,
            f"trails/t{i}.trail.yaml",
            f"config: {{id: t{i}}}\ntrail:\n  - step: tap\n    recording:\n"
            f"      test:\n        - null_tap: {{text: {text}}}\n",
        )


def devices_by_trail(result: RunResult) -> dict[str, list[str | None]]:
    table: dict[str, list[str | None]] = {}
    for trail in result.trails:
        table.setdefault(trail.id, []).append(trail.device)
    return table


@pytest.fixture(autouse=True)
def _clear() -> None:
    null_driver.ACTIONS.clear()


def test_one_device_by_default(tmp_path: Path) -> None:
    trails(tmp_path, 3)
    result = run(make_project(tmp_path, "driver: null-test\n"))
    assert devices_by_trail(result) == {"t0": ["null-1"], "t1": ["null-1"], "t2": ["null-1"]}
    assert result.exit_code == 0


def test_several_devices_run_every_trail_on_each(tmp_path: Path) -> None:
    trails(tmp_path, 2)
    result = run(make_project(tmp_path, "driver: null-test\n"), devices=["null-2", "null-3"])
    assert devices_by_trail(result) == {"t0": ["null-2", "null-3"], "t1": ["null-2", "null-3"]}
    assert Counter(d for d, _, _ in null_driver.ACTIONS) == {"null-2": 2, "null-3": 2}


def test_all_devices_and_shard_all(tmp_path: Path) -> None:
    trails(tmp_path, 2)
    project = make_project(tmp_path, "driver: null-test\n")
    assert devices_by_trail(run(project, all_devices=True))["t0"] == ["null-1", "null-2", "null-3"]
    assert devices_by_trail(run(project, shard_all=2))["t1"] == ["null-1", "null-2"]


def test_shard_split_runs_each_trail_once_over_the_devices(tmp_path: Path) -> None:
    trails(tmp_path, 6)
    result = run(make_project(tmp_path, "driver: null-test\n"), shard_split=3)
    table = devices_by_trail(result)
    assert sorted(table) == [f"t{i}" for i in range(6)]
    assert all(len(devices) == 1 for devices in table.values())
    assert {d for devices in table.values() for d in devices} == {"null-1", "null-2", "null-3"}


def test_too_few_devices_for_a_shard_is_a_usage_error(tmp_path: Path) -> None:
    trails(tmp_path, 1)
    result = run(make_project(tmp_path, "driver: null-test\n"), shard_split=5)
    assert result.exit_code == 3
    assert result.trails[0].error == "--shard-split 5 needs 5 devices for null-test; available: null-1, null-2, null-3"


def test_workers_open_several_sessions_on_one_device(tmp_path: Path) -> None:
    trails(tmp_path, 8)
    project = make_project(tmp_path, "driver: null-test\n")
    sessions: list[str] = []

    class Count:
        import trailblaze as _tb

        @_tb.hookimpl
        def trailblaze_session_start(self, session: object) -> None:
            sessions.append(session.id)  # type: ignore[attr-defined]

    project.plugins.pm.register(Count(), "count")
    result = run(project, workers=3)
    assert len(result.trails) == 8 and result.exit_code == 0
    assert len(sessions) == 3  # the null driver hosts up to 4 sessions per device


def test_a_device_that_cannot_open_leaves_its_work_to_the_others(tmp_path: Path) -> None:
    trails(tmp_path, 4)
    project = make_project(tmp_path, "driver: null-test\n")
    result = run(project, devices=["null-1", "gone"], shard_split=2)
    assert [t.status for t in result.trails] == ["passed"] * 4
    assert {t.device for t in result.trails} == {"null-1"}
    alone = run(project, devices=["gone"])
    assert {t.status for t in alone.trails} == {"error"}
    assert alone.trails[0].error == "null device 'gone' is not connected"
    assert alone.exit_code == 2


def test_fail_fast_stops_after_the_first_failure(tmp_path: Path) -> None:
    trails(tmp_path, 4, fail={1})
    project = make_project(tmp_path, "driver: null-test\n")
    assert [t.status for t in run(project).trails] == ["passed", "failed", "passed", "passed"]
    stopped = run(project, fail_fast=True)
    assert [t.status for t in stopped.trails] == ["passed", "failed", "skipped", "skipped"]
    assert {t.skip_reason for t in stopped.trails[2:]} == {"not run: -x stopped the run after a failure"}
    assert stopped.exit_code == 1


def test_skips_and_missing_recordings(tmp_path: Path) -> None:
    write(tmp_path, "trails/a.trail.yaml", "config: {devices: {android: android}}\ntrail: [{step: s}]\n")
    write(tmp_path, "trails/b.trail.yaml", "config: {skip: {test: flaky}}\ntrail: [{step: s}]\n")
    write(tmp_path, "trails/c.trail.yaml", "trail:\n  - step: Prompt only\n")
    project = make_project(tmp_path, "driver: null-test\n")
    with pytest.raises(ErrorList) as info:  # a step replay could not do stops the run before it starts
        run(project)
    (problem,) = info.value.errors
    assert str(problem).startswith(f"{tmp_path}/trails/c.trail.yaml:2:5: step 1 (Prompt only): no recording for test")
    assert "`trailblaze record" in str(problem) and "--step 1" in str(problem)
    assert info.value.exit_code == 3
    (tmp_path / "trails/c.trail.yaml").unlink()
    a, b = run(project).trails  # skipped trails need no recording for this device
    assert (a.status, a.skip_reason) == ("skipped", "trail is for android; this run uses test")
    assert (b.status, b.skip_reason) == ("skipped", "flaky")


def test_problems_stop_the_run_before_any_device_work(tmp_path: Path) -> None:
    write(tmp_path, "trails/a.trail.yaml", "trail:\n  - step: s\n    recording:\n      test: [{null_tapp: {}}]\n")
    write(tmp_path, "trails/b.trail.yaml", "trail:\n  - step: s\n    recording:\n      test: [{null_tap: {x: 1}}]\n")
    with pytest.raises(ErrorList) as info:
        run(make_project(tmp_path, "driver: null-test\n"))
    assert [str(e).split(": ", 1)[1] for e in info.value.errors] == [
        "unknown tool 'null_tapp' for driver null-test; did you mean 'null_tap' or 'null_type'?",
        "null_tap: x: unknown argument",
    ]
    assert null_driver.ACTIONS == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"shard_split": 2, "shard_all": 2}, "exclude each other"),
        ({"all_devices": True, "devices": ["a"]}, "exclude each other"),
        (
            {"driver": "nope"},
            r"^unknown driver 'nope' \(known drivers: android-uiautomator2, appium, ios-wda, null-test, "
            r"playwright-native, or upstream's names for them\)$",
        ),
    ],
)
def test_option_mistakes(tmp_path: Path, options: dict[str, object], message: str) -> None:
    trails(tmp_path, 1)
    with pytest.raises((UsageError, ErrorList), match=message):
        run(make_project(tmp_path), **options)


def test_retries_repeat_the_whole_step(tmp_path: Path) -> None:
    write(
        tmp_path,
        "trails/r.trail.yaml",
        "trail:\n  - step: s\n    maxRetries: 2\n    recording:\n      test:\n"
        "        - null_type: {text: Later}\n        - null_see: {text: Later}\n        - null_tap: {text: Nope}\n",
    )
    result = run(make_project(tmp_path, "driver: null-test\n"))
    step = result.trails[0].steps[0]
    assert (step.status, step.attempts) == ("failed", 3)
    assert [t.name for t in step.tools] == ["null_type", "null_see", "null_tap"]


def test_an_interrupted_run_reports_the_trail_that_was_running(tmp_path: Path) -> None:
    import asyncio

    import trailblaze
    from trailblaze.api.session import RunOptions
    from trailblaze.runner.run import execute, prepare

    trails(tmp_path, 3)
    project = make_project(tmp_path, "driver: null-test\n")

    main: list[asyncio.Task[object]] = []

    class Interrupt:
        @trailblaze.hookimpl
        def trailblaze_trail_start(self, trail: object, session: object) -> None:
            if trail.id == "t1":  # type: ignore[attr-defined]
                main[0].cancel()  # what asyncio.run does on SIGINT

    async def run_it() -> object:
        main.append(asyncio.current_task())  # type: ignore[arg-type]
        return await execute(prepare(project, RunOptions()))

    project.plugins.pm.register(Interrupt(), "interrupt")
    result = asyncio.run(run_it())
    assert result.interrupted and result.exit_code == 130
    assert [(t.id, t.status, t.error) for t in result.trails] == [
        ("t0", "passed", None),
        ("t1", "error", "interrupted during step 1 (tap)"),  # the step in flight, named
    ]
    assert [(s.status, s.error) for s in result.trails[1].steps] == [("error", "interrupted")]


def test_sessions_follow_each_trails_app_target(tmp_path: Path) -> None:
    import trailblaze

    for name, target in (("a1", "shop"), ("b1", "bank"), ("a2", "shop"), ("n1", None)):
        head = f"config: {{id: {name}, target: {target}}}\n" if target else f"config: {{id: {name}}}\n"
        write(tmp_path, f"trails/{name}.trail.yaml", head + "trail:\n  - step: s\n    recording:\n      test: []\n")
    project = make_project(
        tmp_path, "driver: null-test\ntarget: bank\ntargets:\n  shop: {display_name: Shop}\n  bank: {}\n"
    )
    opened: list[tuple[str | None, list[str]]] = []

    class Sessions:
        @trailblaze.hookimpl
        def trailblaze_session_start(self, session: object) -> None:
            opened.append((session.target, []))  # type: ignore[attr-defined]

        @trailblaze.hookimpl
        def trailblaze_trail_start(self, trail: object, session: object) -> None:
            assert session.target == opened[-1][0]  # type: ignore[attr-defined]
            opened[-1][1].append(trail.id)  # type: ignore[attr-defined]

    project.plugins.pm.register(Sessions(), "sessions")
    assert run(project).exit_code == 0
    assert opened == [("shop", ["a1", "a2"]), ("bank", ["b1", "n1"])]  # trails without one: trailblaze.yaml's
    opened.clear()
    run(project, target="shop")
    assert opened == [("shop", ["a1", "a2", "n1"]), ("bank", ["b1"])]
    with pytest.raises(UsageError, match=r"unknown target 'nope' \(targets in trailblaze.yaml: bank, shop\)"):
        run(project, target="nope")


def test_without_a_driver_a_trail_runs_on_the_first_declared_driver_that_exists(tmp_path: Path) -> None:
    """An upstream driver this project lacks (COMPOSE) is passed over for one it has."""
    write(
        tmp_path,
        "trails/multi.trail.yaml",
        "config:\n  devices: {desktop: COMPOSE, test: null-test}\n"
        "trail:\n  - step: s\n    recording:\n      test: []\n",
    )
    result = run(make_project(tmp_path))
    assert [(t.driver, t.status) for t in result.trails] == [("null-test", "passed")]


def test_run_trail_with_a_broken_shared_trail_is_a_trail_file_error(tmp_path: Path) -> None:
    write(tmp_path, "trails/shared/setup.yaml", "trail: [{step: s, bogus: 1}]\n")
    write(
        tmp_path,
        "trails/uses.trail.yaml",
        "trail:\n  - step: s\n    recording:\n      test:\n        - runTrail: {path: shared/setup.yaml}\n",
    )
    result = run(make_project(tmp_path, "driver: null-test\n"))
    trail = result.trails[0]
    assert (trail.status, trail.exit_code) == ("error", 3)
    assert "runTrail shared/setup.yaml:" in (trail.error or "") and "unknown step key 'bogus'" in (trail.error or "")


def test_a_broken_session_is_replaced_before_the_next_trail(tmp_path: Path) -> None:
    import trailblaze

    trails(tmp_path, 3)
    project = make_project(tmp_path, "driver: null-test\n")
    sessions: list[str] = []

    class Breaker:
        @trailblaze.hookimpl
        def trailblaze_trail_start(self, trail: object, session: object) -> None:
            sessions.append(session.id)  # type: ignore[attr-defined]
            if trail.id == "t0":  # type: ignore[attr-defined]
                session.mark_broken("the server died")  # type: ignore[attr-defined]

    project.plugins.pm.register(Breaker(), "breaker")
    result = run(project)
    assert [t.status for t in result.trails] == ["passed"] * 3
    assert sessions[0] != sessions[1] == sessions[2]
