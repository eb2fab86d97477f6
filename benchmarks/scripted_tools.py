"""A trailmap's scripted tool against a Python MCP tool doing the same (echoing its text).

* **first call, caches warm**: what a run pays for its first call of a scripted `.ts` tool when
  an earlier run of the same files filled both caches under the workspace's ``.trailblaze/`` —
  the description (``scripted-tools/<hash>.json``) and the JavaScript made of each file
  (``scripted-tools/js/``) — that is, every run after the first: node started, the SDK loaded,
  the MCP handshake, the call. Against what a run pays for its first call of a Python MCP tool:
  the server's connection at session start (forked from the prefork helper), then the call.
  Goal: scripted − Python ≤ 0.5 s.
* **first call, caches empty**: the same in a fresh workspace, where the run describes the files
  (the TypeScript compiler reading their types) and compiles them before the call: what the first
  run after an edit pays. Against the warm first call; reported, no goal.
* **later calls**: one call through Trailblaze's resolver once both servers run, goal ≤ 1.5×.

Each first call is timed in a fresh process, as a run meets it: from loading the workspace (its
scripted tools described, or read from the cache) to the call's answer, through the session's
setup (which connects the Python server); Trailblaze's own import of the ``mcp`` SDK is inside
the clock on both sides. The three are run in turn, in a different order every other round,
and their medians compared.

Run through ``benchmarks/run.py scripted`` (``make bench``), or alone:
``python benchmarks/scripted_tools.py``. It needs node (or bun) and the SDK built (``make sdk``).
"""

from __future__ import annotations

import asyncio
import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "benchmarks" / "mcp_echo_server.py"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most, at_most_more, in_turn  # noqa: E402 - beside this file, on sys.path

#: scripted − Python, for a run's first call of each, at most this (seconds)
FIRST_CALL_MORE_S = 0.5
PYTHON_TOOL, SCRIPTED_TOOL = "py_echo", "ts_echo"

ECHO_TS = """
import { trailblaze } from "@trailblaze/scripting";

export interface EchoArgs {
  /** What to answer. */
  text: string;
}

/** Return the text. */
export const ts_echo = trailblaze.tool<EchoArgs>(async ({ text }) => text);
"""

TRAIL = "trail:\n  - step: s\n    recording: {test: [wait: {}]}\n"


def _workspace(root: Path) -> None:
    from tests.support.project import write

    write(root, "trails/config/trailblaze.yaml", "targets: [bench]\n")
    write(
        root,
        "trails/config/trailmaps/bench/trailmap.yaml",
        "id: bench\ntarget:\n  display_name: Bench\n  tools: [ts_echo]\n",
    )
    write(root, "trails/config/trailmaps/bench/tools/ts_echo.ts", ECHO_TS)
    write(root, "trails/t.trail.yaml", TRAIL)


def _config(python_server: bool) -> str:
    servers = f"mcp_servers:\n  - {{script: {SERVER}, args: [py_]}}\n" if python_server else ""
    return f"driver: null-test\n{servers}"


def first_call(root: Path, tool: str) -> float:
    """Seconds from loading ``root``'s workspace to the answer of this process's first call of
    ``tool``: the Python tool's server is configured (and connected at the session's start) only
    when it is the tool called, so neither side pays for the other's."""
    from tests.support.null_driver import NullDriver
    from tests.support.project import make_project
    from trailblaze.api.driver import DriverOptions
    from trailblaze.api.session import Run, RunOptions, Session
    from trailblaze.runner.toolrunner import ToolRunner
    from trailblaze.tools.model import ToolCall
    from trailblaze.trail.loader import load_trail

    project = make_project(root, _config(python_server=tool == PYTHON_TOOL))
    trail_file = root / "trails" / "t.trail.yaml"
    trail = load_trail(trail_file)

    async def measure() -> float:
        driver = NullDriver(DriverOptions(config=project.config))
        device = await driver.open(None)
        start = time.perf_counter()
        workspace = project.workspace_for(trail_file)
        assert workspace is not None and not workspace.problems, workspace and workspace.problems
        registry = project.registry_for(workspace).for_device(driver.key, driver.platform)
        session = Session(Run(project, RunOptions(), project.config), driver, device, registry, workspace=workspace)
        async with session.exit_stack:
            await asyncio.gather(*[a for a in project.hook.trailblaze_session_setup(session=session) if a])
            await ToolRunner(session, trail, 60.0).run(ToolCall(tool, {"text": "hello"}))
            took = time.perf_counter() - start
        return took

    return asyncio.run(measure())


def _fresh(root: Path, tool: str) -> float:
    """:func:`first_call` in a process of its own."""
    out = subprocess.run(
        [sys.executable, __file__, "--first", str(root), tool],
        cwd=ROOT,
        env={**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1"},
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def _sample(into: list[float], root: Path, tool: str) -> None:
    into.append(_fresh(root, tool))


def _caches(root: Path) -> tuple[int, int]:
    """How many descriptions and compiled files ``root``'s workspace keeps."""
    from trailblaze.project.scriptedtools import CACHE_FOLDER, TRANSPILED_FOLDER

    return len(list((root / CACHE_FOLDER).glob("*.json"))), len(list((root / TRANSPILED_FOLDER).glob("*.js")))


def first_calls(runs: int) -> dict[str, list[float]]:
    """``runs`` rounds of the three first calls, each in a fresh process."""
    times: dict[str, list[float]] = {"python": [], "warm": [], "cold": []}
    with tempfile.TemporaryDirectory(prefix="tb-scripted-first-") as tmp:
        warm = Path(tmp) / "warm"
        _workspace(warm)
        _fresh(warm, SCRIPTED_TOOL)  # the earlier run, which fills both caches
        _fresh(warm, PYTHON_TOOL)  # and one of the Python side, alike
        assert _caches(warm) == (1, 1), _caches(warm)
        for round_ in range(runs):
            cold = Path(tmp) / f"cold-{round_}"
            _workspace(cold)
            assert _caches(cold) == (0, 0)
            in_turn(
                round_,
                functools.partial(_sample, times["python"], warm, PYTHON_TOOL),
                functools.partial(_sample, times["warm"], warm, SCRIPTED_TOOL),
                functools.partial(_sample, times["cold"], cold, SCRIPTED_TOOL),
            )
        assert _caches(warm) == (1, 1), _caches(warm)  # the warm runs made nothing again
    return times


async def _later_calls(root: Path, runs: int, calls: int) -> dict[str, list[float]]:
    """Seconds per call of each tool once both servers run, batches of each alternated."""
    from tests.support.null_driver import NullDriver
    from tests.support.project import make_project
    from trailblaze.api.driver import DriverOptions
    from trailblaze.api.session import Run, RunOptions, Session
    from trailblaze.runner.toolrunner import ToolRunner
    from trailblaze.tools.model import ToolCall
    from trailblaze.trail.loader import load_trail

    project = make_project(root, _config(python_server=True))
    workspace = project.workspace_for(root / "trails" / "t.trail.yaml")
    assert workspace is not None and not workspace.problems, workspace and workspace.problems
    trail = load_trail(root / "trails" / "t.trail.yaml")
    driver = NullDriver(DriverOptions(config=project.config))
    device = await driver.open(None)
    registry = project.registry_for(workspace).for_device(driver.key, driver.platform)
    session = Session(Run(project, RunOptions(), project.config), driver, device, registry, workspace=workspace)
    times: dict[str, list[float]] = {PYTHON_TOOL: [], SCRIPTED_TOOL: []}
    async with session.exit_stack:
        await asyncio.gather(*[a for a in project.hook.trailblaze_session_setup(session=session) if a])
        runner = ToolRunner(session, trail, 60.0)
        for tool in times:  # both servers started
            await runner.run(ToolCall(tool, {"text": "hello"}))
        for _ in range(runs):
            for tool, samples in times.items():
                call = ToolCall(tool, {"text": "hello"})
                start = time.perf_counter()
                for _ in range(calls):
                    await runner.run(call)
                samples.append((time.perf_counter() - start) / calls)
    return times


def bench(runs: int, calls: int = 100) -> list[Figure]:
    first = first_calls(runs)
    python, warm, cold = (statistics.median(first[k]) for k in ("python", "warm", "cold"))
    with tempfile.TemporaryDirectory(prefix="tb-scripted-later-") as tmp:
        root = Path(tmp)
        _workspace(root)
        later = asyncio.run(_later_calls(root, runs, calls))
    later_ts, later_py = statistics.median(later[SCRIPTED_TOOL]), statistics.median(later[PYTHON_TOOL])
    return [
        at_most_more(
            "a run's first call: a scripted .ts tool, caches warm, vs a Python MCP tool (its connection and call)",
            warm,
            python,
            "s",
            FIRST_CALL_MORE_S,
        ),
        Figure(
            "a run's first call of a scripted .ts tool: caches empty (describe, compile) vs warm",
            cold,
            warm,
            "s",
            "reported: what the first run after an edit pays",
            True,
        ),
        at_most("later calls: a scripted .ts tool vs a Python MCP tool", later_ts * 1000, later_py * 1000, "ms", 1.5),
    ]


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--first":
        print(f"{first_call(Path(sys.argv[2]), sys.argv[3]):.6f}")
        return 0
    figures = bench(5)
    for figure in figures:
        print(figure.line())
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
