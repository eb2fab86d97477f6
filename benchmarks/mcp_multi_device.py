"""``multi_device: http``: what one shared toolset server saves a run with four sessions at once.

Four sessions (as ``trailblaze run --workers 4`` opens them) each attach the example toolsets of
plugins-examples/mcp-toolsets — the Python server (the ``mcp`` SDK) and the JavaScript one
(``@trailblaze/scripting`` on node) — and call a tool of each, once with the entries as they are
without the key (one stdio process per session), once with ``multi_device: http`` (one process,
over Streamable HTTP, for the four). Then, with every session still open, it counts the
processes Trailblaze started and adds up their memory (proportional set size from
``/proc/PID/smaps_rollup``: pages shared between processes — the prefork helper's forks share
the SDK's — are counted once, split between them).

* **processes**: HTTP × 1 vs stdio × 4: ≤ 0.5×.
* **memory**: HTTP × 1 vs stdio × 4: ≤ 0.5×.

Each figure is measured in a fresh process each time, stdio and HTTP in turn. Linux only (it
reads /proc). Run through ``benchmarks/run.py`` (``make bench``), or alone:
``python benchmarks/mcp_multi_device.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "plugins-examples" / "mcp-toolsets"
SESSIONS = 4
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most, in_turn  # noqa: E402 - beside this file, on sys.path as the script's folder


def _config(shared: bool) -> str:
    key = ", multi_device: http" if shared else ""
    return (
        "driver: null-test\nmcp_servers:\n"
        f"  - {{script: {EXAMPLE / 'python_tools' / 'server.py'}{key}}}\n"
        f"  - {{script: {EXAMPLE / 'js_tools' / 'server.js'}{key}}}\n"
    )


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(name))
    found: list[int] = []
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _pss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure_once(shared: bool) -> dict[str, Any]:
    """Open four sessions, call a tool of each server in each, then count and weigh the
    processes this process started (this process, in a fresh interpreter)."""
    from tests.support.null_driver import NullDriver
    from tests.support.project import make_project
    from trailblaze.api.driver import DriverOptions
    from trailblaze.api.session import Run, RunOptions, Session

    with tempfile.TemporaryDirectory(prefix="tb-mcp-multi-") as tmp:
        project = make_project(Path(tmp), _config(shared))
        run = Run(project, RunOptions(workers=SESSIONS), project.config)
        run.lanes = SESSIONS

        async def measure() -> dict[str, Any]:
            driver = NullDriver(DriverOptions(config=project.config))
            sessions: list[Session] = []
            for _ in range(SESSIONS):
                device = await driver.open(None)
                registry = project.tools.for_device(driver.key, driver.platform)
                sessions.append(Session(run, driver, device, registry))
            try:
                for session in sessions:
                    await session.exit_stack.__aenter__()

                async def attach(session: Session) -> None:
                    pending = [a for a in project.hook.trailblaze_session_setup(session=session) if a is not None]
                    await asyncio.gather(*pending)

                await asyncio.gather(*(attach(s) for s in sessions))
                for session in sessions:  # every server answers every session
                    from trailblaze.mcpclient.attach import STATE_KEY

                    for connection in session.state[STATE_KEY]:
                        listed = await connection.client.list_tools()
                        assert listed.tools, connection.label
                pids = _descendants(os.getpid())
                return {"processes": len(pids), "memory_mb": sum(_pss_mb(p) for p in pids)}
            finally:
                for session in reversed(sessions):
                    await session.exit_stack.aclose()

        return asyncio.run(measure())


def _fresh(shared: bool) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--measure", "http" if shared else "stdio"],
        cwd=ROOT,
        env={**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1"},
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def bench(runs: int) -> list[Figure]:
    stdio: list[dict[str, Any]] = []
    http: list[dict[str, Any]] = []
    for round_ in range(runs):
        in_turn(round_, lambda: stdio.append(_fresh(False)), lambda: http.append(_fresh(True)))

    def median(samples: list[dict[str, Any]], key: str) -> float:
        return float(statistics.median(s[key] for s in samples))

    return [
        at_most(
            f"{SESSIONS} sessions' toolset processes: HTTP × 1 vs stdio × {SESSIONS}",
            median(http, "processes"),
            median(stdio, "processes"),
            "processes",
            0.5,
        ),
        at_most(
            f"{SESSIONS} sessions' toolset memory (PSS): HTTP × 1 vs stdio × {SESSIONS}",
            median(http, "memory_mb"),
            median(stdio, "memory_mb"),
            "MB",
            0.5,
        ),
    ]


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        print(json.dumps(measure_once(sys.argv[2] == "http")))
        return 0
    figures = bench(3)
    for figure in figures:
        print(figure.line())
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
