"""Where a pytest process's time goes, phase by phase, for ``pytest -p trailblaze`` and
pytest-playwright on the 20 tests of ``pytest_peers.py`` (docs/performance.md, "Against the
peers"): wall time and the process's own CPU from start-up to ``pytest_configure``, collection,
what follows it (the plugin opens its first session there), the items, teardown and exit, and
the CPU of the driver and browser it waited for. Not a goal: what the goals' ratios are made of.

Run: ``python benchmarks/pytest_phases.py [ROUNDS] [-n 4]``, the two sides alternating. The
plugin that takes the timestamps is this file itself, loaded into each pytest as ``-p
pytest_phases``; it writes one JSON line per process (per worker under ``-n``).
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: where each process appends its timestamps (set by the runner below)
OUT = "TB_PHASES_OUT"
#: the phases between the plugin's marks; before them, start-up (its CPU up to ``pytest_configure``)
PHASES = ("configure", "collection", "after collection", "items", "teardown", "exit")

_marks: list[tuple[float, float]] = []


def _mark() -> None:
    own = resource.getrusage(resource.RUSAGE_SELF)
    _marks.append((time.perf_counter(), own.ru_utime + own.ru_stime))


# -- the plugin, in each pytest process ------------------------------------------------------------

if os.environ.get(OUT):
    import pytest

    _mark()  # the plugin imported

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(config: pytest.Config) -> None:
        _mark()

        class Last:
            @pytest.hookimpl(trylast=True)
            def pytest_unconfigure(self) -> None:
                _mark()  # every plugin's unconfigure done: teardown

        config.pluginmanager.register(Last(), "pytest-phases-last")

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(session: pytest.Session) -> None:
        _mark()  # configure done

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
        _mark()  # collected

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(session: pytest.Session) -> Any:
        _mark()  # what came after collection (a trailblaze worker opens its first session)
        try:
            return (yield)
        finally:
            _mark()  # the items

    def _write() -> None:
        _mark()  # exit: pytest's own end, the interpreter's atexit work before this
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        record = {
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "marks": _marks,
            "children_cpu": children.ru_utime + children.ru_stime,
        }
        with open(os.environ[OUT], "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")

    atexit.register(_write)


# -- the runner ----------------------------------------------------------------------------------------


def _phases(record: dict[str, Any]) -> dict[str, tuple[float, float]] | None:
    """Each phase's (wall, CPU) from a process's marks (start-up: its CPU only); None for a
    process that did not collect (xdist's controller)."""
    marks = record["marks"]
    if len(marks) != len(PHASES) + 2:
        return None
    phases = {"start-up": (float("nan"), marks[1][1])}
    for name, before, after in zip(PHASES, marks[1:-1], marks[2:], strict=True):
        phases[name] = (after[0] - before[0], after[1] - before[1])
    phases["driver and browser"] = (float("nan"), record["children_cpu"])
    return phases


def measure(rounds: int, extra: list[str]) -> dict[str, list[dict[str, tuple[float, float]]]]:
    sys.path[:0] = [str(HERE), str(HERE.parent)]
    import pytest_peers

    from trailblaze.drivers.web.sample_server import SampleAppServer

    server = SampleAppServer().start()
    found: dict[str, list[dict[str, tuple[float, float]]]] = {"pytest -p trailblaze": [], "pytest-playwright": []}
    try:
        with tempfile.TemporaryDirectory(prefix="tb-phases-") as tmp:
            folder = Path(tmp)
            pytest_peers.project(folder, server.url)
            shutil.copytree(pytest_peers.FLOWS, folder / "flows", ignore=shutil.ignore_patterns("*.js"))
            env = pytest_peers.environment(server.url, folder / "playwright-test-results")
            env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), str(HERE)])
            cmds = pytest_peers.commands(folder)
            sides = {
                "pytest -p trailblaze": [*cmds["tb-pytest-1"], "-p", "pytest_phases", *extra],
                "pytest-playwright": [*cmds["pytest-playwright-1"], "-p", "pytest_phases", *extra],
            }
            for round_ in range(rounds + 1):  # the first round warms the caches and is not kept
                order = list(sides.items()) if round_ % 2 else list(sides.items())[::-1]
                for name, cmd in order:
                    out = folder / "phases.jsonl"
                    out.unlink(missing_ok=True)
                    done = subprocess.run(
                        cmd, cwd=folder, env={**env, OUT: str(out)}, capture_output=True, text=True, check=False
                    )
                    if done.returncode != 0:
                        raise RuntimeError(f"{name} exited {done.returncode}:\n{done.stdout[-2000:]}")
                    if round_:
                        for line in out.read_text(encoding="utf-8").splitlines():
                            phases = _phases(json.loads(line))
                            if phases is not None:
                                found[name].append(phases)
    finally:
        server.stop()
    return found


def report(found: dict[str, list[dict[str, tuple[float, float]]]]) -> str:
    """Each phase's medians, a column per side."""
    lines = [f"{'median of each process':24}" + "".join(f"{side:>30}" for side in found)]
    for phase in ["start-up", *PHASES, "driver and browser"]:
        cells = []
        for runs in found.values():
            wall = statistics.median(run[phase][0] for run in runs)
            cpu = statistics.median(run[phase][1] for run in runs)
            cells.append(("" if wall != wall else f"{wall:.3f} s, ") + f"CPU {cpu:.3f} s")  # nan: not timed
        lines.append(f"{phase:24}" + "".join(f"{cell:>30}" for cell in cells))
    python = [
        statistics.median(sum(run[p][1] for p in ["start-up", *PHASES]) for run in runs) for runs in found.values()
    ]
    lines.append(f"{'Python, CPU in all':24}" + "".join(f"{f'{cpu:.3f} s':>30}" for cpu in python))
    return "\n".join(lines)


if __name__ == "__main__" and not os.environ.get(OUT):
    args = sys.argv[1:]
    rounds = int(args.pop(0)) if args and args[0].isdigit() else 3
    print(report(measure(rounds, args)))
