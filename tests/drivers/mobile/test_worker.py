"""One thread and one lock per device (trailblaze/drivers/mobile/worker.py)."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time

import pytest

from tests.standins.fixtures import run
from trailblaze.drivers.mobile.worker import DeviceWorker


def test_calls_on_one_device_never_overlap_and_leave_the_loop_free() -> None:
    worker = DeviceWorker("phone")
    spans: list[tuple[float, float, str]] = []

    def slow(label: str) -> str:
        start = time.monotonic()
        time.sleep(0.05)
        spans.append((start, time.monotonic(), threading.current_thread().name))
        return label

    async def main() -> tuple[list[str], int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        task = asyncio.create_task(ticker())
        results = await asyncio.gather(*(worker.run(slow, str(i)) for i in range(4)))
        task.cancel()
        return list(results), ticks

    try:
        results, ticks = run(main())
    finally:
        worker.close()
    assert results == ["0", "1", "2", "3"]
    spans.sort()
    assert all(earlier[1] <= later[0] for earlier, later in itertools.pairwise(spans))
    assert {name for _, _, name in spans} == {spans[0][2]}
    assert spans[0][2].startswith("trailblaze-phone")
    assert ticks >= 5


def test_two_devices_run_at_the_same_time() -> None:
    one, two = DeviceWorker("one"), DeviceWorker("two")
    barrier = threading.Barrier(2, timeout=2)

    async def main() -> list[int]:
        return list(await asyncio.gather(one.run(barrier.wait), two.run(barrier.wait)))

    try:
        assert sorted(run(main())) == [0, 1]  # both waited at the barrier at once
    finally:
        one.close()
        two.close()


def test_direct_calls_hold_the_same_lock_and_a_closed_worker_refuses() -> None:
    worker = DeviceWorker("phone")
    assert worker.call(lambda: worker._lock.locked()) is True
    worker.close()
    with pytest.raises(RuntimeError, match="closed"):
        run(worker.run(lambda: None))
