"""A trailmap's scripted tool against a Python MCP tool doing the same (echoing its text).

* **first call**: a session's first call of a scripted `.ts` tool — node started, the SDK and
  tsx loaded, the file compiled, the MCP handshake, the call — against a Python MCP server's
  connection at session start plus its first call. Reported, no goal: it is what a session pays
  once per trailmap folder it uses. Describing the file's types (the TypeScript compiler, once
  per change of the folder's files, cached under ``.trailblaze/``) happens when the workspace
  loads and is not part of it.
* **later calls**: one call through Trailblaze's resolver once both servers run, goal ≤ 1.5×.

Run through ``benchmarks/run.py scripted`` (``make bench``), or alone:
``python benchmarks/scripted_tools.py``. It needs node (or bun) and the SDK built (``make sdk``).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "benchmarks" / "mcp_echo_server.py"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most  # noqa: E402 - beside this file, on sys.path as the script's folder

ECHO_TS = """
import { trailblaze } from "@trailblaze/scripting";

export interface EchoArgs {
  /** What to answer. */
  text: string;
}

/** Return the text. */
export const ts_echo = trailblaze.tool<EchoArgs>(async ({ text }) => text);
"""


def _workspace(root: Path) -> None:
    from tests.support.project import write

    write(root, "trails/config/trailblaze.yaml", "targets: [bench]\n")
    write(
        root,
        "trails/config/trailmaps/bench/trailmap.yaml",
        "id: bench\ntarget:\n  display_name: Bench\n  tools: [ts_echo]\n",
    )
    write(root, "trails/config/trailmaps/bench/tools/ts_echo.ts", ECHO_TS)


async def _measure(root: Path, runs: int, calls: int) -> dict[str, list[float]]:
    from tests.support.null_driver import NullDriver
    from tests.support.project import make_project, write
    from trailblaze.api.driver import DriverOptions
    from trailblaze.api.session import Run, RunOptions, Session
    from trailblaze.runner.replay import ToolRunner
    from trailblaze.tools.model import ToolCall
    from trailblaze.trail.loader import load_trail

    project = make_project(root, f"driver: null-test\nmcp_servers:\n  - {{script: {SERVER}, args: [py_]}}\n")
    workspace = project.workspace_for(root / "trails" / "t.trail.yaml")
    assert workspace is not None and not workspace.problems, workspace and workspace.problems
    trail = load_trail(write(root, "trails/t.trail.yaml", "trail:\n  - step: s\n    recording: {test: [wait: {}]}\n"))
    driver = NullDriver(DriverOptions(config=project.config))
    device = await driver.open(None)
    registry = project.registry_for(workspace).for_device(driver.key, driver.platform)
    session = Session(Run(project, RunOptions(), project.config), driver, device, registry, workspace=workspace)
    figures: dict[str, list[float]] = {"python first": [], "ts first": [], "python later": [], "ts later": []}
    async with session.exit_stack:
        runner = ToolRunner(session, trail, 10.0)
        python, scripted = ToolCall("py_echo", {"text": "hello"}), ToolCall("ts_echo", {"text": "hello"})
        start = time.perf_counter()
        await asyncio.gather(*[a for a in project.hook.trailblaze_session_setup(session=session) if a])
        await runner.run(python)
        figures["python first"].append(time.perf_counter() - start)
        start = time.perf_counter()
        await runner.run(scripted)
        figures["ts first"].append(time.perf_counter() - start)
        for _ in range(runs):
            for name, call in (("python later", python), ("ts later", scripted)):
                start = time.perf_counter()
                for _ in range(calls):
                    await runner.run(call)
                figures[name].append((time.perf_counter() - start) / calls)
    return figures


def bench(runs: int, calls: int = 100) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="tb-scripted-") as tmp:
        root = Path(tmp)
        _workspace(root)
        figures = asyncio.run(_measure(root, runs, calls))
    first_ts, first_py = figures["ts first"][0], figures["python first"][0]
    later_ts, later_py = statistics.median(figures["ts later"]), statistics.median(figures["python later"])
    first = "a session's first scripted .ts tool call (spawn, handshake, call) vs a Python MCP server's"
    return [
        Figure(first, first_ts, first_py, "s", "reported", True),
        at_most("later calls: a scripted .ts tool vs a Python MCP tool", later_ts * 1000, later_py * 1000, "ms", 1.5),
    ]


def main() -> int:
    figures = bench(5)
    for figure in figures:
        print(figure.line())
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
