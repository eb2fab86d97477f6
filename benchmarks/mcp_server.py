"""``trailblaze mcp``'s performance goals, each a ratio to a baseline measured in the same run.

* **call**: a primitive called through ``trailblaze mcp`` over stdio — the JSON-RPC round trip,
  argument checks, the resolver, the recording of the step, the screen after it for the reply —
  vs the same Playwright work in a plain async script (the click, then the page read as the
  reply reads it), 50 calls each: ≤ 1.2×. Both click the sample app's "Clear All" button in the
  same Chromium with the same flags. The same 50 clicks by ref (``e17``) through ``trailblaze
  mcp`` vs the plain script: ≤ 1.15×.
* **ref**: the same click by the ref the screen shows (``e17``) vs by the selector it is recorded
  as (``button "Clear All"``), both through ``trailblaze mcp``, 50 calls each: ≤ 1.15×. A ref
  costs turning it into a stable selector (one evaluation in the page) before the call runs.
* **startup**: from spawning ``trailblaze mcp`` to its ``initialize`` reply vs a bare SDK server
  that does nothing (``MCPServer("bare").run()``): ≤ 1.3×. Drivers, plugins' tools and the
  session machinery load after the handshake.

Run through ``benchmarks/run.py`` (``make bench``), or alone: ``python benchmarks/mcp_server.py``.
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

CALLS = 50
BUTTON = "#clear"
BARE_SERVER = 'from mcp.server.mcpserver import MCPServer\nMCPServer("bare").run()\n'
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def _env() -> dict[str, str]:
    return {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}


# -- startup -----------------------------------------------------------------------------------------


def until_initialized(command: list[str], cwd: Path) -> float:
    """Seconds from spawning ``command`` to its answer to ``initialize`` on stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=cwd, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(30)
    proc.stdout.close()
    if b'"result"' not in line:
        raise RuntimeError(f"{command} did not answer initialize: {line!r}")
    return elapsed


def bench_startup(runs: int) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="tb-mcp-start-") as tmp:
        folder = Path(tmp)
        (folder / "trailblaze.yaml").write_text("base_url: sample-app\n", encoding="utf-8")
        (folder / "bare.py").write_text(BARE_SERVER, encoding="utf-8")
        ours: list[float] = []
        bare: list[float] = []
        for _ in range(runs):
            ours.append(until_initialized([sys.executable, "-m", "trailblaze", "mcp"], folder))
            bare.append(until_initialized([sys.executable, str(folder / "bare.py")], folder))
    measured, baseline = statistics.median(ours), statistics.median(bare)
    return [at_most("spawn to initialize reply: trailblaze mcp vs a bare SDK server", measured, baseline, "s", 1.3)]


# -- a primitive -------------------------------------------------------------------------------------


async def through_mcp(rounds: int) -> list[float]:
    """Seconds for ``CALLS`` web_click calls through ``trailblaze mcp`` (stdio), per round."""
    from mcp import Client, StdioServerParameters

    with tempfile.TemporaryDirectory(prefix="tb-mcp-call-") as tmp:
        (Path(tmp) / "trailblaze.yaml").write_text("base_url: sample-app\n", encoding="utf-8")
        params = StdioServerParameters(command=sys.executable, args=["-m", "trailblaze", "mcp"], cwd=tmp, env=_env())
        times: list[float] = []
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            await _ok(client.call_tool("device", {"action": "WEB"}))
            await _ok(client.call_tool("web_navigate", {"url": "/forms.html"}))
            args = {"nodeSelector": {"web": {"cssSelector": BUTTON}}}
            await _ok(client.call_tool("web_click", args))  # warm up
            for _ in range(rounds):
                start = time.perf_counter()
                for _ in range(CALLS):
                    await _ok(client.call_tool("web_click", args))
                times.append(time.perf_counter() - start)
        return times


async def _ok(call: Any) -> Any:
    result = await call
    if result.is_error:
        raise RuntimeError(result.content[0].text)
    return result


async def by_ref_and_by_selector(rounds: int) -> tuple[list[float], list[float]]:
    """Seconds for ``CALLS`` web_click calls by ref, and as many by the selector the ref is
    recorded as, per round, in one ``trailblaze mcp`` session (interleaved rounds)."""
    import re

    from mcp import Client, StdioServerParameters

    with tempfile.TemporaryDirectory(prefix="tb-mcp-ref-") as tmp:
        (Path(tmp) / "trailblaze.yaml").write_text("base_url: sample-app\n", encoding="utf-8")
        params = StdioServerParameters(command=sys.executable, args=["-m", "trailblaze", "mcp"], cwd=tmp, env=_env())
        by_ref: list[float] = []
        by_selector: list[float] = []
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            await _ok(client.call_tool("device", {"action": "WEB"}))
            await _ok(client.call_tool("web_navigate", {"url": "/forms.html"}))
            answer = await _ok(client.call_tool("ask", {"question": "the Clear All button"}))
            screen = "\n".join(getattr(part, "text", "") for part in answer.content)
            found = re.search(r'button "Clear All" \[(e\d+)]', screen)
            if found is None:
                raise RuntimeError(f"no Clear All button on the screen:\n{screen}")
            ref_args = {"ref": found.group(1)}
            selector_args = {"nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Clear All"}}}
            for args in (ref_args, selector_args):  # warm up
                await _ok(client.call_tool("web_click", args))
            for _ in range(rounds):
                for args, times in ((ref_args, by_ref), (selector_args, by_selector)):
                    start = time.perf_counter()
                    for _ in range(CALLS):
                        await _ok(client.call_tool("web_click", args))
                    times.append(time.perf_counter() - start)
        return by_ref, by_selector


def bench_ref(runs: int) -> list[Figure]:
    ours, plain = asyncio.run(by_ref_and_by_selector(runs))
    measured, baseline = statistics.median(ours), statistics.median(plain)
    return [
        at_most(
            f"{CALLS} web_click calls by ref vs by the selector it is recorded as, through trailblaze mcp",
            measured,
            baseline,
            "s",
            1.15,
        )
    ]


async def plain_playwright(rounds: int) -> list[float]:
    """The same clicks in a plain Playwright script (the same browser, flags and page), each
    followed by reading the page as the MCP reply does."""
    from playwright.async_api import async_playwright

    from trailblaze.drivers.web.browser import CHROMIUM_ARGS, VIEWPORT, system_chromium
    from trailblaze.drivers.web.locators import read_page
    from trailblaze.drivers.web.sample_server import SampleAppServer

    server = SampleAppServer().start()
    try:
        async with async_playwright() as p:
            chromium = p.chromium
            executable = None if Path(chromium.executable_path).is_file() else system_chromium()
            browser = await chromium.launch(headless=True, args=list(CHROMIUM_ARGS), executable_path=executable)
            context = await browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
            page = await context.new_page()
            await page.goto(f"{server.url}/forms.html")
            button = page.locator(BUTTON)
            await button.click()
            times: list[float] = []
            for _ in range(rounds):
                start = time.perf_counter()
                for _ in range(CALLS):
                    await button.click(timeout=10_000)
                    await read_page(page)  # what a reply shows of the screen after the click
                times.append(time.perf_counter() - start)
            await browser.close()
            return times
    finally:
        server.stop()


def bench_call(runs: int) -> list[Figure]:
    ours: list[float] = []
    by_ref: list[float] = []
    plain: list[float] = []
    for _ in range(runs):  # interleaved: a load spike hits every side alike
        ours.extend(asyncio.run(through_mcp(1)))
        by_ref.extend(asyncio.run(by_ref_and_by_selector(1))[0])
        plain.extend(asyncio.run(plain_playwright(1)))
    baseline = statistics.median(plain)
    return [
        at_most(
            f"{CALLS} web_click calls through trailblaze mcp (stdio) vs the same Playwright clicks",
            statistics.median(ours),
            baseline,
            "s",
            1.2,
        ),
        at_most(
            f"{CALLS} web_click calls by ref through trailblaze mcp (stdio) vs the same Playwright clicks",
            statistics.median(by_ref),
            baseline,
            "s",
            1.15,
        ),
    ]


if __name__ == "__main__":
    for figure in [*bench_startup(9), *bench_call(5), *bench_ref(5)]:
        print(figure.line())
