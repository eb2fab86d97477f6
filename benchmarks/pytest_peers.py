"""trailblaze against the tools a user would pick instead, the same 20 web tests written three
ways (four of the example trails, five copies each) and timed as whole processes, alternating,
in one run (docs/performance.md, "Against the peers"):

* ``pytest -p trailblaze`` (the trails as items) vs pytest-playwright (the flows as tests,
  ``benchmarks/peers/flows/test_flows.py``), in one process and with pytest-xdist's ``-n 4``:
  ≤ 1.0× each;
* ``trailblaze run`` vs Playwright Test (``npx playwright test``, the flows as specs,
  ``benchmarks/peers/flows/flows.spec.js``; @playwright/test from benchmarks/peers' npm lock),
  ``--workers 1`` and ``--workers 4``: ≤ 0.8× and ≤ 0.6×.

Every side uses the same Chromium (trailblaze's choice: Debian's headless shell where it is
installed) with the same flags, a fresh context per test, and one sample app served here. Only
the plugins a user of each side would have are loaded: trailblaze's pytest runs block
pytest-playwright, the peer's block trailblaze, and both block the development environment's
Hypothesis plugin.

Run through ``benchmarks/run.py`` (``python benchmarks/run.py peers``), or alone:
``python benchmarks/pytest_peers.py [ROUNDS]``.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PEERS = ROOT / "benchmarks" / "peers"
FLOWS = PEERS / "flows"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most, in_turn  # noqa: E402 - beside this file, on sys.path as the script's folder

#: the example trails the peers' flows are written after
TRAILS = (
    "forms/submit-contact",
    "forms/keyboard-and-errors",
    "lists/filter-and-open",
    "navigation/history-and-memory",
)
COPIES = 5
WORKERS = 4
_ID = re.compile(r"^(\s+id:\s*)(\S+)", re.MULTILINE)
#: the pytest plugins neither side's user needs (the development environment has them all)
COMMON = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest"]


def project(folder: Path, base_url: str) -> Path:
    """The trails (``COPIES`` copies of :data:`TRAILS`, each copy's ids its own) and their
    trailblaze.yaml in ``folder``, against the sample app at ``base_url``; and an empty pytest.ini
    so pytest's root is here."""
    (folder / "trailblaze.yaml").write_text(f"trails_dir: trails\nbase_url: {base_url}\ntimeout: 10\n")
    (folder / "pytest.ini").write_text("[pytest]\n")
    for copy in range(COPIES):
        target = folder / "trails" / f"copy{copy}"
        shutil.copytree(ROOT / "trails" / "shared", target / "shared")
        for name in TRAILS:
            text = (ROOT / "trails" / f"{name}.trail.yaml").read_text(encoding="utf-8")
            path = target / f"{name}.trail.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_ID.sub(rf"\g<1>copy{copy}/\g<2>", text), encoding="utf-8")
    return folder / "trails"


def environment(base_url: str, output: Path) -> dict[str, str]:
    """The children's environment: the peers' browser and base URL, and Python's default
    bytecode caching as on a user's machine (these machines set ``PYTHONDONTWRITEBYTECODE``,
    which would make every pytest process rewrite its plugins' asserts again)."""
    from trailblaze.drivers.web.browser import CHROMIUM_ARGS, system_chromium

    env = {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    env.update(
        TB_PEER_CHROMIUM=system_chromium() or "/usr/lib/chromium/chromium",
        TB_PEER_CHROMIUM_ARGS="\n".join(CHROMIUM_ARGS),
        TB_PEER_BASE_URL=base_url,
        TB_PEER_OUTPUT=str(output),
    )
    return env


def commands(folder: Path) -> dict[str, list[str]]:
    """What is timed, by name: ``tb-pytest-1``/``-4``, ``pytest-playwright-1``/``-4``,
    ``tb-run-1``/``-4``, ``playwright-test-1``/``-4``."""
    pytest_tb = [str(BIN / "pytest"), "-p", "trailblaze", "-p", "no:playwright", *COMMON]
    pytest_tb += ["--trailblaze-config", str(folder / "trailblaze.yaml"), "trails/"]
    pytest_pw = [str(BIN / "pytest"), "-p", "no:trailblaze", *COMMON, "flows/"]
    run = [str(BIN / "trailblaze"), "run", "-q", "trails/", "--workers"]
    playwright = [
        str(PEERS / "node_modules" / ".bin" / "playwright"),
        "test",
        "-c",
        str(FLOWS / "playwright.config.js"),
    ]
    return {
        "tb-pytest-1": pytest_tb,
        "pytest-playwright-1": pytest_pw,
        "tb-pytest-4": [*pytest_tb, "-n", str(WORKERS)],
        "pytest-playwright-4": [*pytest_pw, "-n", str(WORKERS)],
        "tb-run-1": [*run, "1"],
        "playwright-test-1": [*playwright, "--workers", "1"],
        "tb-run-4": [*run, str(WORKERS)],
        "playwright-test-4": [*playwright, "--workers", str(WORKERS)],
    }


def _wall(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or not re.search(rf"\b{COPIES * len(TRAILS)} passed", done.stdout):
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-3000:]}")
    return elapsed


def measure(rounds: int, names: list[str] | None = None) -> dict[str, list[float]]:
    """Each command's wall times over ``rounds`` rounds, in turn (the reverse order every other
    round), after one warm-up round (bytecode caches written, as after a CI's first run)."""
    from trailblaze.drivers.web.sample_server import SampleAppServer

    server = SampleAppServer().start()
    try:
        with tempfile.TemporaryDirectory(prefix="tb-peers-") as tmp:
            folder = Path(tmp)
            project(folder, server.url)
            shutil.copytree(FLOWS, folder / "flows", ignore=shutil.ignore_patterns("*.js"))
            env = environment(server.url, folder / "playwright-test-results")
            todo = {n: c for n, c in commands(folder).items() if names is None or n in names}
            times: dict[str, list[float]] = {name: [] for name in todo}
            for cmd in todo.values():
                _wall(cmd, folder, env)

            def timed(name: str, cmd: list[str]) -> Callable[[], None]:
                return lambda: times[name].append(_wall(cmd, folder, env))

            steps = [timed(name, cmd) for name, cmd in todo.items()]
            for round_ in range(rounds):
                in_turn(round_, *steps)
    finally:
        server.stop()
    return times


def bench(rounds: int) -> list[Figure]:
    times = measure(rounds)
    m = {name: statistics.median(values) for name, values in times.items()}
    tests = f"{COPIES * len(TRAILS)} web tests"
    return [
        at_most(
            f"{tests}: pytest -p trailblaze vs pytest-playwright", m["tb-pytest-1"], m["pytest-playwright-1"], "s", 1.0
        ),
        at_most(
            f"{tests}: pytest -p trailblaze -n {WORKERS} vs pytest-playwright -n {WORKERS}",
            m["tb-pytest-4"],
            m["pytest-playwright-4"],
            "s",
            1.0,
        ),
        at_most(
            f"{tests}: trailblaze run --workers 1 vs Playwright Test", m["tb-run-1"], m["playwright-test-1"], "s", 0.8
        ),
        at_most(
            f"{tests}: trailblaze run --workers {WORKERS} vs Playwright Test --workers {WORKERS}",
            m["tb-run-4"],
            m["playwright-test-4"],
            "s",
            0.6,
        ),
    ]


if __name__ == "__main__":
    for figure in bench(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print(figure.line(2))
