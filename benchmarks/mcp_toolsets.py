"""The MCP toolsets' performance goals, each a ratio to a baseline measured in the same run.

* **connect**: four Python stdio servers in one session are connected in ≤ 1.5× the time of
  one (forked from the prefork helper, they handshake concurrently). Measured from the moment a session asks for its
  servers until their tools are registered, in a fresh process each time, as ``trailblaze run``
  meets it: Trailblaze's own lazy import of the ``mcp`` SDK included.
* **call**: a ``tools/call`` through Trailblaze — lookup, argument check, delegation resolver,
  hooks, request ``_meta``, callback registration, result handling, report — costs ≤ 1.3× a bare
  ``mcp`` client call to the same server.

Run through ``benchmarks/run.py`` (``make bench``), or alone: ``python benchmarks/mcp_toolsets.py``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "benchmarks" / "mcp_echo_server.py"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most  # noqa: E402 - beside this file, on sys.path as the script's folder


def _config(servers: int) -> str:
    entries = "".join(f"  - {{script: {SERVER}, args: [s{i}_]}}\n" for i in range(servers))
    return f"driver: null-test\nmcp_servers:\n{entries}"


async def _session(project: Any) -> Any:
    from tests.support.null_driver import NullDriver
    from trailblaze.api.driver import DriverOptions
    from trailblaze.api.session import Run, RunOptions, Session

    driver = NullDriver(DriverOptions(config=project.config))
    device = await driver.open(None)
    registry = project.tools.for_device(driver.key, driver.platform)
    return Session(Run(project, RunOptions(), project.config), driver, device, registry)


def connect_once(servers: int) -> float:
    """Seconds from asking for ``servers`` servers to their tools being registered (this process)."""
    from tests.support.project import make_project

    with tempfile.TemporaryDirectory(prefix="tb-mcp-connect-") as tmp:
        project = make_project(Path(tmp), _config(servers))

        async def measure() -> float:
            session = await _session(project)
            async with session.exit_stack:
                start = time.perf_counter()
                pending = [a for a in project.hook.trailblaze_session_setup(session=session) if a is not None]
                await asyncio.gather(*pending)
                took = time.perf_counter() - start
                assert f"s{servers - 1}_echo" in session.registry
            return took

        return asyncio.run(measure())


def bench_connect(runs: int) -> list[Figure]:
    def fresh(servers: int) -> float:
        out = subprocess.run(
            [sys.executable, __file__, "--connect", str(servers)],
            cwd=ROOT,
            env={**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1"},
            check=True,
            capture_output=True,
            text=True,
        )
        return float(out.stdout.strip().splitlines()[-1])

    ones: list[float] = []
    fours: list[float] = []
    for _ in range(runs):
        ones.append(fresh(1))
        fours.append(fresh(4))
    four, one = statistics.median(fours), statistics.median(ones)
    return [at_most("four Python stdio servers connected vs one", four, one, "s", 1.5)]


def bench_call(runs: int, calls: int = 300) -> list[Figure]:
    async def measure() -> tuple[float, float]:
        through, bare = await _interleaved(runs, calls)
        return statistics.median(through), statistics.median(bare)

    measured, baseline = asyncio.run(measure())
    return [
        at_most(
            "a tools/call through trailblaze vs a bare mcp client call", measured * 1000, baseline * 1000, "ms", 1.3
        )
    ]


async def _interleaved(runs: int, calls: int) -> tuple[list[float], list[float]]:
    """Batches through Trailblaze and bare batches, alternated, both servers alive throughout."""
    from mcp import Client, StdioServerParameters

    from tests.support.project import make_project, write
    from trailblaze.runner.toolrunner import ToolRunner
    from trailblaze.tools.model import ToolCall
    from trailblaze.trail.loader import load_trail

    through: list[float] = []
    bare: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tb-mcp-call-") as tmp:
        root = Path(tmp)
        project = make_project(root, _config(1))
        trail = load_trail(write(root, "t.trail.yaml", "trail:\n  - step: s\n    recording: {test: [wait: {}]}\n"))
        session = await _session(project)
        params = StdioServerParameters(command=sys.executable, args=[str(SERVER), "s0_"], env=dict(os.environ))
        async with session.exit_stack, Client(params, mode="legacy", cache=None) as client:
            await asyncio.gather(*[a for a in project.hook.trailblaze_session_setup(session=session) if a])
            runner = ToolRunner(session, trail, 10.0)
            call = ToolCall("s0_echo", {"text": "hello"})
            await runner.run(call)
            await client.call_tool("s0_echo", {"text": "hello"})
            for _ in range(runs):
                start = time.perf_counter()
                for _ in range(calls):
                    await runner.run(call)
                through.append((time.perf_counter() - start) / calls)
                start = time.perf_counter()
                for _ in range(calls):
                    await client.call_tool("s0_echo", {"text": "hello"})
                bare.append((time.perf_counter() - start) / calls)
    return through, bare


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--connect":
        print(f"{connect_once(int(sys.argv[2])):.6f}")
        return 0
    figures = [*bench_connect(5), *bench_call(5)]
    for figure in figures:
        print(figure.line())
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
