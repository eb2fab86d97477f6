"""A command's event loop, made before the command needs it, so slow starts can begin early.

Starting Playwright's Node.js driver takes about half a second, and so does Trailblaze's own
start-up before a run knows its plan (importing, loading plugins, reading trailblaze.yaml and
the trails). The two can overlap: the CLI starts the driver on this loop as soon as it sees
``trailblaze run`` (:mod:`trailblaze.drivers.web.early`), goes on with its start-up while Node
boots, and the run then goes on on the same loop (:func:`run`, which ``run_trails`` uses in
place of :func:`asyncio.run`), where the driver takes what was started.

Work started early is *registered* under a key (a driver's key): once the plan is known, the
runner keeps only what it will use (:func:`keep_only`); whatever nobody took is stopped when the
loop closes, and :func:`close` at the end of the command closes a loop no run used (a plan
that failed, ``--help``). Nothing started here outlives the command.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

#: the loop made early, until a run takes it (asyncio is imported only then: `--help` does not)
_pending: asyncio.Runner | None = None
#: what was started early on it, by key: how to stop it when nobody uses it
_early: dict[str, Callable[[], Awaitable[None]]] = {}


def early_runner() -> asyncio.Runner:
    """The loop the next :func:`run` will use, made now if there is none."""
    import asyncio

    global _pending
    if _pending is None:
        _pending = asyncio.Runner()
    return _pending


def started_early(key: str, stop: Callable[[], Awaitable[None]]) -> None:
    """Register work started on :func:`early_runner`'s loop; ``stop`` ends it if unused."""
    _early[key] = stop


def has_early_work() -> bool:
    """Whether anything was started early and is not taken yet."""
    return bool(_early)


def taken(key: str) -> None:
    """The work started early under ``key`` is in use now: its user stops it."""
    _early.pop(key, None)


async def keep_only(keys: Iterable[str]) -> None:
    """Stop the early work the plan has no use for (``keys``: what it uses)."""
    wanted = set(keys)
    for key in [k for k in _early if k not in wanted]:
        await _early.pop(key)()


async def _stop_all() -> None:
    while _early:
        _, stop = _early.popitem()
        with contextlib.suppress(Exception):  # stopping what nobody used must not hide the command's outcome
            await stop()


def run(main: Coroutine[Any, Any, T]) -> T:
    """:func:`asyncio.run`, on the loop made early when there is one: what was started early
    and not taken is stopped before the loop closes."""
    import asyncio

    global _pending
    runner, _pending = (_pending or asyncio.Runner()), None
    with runner:
        try:
            return runner.run(main)
        finally:
            runner.run(_stop_all())


def close() -> None:
    """The command is over: stop what was started early, and close a loop no run used."""
    global _pending
    runner, _pending = _pending, None
    if runner is None:
        _early.clear()
        return
    with runner:
        runner.run(_stop_all())
