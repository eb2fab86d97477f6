"""Scaling-out goals (README, "Scaling out"), each a ratio to a baseline measured in the same run.

* **pytest-xdist**: 16 copies of the example web trails in a fresh project, ``pytest -p
  trailblaze -n 4`` vs ``trailblaze run --workers 4``, shown without a goal: both give every
  trail a fresh browser context, but pytest's four workers are four processes, each with its
  own Playwright driver and browser, where ``--workers 4`` is one process and one browser. The
  yardstick for the pytest path is the peer a pytest user would pick instead, pytest-playwright
  (``benchmarks/pytest_peers.py``).
* **remote browser**: the example trails on a Playwright browser server started here (``python
  -m playwright launch-server`` on the system Chromium, already listening, as a grid would be)
  vs the same trails on a browser trailblaze launches itself: ≤ 1.2×.

Run through ``benchmarks/run.py`` (``python benchmarks/run.py xdist remote-browser``), or alone:
``python benchmarks/scaling.py``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most, in_turn  # noqa: E402 - beside this file, on sys.path as the script's folder

TRAILS = 16
WORKERS = 4
_ID = re.compile(r"^(\s+id:\s*)(\S+)", re.MULTILINE)


def _env() -> dict[str, str]:
    """The children's environment: Python's default bytecode caching, as on a user's machine. A
    ``PYTHONDONTWRITEBYTECODE=1`` here (these machines set it) would make every pytest worker
    re-run assertion rewriting over each plugin's modules (pytest rewrites entry-point plugins),
    which no user's CI pays after its first run."""
    env = {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _wall(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    return elapsed


def sample_project(folder: Path, count: int = TRAILS) -> Path:
    """``count`` example web trails in ``folder``: copies of trails/, each copy's ids prefixed so
    every trail is its own."""
    (folder / "trailblaze.yaml").write_text("trails_dir: trails\nbase_url: sample-app\ntimeout: 10\n")
    made = 0
    copy = 0
    while made < count:
        target = folder / "trails" / f"copy{copy}"
        shutil.copytree(ROOT / "trails", target)
        for path in sorted(target.rglob("*.trail.yaml")):
            if made >= count:
                path.unlink()
                continue
            text = path.read_text(encoding="utf-8")
            path.write_text(_ID.sub(rf"\g<1>copy{copy}/\g<2>", text), encoding="utf-8")
            made += 1
        copy += 1
    return folder / "trails"


def bench_xdist(runs: int) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="tb-xdist-") as tmp:
        folder = Path(tmp)
        trails = sample_project(folder)
        pytest_cmd = [str(BIN / "pytest"), "-p", "trailblaze", "-n", str(WORKERS), "-q", "-p", "no:cacheprovider"]
        pytest_cmd += ["-p", "no:randomly", "--trailblaze-config", str(folder / "trailblaze.yaml"), str(trails)]
        run_cmd = [str(BIN / "trailblaze"), "run", "-q", "--workers", str(WORKERS), str(trails)]
        ours: list[float] = []
        theirs: list[float] = []
        _wall(pytest_cmd, folder)  # warm-up: bytecode caches written, as after a CI's first run
        _wall(run_cmd, folder)
        for round_ in range(runs):  # interleaved: a load spike hits both alike
            in_turn(
                round_,
                lambda: theirs.append(_wall(pytest_cmd, folder)),
                lambda: ours.append(_wall(run_cmd, folder)),
            )
    measured, baseline = statistics.median(theirs), statistics.median(ours)
    ratio = measured / baseline
    name = f"{TRAILS} web trails: pytest -p trailblaze -n {WORKERS} vs trailblaze run --workers {WORKERS}"
    return [Figure(name, measured, baseline, "s", "shown: the goal is against pytest-playwright (peers)", ratio > 0)]


@contextmanager
def browser_server(folder: Path) -> Iterator[str]:
    """A Playwright browser server on the system Chromium; its ws:// endpoint."""
    from trailblaze.drivers.web.browser import CHROMIUM_ARGS, system_chromium

    config = folder / "server.json"
    executable = system_chromium() or "/usr/bin/chromium"
    config.write_text(json.dumps({"executablePath": executable, "args": [*CHROMIUM_ARGS, "--headless"], "port": 0}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()
        if not line.startswith("ws://"):
            raise RuntimeError(f"playwright launch-server printed {line!r}")
        yield line
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=10)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue
        if proc.stdout is not None:
            proc.stdout.close()


def bench_remote_browser(runs: int) -> list[Figure]:
    cmd = [str(BIN / "trailblaze"), "run", "-q", "trails/"]
    remote: list[float] = []
    local: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tb-remote-") as tmp, browser_server(Path(tmp)) as endpoint:
        _wall([*cmd, "--connect", endpoint], ROOT)  # the server's browser starts on the first connection
        for round_ in range(runs):
            in_turn(
                round_,
                lambda: remote.append(_wall([*cmd, "--connect", endpoint], ROOT)),
                lambda: local.append(_wall(cmd, ROOT)),
            )
    measured, baseline = statistics.median(remote), statistics.median(local)
    name = "example web trails on a local Playwright browser server (--connect) vs a launched browser"
    return [at_most(name, measured, baseline, "s", 1.2)]


if __name__ == "__main__":
    for figure in [*bench_xdist(2), *bench_remote_browser(2)]:
        print(figure.line(2))
