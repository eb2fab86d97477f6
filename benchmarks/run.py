"""trailblaze's benchmarks: each goal is a ratio against a baseline measured in the same run
(or, for a fixed cost, a difference from it: :func:`figures.at_most_more`).

    python benchmarks/run.py              # everything (make bench)
    python benchmarks/run.py startup web  # some of them
    python benchmarks/run.py --record web # and keep its figures in benchmarks/recorded.json

Each figure is printed beside its baseline from the same run, and beside the ratio last recorded
in benchmarks/recorded.json: a ratio more than 10% above the recorded one is marked REGRESSED
(every ratio here is better when lower). A difference goal records its difference instead, and
regresses when it grows by more than 10% of the recorded difference or of the difference the
goal allows, whichever is larger (0.05 s for "≤ 0.5 s more").

Machines here are shared and noisy, so every measurement is repeated and interleaved with
its baseline, and the median is compared. Nothing here is a test: the figures go into the
README's performance section.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from figures import Figure, in_turn  # benchmarks/ is on sys.path: this script's folder

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: the last recorded figure of each benchmark (``--record``), by name
RECORDED = ROOT / "benchmarks" / "recorded.json"
#: a ratio this much above its recorded one is a regression
REGRESSION = 1.10
sys.path.insert(0, str(ROOT))


def env(**extra: str) -> dict[str, str]:
    values = {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    values.update(extra)
    return values


def wall(cmd: list[str], cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def interleaved(runs: int, *commands: Callable[[], float]) -> list[float]:
    """Median of each command, run round-robin so load spikes hit all of them alike (in the
    reverse order every other round: :func:`figures.in_turn`)."""
    samples: list[list[float]] = [[] for _ in commands]
    steps = [lambda i=i, command=command: samples[i].append(command()) for i, command in enumerate(commands)]
    for round_ in range(runs):
        in_turn(round_, *steps)
    return [statistics.median(s) for s in samples]


def bench_startup(runs: int) -> list[Figure]:
    trailblaze, pytest = str(BIN / "trailblaze"), str(BIN / "pytest")
    version, help_, baseline = interleaved(
        runs,
        lambda: wall([trailblaze, "--version"]),
        lambda: wall([trailblaze, "--help"]),
        lambda: wall([pytest, "--version"]),
    )
    return [
        Figure(
            "trailblaze --version vs pytest --version", version, baseline, "s", "≤ 1.0×", version <= baseline * 1.05
        ),
        Figure("trailblaze --help vs pytest --version", help_, baseline, "s", "≤ 1.0×", help_ <= baseline * 1.05),
    ]


def bench_web(runs: int) -> list[Figure]:
    replay, script = interleaved(
        runs,
        lambda: wall([str(BIN / "trailblaze"), "run", "-q", "trails/"]),
        lambda: wall([sys.executable, str(ROOT / "benchmarks" / "playwright_baseline.py")]),
    )
    return [
        Figure(
            "replay the bundled web trails vs a hand-written Playwright script",
            replay,
            script,
            "s",
            "≤ 1.05×",
            replay <= script * 1.05,
        )
    ]


def cpu_of(cmd: list[str], cwd: Path = ROOT) -> float:
    """CPU seconds (user and system) of ``cmd`` and the processes it waited for (Playwright's
    driver and the browser): on a busy machine the wall time of trails that wait for pages says
    little about what a setting costs, the CPU it takes does."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, env=env(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench_evidence(runs: int) -> list[Figure]:
    """The passing bundled trails with the default evidence (a screenshot of failed steps, a
    trace on a trail's first retry only) vs no screenshots and no traces, and what tracing every
    trail (``--trace retain-on-failure``, the default before) costs: why it is not the default."""
    with tempfile.TemporaryDirectory(prefix="tb-evidence-") as tmp:
        cmd = [str(BIN / "trailblaze"), "run", "-q", "trails/", "--artifacts-dir", tmp]
        off = [*cmd, "--screenshot", "off", "--trace", "off"]
        traced = [*cmd, "--trace", "retain-on-failure"]
        defaults, bare, every, bare_cpu = interleaved(
            runs, lambda: wall(cmd), lambda: wall(off), lambda: cpu_of(traced), lambda: cpu_of(off)
        )
    return [
        Figure(
            "bundled web trails with the default evidence vs --screenshot off --trace off",
            defaults,
            bare,
            "s",
            "≤ 1.02×",
            defaults <= bare * 1.02,
        ),
        Figure(
            "CPU of the bundled web trails, every trail traced (--trace retain-on-failure) vs --trace off",
            every,
            bare_cpu,
            "s CPU",
            "shown: > 1.02× is why it is not the default",
            True,
        ),
    ]


WORKERS_TRAIL = """
config: {{id: workers/{n}}}
trail:
  - step: Wait for delayed content
    recording:
      web:
        - web_navigate: {{url: /delayed.html}}
        - web_verifyTextVisible: {{text: Welcome back!}}
        - web_click: {{nodeSelector: {{web: {{ariaRole: button, ariaNameRegex: Load data}}}}}}
        - web_verifyTextVisible: {{text: Data loaded}}
  - step: Fill a form
    recording:
      web:
        - web_navigate: {{url: /forms.html}}
        - web_type: {{text: Ada, nodeSelector: {{web: {{dataTestId: name-input}}}}}}
        - web_click: {{nodeSelector: {{web: {{cssSelector: "#submit"}}}}}}
        - web_verifyTextVisible: {{text: "Name: Ada"}}
"""


def bench_workers(runs: int) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="tb-workers-") as tmp:
        folder = Path(tmp)
        (folder / "trailblaze.yaml").write_text("base_url: sample-app\n")
        for n in range(4):
            (folder / f"w{n}.trail.yaml").write_text(WORKERS_TRAIL.format(n=n))
        cmd = [str(BIN / "trailblaze"), "run", "-q", "."]
        four, one = interleaved(
            runs, lambda: wall([*cmd, "--workers", "4"], folder), lambda: wall([*cmd, "--workers", "1"], folder)
        )
    return [Figure("four web trails, --workers 4 vs --workers 1", four, one, "s", "≤ 0.55×", four <= one * 0.55)]


def bench_engine(runs: int) -> list[Figure]:
    """CPU time to replay a 5,000-step trail on the null test driver (no device work at all)."""
    from tests.support.null_driver import NullDevice
    from tests.support.project import make_project, write
    from trailblaze.api.session import RunOptions
    from trailblaze.runner.run import execute, prepare

    steps = "".join(
        f"  - step: step {i}\n    recording:\n      test:\n        - null_tap: {{text: Home}}\n" for i in range(5000)
    )
    cpu: list[float] = []
    direct: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tb-engine-") as tmp:
        root = Path(tmp)
        write(root, "trails/long.trail.yaml", "config: {id: long}\ntrail:\n" + steps)
        project = make_project(
            root, "driver: null-test\n", plugins=("tests.support.null_driver",), options={"quiet": True}
        )
        spec = project.tools.require("null_tap")
        for _ in range(runs):
            run = prepare(project, RunOptions())
            start = time.process_time()
            result = asyncio.run(execute(run))
            cpu.append(time.process_time() - start)
            assert result.exit_code == 0 and len(result.trails[0].steps) == 5000
            direct.append(_direct_calls(spec, NullDevice("direct", ["Home"])))
    measured, baseline = statistics.median(cpu), statistics.median(direct)
    return [
        Figure(
            "engine: 5,000-step trail on a do-nothing driver (CPU)",
            measured,
            baseline,
            "s CPU",
            "< 1 s CPU",
            measured < 1.0,
        )
    ]


def _direct_calls(spec: object, device: object) -> float:
    """The same 5,000 tool invocations without the engine (the floor the engine adds to)."""
    from trailblaze.tools.model import ToolCall, ToolContext

    call = ToolCall("null_tap", {"text": "Home"})
    ctx = ToolContext(device, device, device.device, {}, "s", "i", spec, call)  # type: ignore[arg-type, attr-defined]

    async def loop() -> None:
        for _ in range(5000):
            await spec.implementation.invoke(ctx, call.args)  # type: ignore[attr-defined]

    start = time.process_time()
    asyncio.run(loop())
    return time.process_time() - start


def bench_android(runs: int) -> list[Figure]:
    """Each Android primitive vs the same uiautomator2 calls made directly, on the stand-in phone."""
    from android_primitives import measure  # benchmarks/ is on sys.path when run.py runs

    figures = []
    fast = measure(runs, nodelay=True, direct_transport="trailblaze")
    slow = measure(max(3, runs // 5), nodelay=False, direct_transport="u2.connect")
    labels = ("both with TCP_NODELAY", "trailblaze without TCP_NODELAY, direct through u2.connect(serial)")
    for timings, transport in zip((fast, slow), labels, strict=True):
        for t in timings:
            figures.append(
                Figure(
                    f"android {t.primitive} vs the same u2 calls ({transport})",
                    t.trailblaze * 1000,
                    t.direct * 1000,
                    "ms",
                    "≤ 1.1×",
                    t.trailblaze <= t.direct * 1.1,
                )
            )
    tap_fast = next(t.trailblaze for t in fast if t.primitive.startswith("tap"))
    tap_slow = next(t.trailblaze for t in slow if t.primitive.startswith("tap"))
    figures.append(
        Figure(
            "android tap with TCP_NODELAY vs without (the delayed-ACK stall)",
            tap_fast * 1000,
            tap_slow * 1000,
            "ms",
            "< 1.0×",
            tap_fast < tap_slow,
        )
    )
    return figures


def bench_appium(runs: int) -> list[Figure]:
    """A tap by selector and a check through the appium driver vs the same requests from a plain
    Appium-Python-Client script, on the stand-in Appium server."""
    from appium_primitives import measure  # benchmarks/ is on sys.path when run.py runs

    return [
        Figure(
            f"appium {t.primitive} vs the same requests from an Appium-Python-Client script",
            t.trailblaze * 1000,
            t.script * 1000,
            "ms",
            "≤ 1.1×",
            t.trailblaze <= t.script * 1.1,
        )
        for t in measure(runs)
    ]


def bench_mcp_connect(runs: int) -> list[Figure]:
    import mcp_toolsets

    return mcp_toolsets.bench_connect(runs)


def bench_mcp_call(runs: int) -> list[Figure]:
    import mcp_toolsets

    return mcp_toolsets.bench_call(runs)


def bench_mcp_multi_device(runs: int) -> list[Figure]:
    import mcp_multi_device

    return mcp_multi_device.bench(runs)


def bench_scripted(runs: int) -> list[Figure]:
    import scripted_tools

    return scripted_tools.bench(runs)


def bench_mcp_server_startup(runs: int) -> list[Figure]:
    import mcp_server

    return mcp_server.bench_startup(runs)


def bench_mcp_server_call(runs: int) -> list[Figure]:
    import mcp_server

    return mcp_server.bench_call(runs)


def bench_mcp_tokens(runs: int) -> list[Figure]:
    import mcp_context

    return mcp_context.bench_tokens(runs)


def bench_mcp_first_list(runs: int) -> list[Figure]:
    import mcp_context

    return mcp_context.bench_first_list(runs)


def bench_mcp_replies(runs: int) -> list[Figure]:
    import mcp_context

    return mcp_context.bench_replies(runs)


def bench_mcp_exit(runs: int) -> list[Figure]:
    import mcp_context

    return mcp_context.bench_exit(runs)


def bench_mcp_server_ref(runs: int) -> list[Figure]:
    import mcp_server

    return mcp_server.bench_ref(runs)


def bench_xdist(runs: int) -> list[Figure]:
    import scaling

    return scaling.bench_xdist(runs)


def bench_remote_browser(runs: int) -> list[Figure]:
    import scaling

    return scaling.bench_remote_browser(runs)


def bench_peers(runs: int) -> list[Figure]:
    """The same 20 web tests through pytest -p trailblaze and pytest-playwright, trailblaze run
    and Playwright Test, in one run (benchmarks/pytest_peers.py)."""
    import pytest_peers

    return pytest_peers.bench(runs)


_REGISTER = """
import sys, time
from trailblaze.runner.project import load_project
project = load_project()
project.drivers  # the drivers' modules (and pydantic) are loaded before the clock starts
start = time.process_time()
tools = project.tools
if sys.argv[1] == "eager":  # what registering cost when every model and schema was built then
    for spec in tools:
        spec.input_schema, spec.secret_fields
print(len(tools), time.process_time() - start)
"""


def bench_registry(runs: int) -> list[Figure]:
    """Registering every tool (names, descriptions and flags; models and schemas built on first
    use) vs building every tool's model and JSON Schema as registration once did, each in a
    fresh process; and the CPU of ``trailblaze validate`` of one web trail vs ``trailblaze
    --version``: what checking a trail adds to start-up."""

    def register(mode: str) -> float:
        out = subprocess.run(
            [sys.executable, "-c", _REGISTER, mode], cwd=ROOT, env=env(), check=True, capture_output=True, text=True
        )
        return float(out.stdout.split()[1])

    trailblaze = str(BIN / "trailblaze")
    lazy, eager, validate, version = interleaved(
        runs,
        lambda: register("lazy"),
        lambda: register("eager"),
        lambda: cpu_of([trailblaze, "validate", "trails/legacy/about.trail.yaml"]),
        lambda: cpu_of([trailblaze, "--version"]),
    )
    return [
        Figure(
            "register every tool (lazy) vs building every model and schema at registration (CPU)",
            lazy,
            eager,
            "s CPU",
            "≤ 0.25×",
            lazy <= eager * 0.25,
        ),
        Figure(
            "trailblaze validate of one web trail vs trailblaze --version (CPU)",
            validate,
            version,
            "s CPU",
            "shown: what checking a trail adds to start-up",
            True,
        ),
    ]


_PEAK_RSS = """
import resource, sys
from pathlib import Path
path = Path(sys.argv[2])
if sys.argv[1] == "trailblaze":
    from trailblaze.trail.loader import load_trail
    load_trail(path)
else:
    import yaml
    with path.open(encoding="utf-8") as handle:
        yaml.load(handle, Loader=yaml.CSafeLoader)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def bench_big_trail(runs: int) -> list[Figure]:
    """Peak memory to load a 5 MB trail (110,000 tool calls) with every position kept for
    messages, vs PyYAML's own C loader reading the same file into plain data."""

    def peak(reader: str, path: Path) -> float:
        out = subprocess.run(
            [sys.executable, "-c", _PEAK_RSS, reader, str(path)], env=env(), check=True, capture_output=True, text=True
        )
        return int(out.stdout.strip()) / 1024  # MB

    step = "  - step: Open the page\n    recording:\n      web:\n        - web_navigate: {url: /index.html}\n"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.trail.yaml"
        path.write_text("trail:\n" + step * (5 * 1024 * 1024 // len(step)), encoding="utf-8")
        ours, pyyaml = interleaved(runs, lambda: peak("trailblaze", path), lambda: peak("pyyaml", path))
    return [
        Figure("load a 5 MB trail: peak memory vs PyYAML's CSafeLoader", ours, pyyaml, "MB", "≤ 1.0×", ours <= pyyaml)
    ]


def bench_big_validate(runs: int) -> list[Figure]:
    import bigtrail

    return bigtrail.bench(runs)


BENCHES: dict[str, tuple[Callable[[int], list[Figure]], int]] = {
    "startup": (bench_startup, 15),
    "web": (bench_web, 3),
    "workers": (bench_workers, 3),
    "evidence": (bench_evidence, 5),
    "engine": (bench_engine, 3),
    "registry": (bench_registry, 7),
    "android": (bench_android, 60),
    "appium": (bench_appium, 60),
    "mcp-connect": (bench_mcp_connect, 5),
    "mcp-call": (bench_mcp_call, 5),
    "mcp-multi-device": (bench_mcp_multi_device, 3),
    "scripted": (bench_scripted, 7),
    "mcp-server-startup": (bench_mcp_server_startup, 11),
    "mcp-server-call": (bench_mcp_server_call, 5),
    "mcp-server-ref": (bench_mcp_server_ref, 5),
    "mcp-tokens": (bench_mcp_tokens, 1),
    "mcp-first-list": (bench_mcp_first_list, 11),
    "mcp-replies": (bench_mcp_replies, 3),
    "mcp-exit": (bench_mcp_exit, 5),
    "xdist": (bench_xdist, 2),
    "remote-browser": (bench_remote_browser, 2),
    "peers": (bench_peers, 3),
    "big-trail": (bench_big_trail, 1),
    "big-validate": (bench_big_validate, 3),
}


def recorded() -> dict[str, dict[str, Any]]:
    """The figures last kept with ``--record``, by name (none when the file is not there)."""
    if not RECORDED.is_file():
        return {}
    return {entry["name"]: entry for entry in json.loads(RECORDED.read_text(encoding="utf-8"))}


def against_record(figure: Figure, last: dict[str, Any] | None) -> tuple[str, bool]:
    """How ``figure``'s ratio (or difference) compares with the recorded one, and whether it regressed."""
    if figure.allowance is not None:
        return _against_recorded_difference(figure, last)
    if last is None or not last.get("ratio"):
        return "not recorded before", False
    change = figure.ratio / last["ratio"] - 1
    regressed = figure.ratio > last["ratio"] * REGRESSION
    return f"recorded {last['ratio']:.2f}× ({change:+.0%}){' REGRESSED' if regressed else ''}", regressed


def _against_recorded_difference(figure: Figure, last: dict[str, Any] | None) -> tuple[str, bool]:
    """A difference goal's figure: regressed when its difference grew by more than 10% of the
    recorded difference or of the allowed one, whichever is larger."""
    if last is None or not isinstance(last.get("difference"), int | float):
        return "not recorded before", False
    before: float = last["difference"]
    assert figure.allowance is not None
    slack = (REGRESSION - 1) * max(abs(before), figure.allowance)
    regressed = figure.difference > before + slack
    change = f"{figure.difference - before:+.3f} {figure.unit}"
    return f"recorded {before:+.3f} {figure.unit} ({change}){' REGRESSED' if regressed else ''}", regressed


def record(figures: list[Figure], kept: dict[str, dict[str, Any]]) -> None:
    """Keep ``figures`` as the last recorded ones (the others recorded before stay)."""
    now = time.strftime("%Y-%m-%d", time.gmtime())
    for f in figures:
        entry = {key: value for key, value in asdict(f).items() if value is not None}
        if f.allowance is not None:
            entry["difference"] = round(f.difference, 4)
        kept[f.name] = {**entry, "ratio": round(f.ratio, 4), "date": now, "load": round(os.getloadavg()[0], 1)}
    entries = sorted(kept.values(), key=lambda e: str(e["name"]))
    RECORDED.write_text(json.dumps(entries, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", choices=[*BENCHES, []], help="benchmarks to run (default: all)")
    parser.add_argument("--runs", type=int, help="repetitions (default: per benchmark)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--record", action="store_true", help=f"keep the figures in {RECORDED.relative_to(ROOT)}")
    args = parser.parse_args()
    figures: list[Figure] = []
    last = recorded()
    regressions: list[str] = []
    for name in args.names or list(BENCHES):
        bench, default_runs = BENCHES[name]
        for figure in bench(args.runs or default_runs):
            figures.append(figure)
            mark = "ok " if figure.ok else "MISS"
            compared, regressed = against_record(figure, last.get(figure.name))
            if regressed:
                regressions.append(figure.name)
            print(
                f"{mark} {figure.name}: {figure.measured:.3f} {figure.unit} vs {figure.baseline:.3f} "
                f"= {figure.outcome()} (goal {figure.goal}; {compared})",
                flush=True,
            )
    if regressions:
        print(f"{len(regressions)} more than {REGRESSION - 1:.0%} worse than recorded: {'; '.join(regressions)}")
    if args.json:
        args.json.write_text(json.dumps([{**asdict(f), "ratio": f.ratio} for f in figures], indent=2) + "\n")
    if args.record:
        record(figures, last)
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
