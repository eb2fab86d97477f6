"""Blocking client calls off the event loop: one thread and one lock per device.

uiautomator2 and facebook-wda are synchronous libraries. Every call a device makes goes through
its :class:`DeviceWorker`, so the engine's event loop keeps serving other sessions (and MCP
servers) while a device works, and calls on one device never interleave — a device is a single
touch screen, and neither client library is safe to use from two threads at once. Devices do not
share workers, so several devices run truly in parallel.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class DeviceWorker:
    def __init__(self, name: str) -> None:
        self.name = name
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"trailblaze-{name}")
        self._lock = threading.Lock()
        self._closed = False

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` on the device's thread and wait for its result."""
        if self._closed:
            raise RuntimeError(f"the worker for {self.name} is closed")
        loop = asyncio.get_running_loop()
        call = functools.partial(fn, *args, **kwargs)
        return await loop.run_in_executor(self._executor, self._locked, call)

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn`` right here, holding the device's lock (for code already off the loop)."""
        with self._lock:
            return fn(*args, **kwargs)

    def _locked(self, call: Callable[[], T]) -> T:
        with self._lock:
            return call()

    def close(self) -> None:
        """Stop taking calls; a call in flight finishes on its own (its client has a timeout)."""
        self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
