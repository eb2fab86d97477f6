"""Lines from stdin, awaited without blocking the loop."""

from __future__ import annotations

import asyncio
import io
import os

from trailblaze.agents.terminal_input import LineReader


def test_lines_arrive_in_order_and_the_end_of_input_is_none() -> None:
    reader = LineReader(io.StringIO("first\nsecond\r\n"))

    async def read_all() -> list[str | None]:
        return [await reader.readline() for _ in range(4)]

    assert asyncio.run(read_all()) == ["first", "second", None, None]


def test_a_line_is_not_lost_when_a_reader_gives_up_waiting() -> None:
    read_end, write_end = os.pipe()
    stream = os.fdopen(read_end, "r")
    reader = LineReader(stream)

    async def scenario() -> str | None:
        waiting = asyncio.ensure_future(reader.readline())
        await asyncio.sleep(0.05)
        waiting.cancel()  # Ctrl-C while the agent waits for the person
        os.write(write_end, b"done\n")
        await asyncio.sleep(0.05)
        return await asyncio.wait_for(reader.readline(), 5)

    try:
        assert asyncio.run(scenario()) == "done"
    finally:
        os.close(write_end)  # the end of input lets the reading thread finish
        reader._thread.join(5)
        stream.close()
