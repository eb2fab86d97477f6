"""Playwright's Node.js driver, started while Trailblaze is still starting up.

``trailblaze run`` of web trails spends about half a second before it knows its plan, and
Playwright's driver (a Node.js process) about as long to boot. The CLI calls :func:`start` as it
sees ``run`` (:mod:`trailblaze.cli.main`): the driver is spawned on the command's early loop
(:mod:`trailblaze.core.aio`) and boots on another core while plugins load and trails are read.
The web driver then takes it (:func:`take`) instead of starting one.

When the plan has no web trail, or fails, or the run is interrupted, what was started is killed:
nothing waits for Node to finish booting, and no process outlives the command.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.core import aio
from trailblaze.drivers.web.browser import node_compile_cache

if TYPE_CHECKING:
    from playwright.async_api import Playwright

#: the key the early driver is registered under: the web driver's, written here because importing
#: the driver's module first would delay the spawn (a test keeps the two equal)
KEY = "playwright-native"
#: turns of the loop given to Playwright to spawn Node and send its first message (each a few
#: microseconds; the spawn is synchronous in the second or third)
_TURNS = 25
#: how long killing an unused driver may wait for it to exit
_KILL_WAIT_S = 5.0


@dataclass
class _Early:
    manager: Any
    task: asyncio.Task[Playwright]
    loop: asyncio.AbstractEventLoop
    #: Node's process, as asyncio spawned it (None if it was not seen: then it is stopped the slow way)
    process: asyncio.subprocess.Process | None


_early: _Early | None = None


def start() -> None:
    """Spawn Playwright's driver on the command's early loop, and return at once."""
    global _early
    if _early is not None:
        return
    from playwright.async_api import async_playwright

    runner = aio.early_runner()
    manager = async_playwright()
    _early = runner.run(_spawn(manager))
    aio.started_early(KEY, _discard)


async def _spawn(manager: Any) -> _Early:
    spawned: list[asyncio.subprocess.Process] = []
    create = asyncio.create_subprocess_exec

    async def seen(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        process = await create(*args, **kwargs)
        spawned.append(process)
        return process

    # the process is seen as asyncio makes it (for killing it when unused, without reaching into
    # Playwright); only for these few turns, while nothing else runs on this loop
    asyncio.create_subprocess_exec = seen
    try:
        with node_compile_cache():
            task = asyncio.ensure_future(manager.start())
            for _ in range(_TURNS):
                await asyncio.sleep(0)
    finally:
        asyncio.create_subprocess_exec = create
    return _Early(manager, task, asyncio.get_running_loop(), spawned[0] if len(spawned) == 1 else None)


async def take() -> tuple[Any, Playwright] | None:
    """The driver started early on this loop, as ``(manager, playwright)``; None if there is
    none (``run_trails`` called from Python, ``trailblaze mcp``, a second driver). Raises what
    the start raised."""
    global _early
    early = _early
    if early is None or early.loop is not asyncio.get_running_loop():
        return None
    _early = None
    aio.taken(KEY)
    return early.manager, await early.task


async def _discard() -> None:
    """Nobody uses the early driver: kill Node at once (not waiting for it to boot)."""
    global _early
    early, _early = _early, None
    if early is None:
        return
    if early.process is not None and early.process.returncode is None:
        early.process.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(early.process.wait(), _KILL_WAIT_S)
    # the start ends with the driver gone (an error nobody needs), or, when the process was not
    # seen, with the driver up: then stop it as Playwright does
    try:
        playwright = await asyncio.wait_for(asyncio.shield(early.task), _KILL_WAIT_S)
    except asyncio.CancelledError:
        early.task.cancel()
        raise
    except Exception:
        early.task.cancel()
        return
    await playwright.stop()
