"""Big trails (docs/performance.md, "Big trails"): ``trailblaze validate`` of a 100,000-step trail
(9 MB; each step a ``web_navigate``), each figure a ratio to a baseline measured in the same run.

* **CPU and peak memory** of ``trailblaze validate`` of the trail — reading it with the line and
  column of every value, building the trail, checking every call — against PyYAML's C loader
  only reading the same file into plain data and writing that as JSON (``yaml.load(...,
  CSafeLoader)`` + ``json.dumps``), each in a fresh process. The issue's goals, under 5 s and
  200 MB, were 0.41× and 0.32× of that baseline on the 2-core machine the figures were taken on
  (12.1 s and 619 MB).
* **scaling**: validating the 100,000-step trail once against validating a 1,000-step trail 100
  times, in one process (CPU): a step of a big file costs at most a little more than a step of a
  small one (Python's cycle collector walks more objects alive at once).
* **many problems**: ``trailblaze validate`` of a 10 MB trail with a misspelt tool name in every
  step (116,000 problems; it prints the first 50 and counts the rest) against the 100,000-step
  trail without mistakes (CPU, fresh processes).

Run through ``benchmarks/run.py`` (``python benchmarks/run.py big-validate``), or alone:
``python benchmarks/bigtrail.py``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most, in_turn  # noqa: E402 - beside this file, on sys.path as the script's folder

STEPS = 100_000
#: steps of the trail with a mistake in each: as many as a 10 MB file holds (the default bound)
WRONG_STEPS = 116_000
STEP = "  - step: Step {i}\n    recording:\n      web:\n        - {tool}: {{url: /forms.html}}\n"

#: run in a fresh process: ``trailblaze validate PATH`` or PyYAML reading PATH; prints the
#: process's CPU seconds and peak memory in MB
_MEASURE = """
import json, os, resource, sys
what, path = sys.argv[1], sys.argv[2]
if what == "trailblaze":
    from trailblaze.cli import main
    sys.argv = ["trailblaze", "validate", path]
    try:
        main()
    except SystemExit:
        pass
else:
    import yaml
    with open(path, encoding="utf-8") as handle:
        json.dumps(yaml.load(handle, Loader=yaml.CSafeLoader))
times = os.times()
print(times.user + times.system, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""

#: validating a trail ``times`` times in one process; the project is loaded and the tools' models
#: built (a small trail validated) before the clock starts
_REPEAT = """
import sys, time
from pathlib import Path
from trailblaze.api.session import RunOptions
from trailblaze.runner.project import load_project
from trailblaze.runner.validate import validate
path, times, warm_up = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
project = load_project(path.parent / "trailblaze.yaml", [], autoload=False)
validate(project, RunOptions(paths=[warm_up]))
start = time.process_time()
for _ in range(times):
    validate(project, RunOptions(paths=[path]))
print(time.process_time() - start)
"""


def write_trail(path: Path, steps: int, tool: str = "web_navigate") -> Path:
    with path.open("w", encoding="utf-8") as out:
        out.write("config:\n  title: big\ntrail:\n")
        for i in range(steps):
            out.write(STEP.format(i=i, tool=tool))
    return path


def _env() -> dict[str, str]:
    return {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}


def _measure(what: str, path: Path) -> tuple[float, float]:
    """CPU seconds and peak MB of ``what`` reading ``path`` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, what, str(path)], cwd=path.parent, env=_env(), capture_output=True, text=True
    )
    *_, last = done.stdout.splitlines() or [""]
    try:
        cpu, peak = (float(part) for part in last.split())
    except ValueError:
        output = done.stdout[-2000:] + done.stderr[-2000:]
        raise RuntimeError(f"{what} {path}: exit {done.returncode}\n{output}") from None
    return cpu, peak


def _repeated(path: Path, times: int, warm_up: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _REPEAT, str(path), str(times), str(warm_up)],
        env=_env(),
        check=True,
        capture_output=True,
        text=True,
    )
    return float(done.stdout.split()[-1])


def bench(runs: int) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="tb-bigtrail-") as tmp:
        folder = Path(tmp)
        (folder / "trailblaze.yaml").write_text("trails_dir: .\nbase_url: sample-app\n", encoding="utf-8")
        big = write_trail(folder / "big.trail.yaml", STEPS)
        small = write_trail(folder / "small.trail.yaml", STEPS // 100)
        tiny = write_trail(folder / "tiny.trail.yaml", 10)
        wrong = write_trail(folder / "wrong.trail.yaml", WRONG_STEPS, "web_navigat")
        ours: list[tuple[float, float]] = []
        pyyaml: list[tuple[float, float]] = []
        mistaken: list[float] = []
        once: list[float] = []
        hundred: list[float] = []
        for round_ in range(runs):  # interleaved: a load spike hits every side alike
            in_turn(
                round_,
                lambda: ours.append(_measure("trailblaze", big)),
                lambda: pyyaml.append(_measure("pyyaml", big)),
                lambda: mistaken.append(_measure("trailblaze", wrong)[0]),
                lambda: once.append(_repeated(big, 1, tiny)),
                lambda: hundred.append(_repeated(small, 100, tiny)),
            )
    cpu, peak = (statistics.median(side) for side in zip(*ours, strict=True))
    base_cpu, base_peak = (statistics.median(side) for side in zip(*pyyaml, strict=True))
    name = f"trailblaze validate of a {STEPS:,}-step trail vs PyYAML's CSafeLoader reading it (+ json.dumps)"
    return [
        at_most(f"{name}, CPU", cpu, base_cpu, "s CPU", 0.41),
        at_most(f"{name}, peak memory", peak, base_peak, "MB", 0.32),
        at_most(
            f"validate a {STEPS:,}-step trail once vs a {STEPS // 100:,}-step trail 100 times, in one process (CPU)",
            statistics.median(once),
            statistics.median(hundred),
            "s CPU",
            1.3,
        ),
        at_most(
            f"validate a 10 MB trail with a misspelt tool in each of {WRONG_STEPS:,} steps vs the {STEPS:,}-step "
            "trail without (CPU)",
            statistics.median(mistaken),
            cpu,
            "s CPU",
            1.5,
        ),
    ]


if __name__ == "__main__":
    for figure in bench(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print(figure.line())
