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

from figures import Figure, at_most  # noqa: E402 - beside this file, on sys.path as the script's folder

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
    return [str(PLAYWRIGHT_MCP), "--headless", "--executable-path", chromium, "--isolated"]


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


if __name__ == "__main__":
    for figure in [*bench_tokens(1), *bench_first_list(11)]:
        print(figure.line())
