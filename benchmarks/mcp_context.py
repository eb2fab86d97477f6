"""What ``trailblaze mcp`` costs an agent before it does anything, beside ``@playwright/mcp`` (npm,
pinned in ``benchmarks/peers/package-lock.json``; ``make bench-peers``), measured in the same run:

* **tokens**: the ``tools/list`` an agent pays for on every turn — compact JSON of each tool's
  name, description and inputSchema, four characters a token — before a device is connected
  and after ``device(action=WEB)`` in each profile. Goal for the default profile after
  ``device(WEB)``: ≤ 1.5× @playwright/mcp's and ≤ 8,000 tokens. The other states are printed
  beside the same baseline, without a goal.
* **first tools/list**: from spawning the server to its answer to the first ``tools/list``
  (``initialize``, ``notifications/initialized``, ``tools/list`` written as a client does),
  interleaved with @playwright/mcp's: ≤ 1.2×. @playwright/mcp runs headless with the system
  Chromium (``--executable-path``), which it starts only at its first browser tool.
* **replies**: the characters an agent is sent for a task (``agent_tasks.py``: filtering,
  sorting and following links in datasette; logging in to Django's admin and adding a user),
  every ``tools/call`` result whole (as the server wrote it), vs @playwright/mcp's for the same
  task: ≤ 1.0×; the text alone (what a client shows its LLM) beside it, reported. And a click's
  whole reply vs its own text, the largest of the tasks' clicks: ≤ 1.3× (the screen is sent
  once).
* **exit**: from closing stdin, as a client leaving does, to the server's exit, after a task's
  first actions (a browser open) and with a 20 s wait still running, vs @playwright/mcp's after
  the same: at most 0.5 s, whatever the peer takes.

Run through ``benchmarks/run.py`` (``make bench``), or alone: ``python benchmarks/mcp_context.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import Figure, at_most, in_turn  # noqa: E402 - beside this file, on sys.path as the script's folder

PLAYWRIGHT_MCP = ROOT / "benchmarks" / "peers" / "node_modules" / ".bin" / "playwright-mcp"
PROFILES = ("MINIMAL", "DEFAULT", "STANDARD", "TESTING", "ALL")
TOKEN_CEILING = 8_000
OPENING = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _env() -> dict[str, str]:
    return {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}


def playwright_mcp() -> list[str]:
    """@playwright/mcp's command, headless on the system Chromium."""
    from trailblaze.drivers.web.browser import system_chromium

    if not PLAYWRIGHT_MCP.exists():
        raise SystemExit("@playwright/mcp is not installed: run `make bench-peers`")
    chromium = system_chromium()
    if chromium is None:
        raise SystemExit("no system Chromium for @playwright/mcp (see the README's browser section)")
    return [str(PLAYWRIGHT_MCP), "--headless", "--executable-path", chromium, "--isolated", "--no-sandbox"]


def trailblaze_mcp() -> list[str]:
    return [sys.executable, "-m", "trailblaze", "mcp"]


def tokens(tools: list[Any]) -> float:
    entries = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools]
    return sum(len(json.dumps(e, separators=(",", ":"), ensure_ascii=False)) for e in entries) / 4


# -- tokens --------------------------------------------------------------------------------------------


async def _trailblaze_tokens(folder: Path) -> dict[str, tuple[float, int]]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=trailblaze_mcp()[1:], cwd=str(folder), env=_env())
    out: dict[str, tuple[float, int]] = {}
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        tools = (await client.list_tools()).tools
        out["before a device"] = (tokens(tools), len(tools))
        result = await client.call_tool("device", {"action": "WEB"})
        if result.is_error:
            raise RuntimeError(f"device(WEB) failed: {result.content}")
        for profile in ("DEFAULT", *(p for p in PROFILES if p != "DEFAULT")):
            await client.call_tool("toolbox", {"action": "PROFILE", "profile": profile})
            tools = (await client.list_tools()).tools
            out[f"{profile} after device(WEB)"] = (tokens(tools), len(tools))
    return out


async def _playwright_tokens(folder: Path) -> tuple[float, int]:
    from mcp import Client, StdioServerParameters

    command = playwright_mcp()
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(folder), env=dict(os.environ))
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        tools = (await client.list_tools()).tools
        return tokens(tools), len(tools)


def bench_tokens(runs: int) -> list[Figure]:
    """Tokens are the same every run: one measurement of each."""
    with tempfile.TemporaryDirectory(prefix="tb-mcp-tokens-") as tmp:
        folder = Path(tmp)
        (folder / "trailblaze.yaml").write_text("base_url: sample-app\n", encoding="utf-8")
        ours = asyncio.run(_trailblaze_tokens(folder))
        theirs, their_tools = asyncio.run(_playwright_tokens(folder))
    figures = []
    for state, (measured, count) in ours.items():
        default = state.startswith("DEFAULT")
        goal = f"≤ 1.5× and ≤ {TOKEN_CEILING:,} tokens" if default else "report only"
        ok = measured <= theirs * 1.5 and measured <= TOKEN_CEILING if default else True
        name = f"tools/list tokens, {state} ({count} tools) vs @playwright/mcp ({their_tools} tools)"
        figures.append(Figure(name, measured, theirs, "tokens", goal, ok))
    return figures


# -- the first tools/list --------------------------------------------------------------------------------


def until_first_list(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Seconds from spawning ``command`` to its answer to the first ``tools/list``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(("\n".join(json.dumps(m) for m in OPENING) + "\n").encode())
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{command[0]} ended before answering tools/list")
            if json.loads(line).get("id") == 2:
                break
        elapsed = time.perf_counter() - start
    finally:
        proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    return elapsed


def bench_first_list(runs: int) -> list[Figure]:
    ours: list[float] = []
    theirs: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tb-mcp-first-") as tmp:
        folder = Path(tmp)
        (folder / "trailblaze.yaml").write_text("base_url: sample-app\n", encoding="utf-8")
        for _ in range(runs):  # interleaved: a load spike hits both sides alike
            ours.append(until_first_list(trailblaze_mcp(), folder, _env()))
            theirs.append(until_first_list(playwright_mcp(), folder, dict(os.environ)))
    measured, baseline = statistics.median(ours), statistics.median(theirs)
    return [
        at_most("spawn to the first tools/list answer: trailblaze mcp vs @playwright/mcp", measured, baseline, "s", 1.2)
    ]


# -- replies: the characters an agent is sent for a task -------------------------------------------------------


def bench_replies(runs: int) -> list[Figure]:
    """Each task ``runs`` times through each server, the medians. The characters vary a little:
    a reply after a click that opens a page shows it as it is then, and Django admin's widgets may
    still be arriving (the next reply shows them)."""
    from agent_tasks import APPLICATIONS

    figures: list[Figure] = []
    clicks: list[tuple[int, int]] = []
    for task in APPLICATIONS:
        ours, theirs = _task_runs(task, runs)
        clicks += [(reply.whole, len(reply.text)) for run in ours for name, reply in run.replies if name == "web_click"]
        for what, count, goal in (
            ("sent", "whole", "≤ 1.0×"),
            ("of text", "text", "reported: what a client shows its LLM"),
        ):
            measured = statistics.median(getattr(run, count) for run in ours)
            baseline = statistics.median(getattr(run, count) for run in theirs)
            name = f"{task} task, characters {what}: trailblaze mcp vs @playwright/mcp"
            figures.append(Figure(name, measured, baseline, "chars", goal, measured <= baseline or count == "text"))
    whole, text = max(clicks, key=lambda click: click[0] / click[1])
    name = "a click's whole reply vs its text, the largest of the tasks' (trailblaze mcp)"
    figures.append(at_most(name, whole, text, "chars", 1.3))
    return figures


def _task_runs(task: str, runs: int) -> tuple[list[Any], list[Any]]:
    """``task`` through trailblaze mcp and through @playwright/mcp, in turn, each run on an
    application of its own (the admin task adds a user only once)."""
    from agent_tasks import (
        APPLICATIONS,
        PlaywrightAgent,
        TrailblazeAgent,
        playwright_server,
        run_task,
        trailblaze_server,
    )

    ours: list[Any] = []
    theirs: list[Any] = []

    def through_trailblaze() -> None:
        with tempfile.TemporaryDirectory(prefix="tb-mcp-task-") as tmp, APPLICATIONS[task](Path(tmp)) as url:
            server = trailblaze_server(Path(tmp), url)
            ours.append(run_task(task, server, TrailblazeAgent(server)))

    def through_playwright() -> None:
        with tempfile.TemporaryDirectory(prefix="tb-mcp-task-") as tmp, APPLICATIONS[task](Path(tmp)) as url:
            server = playwright_server(Path(tmp), playwright_mcp())
            theirs.append(run_task(task, server, PlaywrightAgent(server, url)))

    for round_ in range(runs):
        in_turn(round_, through_trailblaze, through_playwright)
    return ours, theirs


# -- exit: from stdin closing to the server's exit --------------------------------------------------------------


EXIT_GOAL_S = 0.5


def bench_exit(runs: int) -> list[Figure]:
    """Interleaved: trailblaze mcp and @playwright/mcp, each after the datasette task's first two
    actions, and each with a 20 s wait running when stdin closes."""
    from agent_tasks import PlaywrightAgent, TrailblazeAgent, datasette, playwright_server, trailblaze_server

    samples: dict[str, list[float]] = {"ours": [], "theirs": [], "ours in a call": [], "theirs in a call": []}
    with tempfile.TemporaryDirectory(prefix="tb-mcp-exit-") as tmp:
        folder = Path(tmp)
        with datasette(folder) as url:

            def ours(in_a_call: bool) -> float:
                server = trailblaze_server(folder, url)
                agent = TrailblazeAgent(server)
                agent.navigate("/shop/orders")
                agent.click("link", "total")
                if in_a_call:
                    server.request_soon("tools/call", {"name": "web_wait", "arguments": {"seconds": 20}})
                return server.close()

            def theirs(in_a_call: bool) -> float:
                server = playwright_server(folder, playwright_mcp())
                agent = PlaywrightAgent(server, url)
                agent.navigate("/shop/orders")
                agent.click("link", "total")
                if in_a_call:
                    server.request_soon("tools/call", {"name": "browser_wait_for", "arguments": {"time": 20}})
                return server.close()

            steps = [
                lambda: samples["ours"].append(ours(False)),
                lambda: samples["theirs"].append(theirs(False)),
                lambda: samples["ours in a call"].append(ours(True)),
                lambda: samples["theirs in a call"].append(theirs(True)),
            ]
            for round_ in range(runs):
                in_turn(round_, *steps)
    median = {key: statistics.median(values) for key, values in samples.items()}
    return [
        Figure(
            f"stdin closed to exit{what}: trailblaze mcp vs @playwright/mcp",
            median[f"ours{key}"],
            median[f"theirs{key}"],
            "s",
            f"≤ {EXIT_GOAL_S} s",
            median[f"ours{key}"] <= EXIT_GOAL_S,
        )
        for key, what in (("", " after a session"), (" in a call", " with a call running"))
    ]


if __name__ == "__main__":
    for figure in [*bench_tokens(1), *bench_first_list(11), *bench_replies(1), *bench_exit(5)]:
        print(figure.line())
