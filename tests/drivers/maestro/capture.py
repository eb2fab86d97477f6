"""A test plugin that keeps what each tool call returned (results report status, not output)."""

from __future__ import annotations

from collections.abc import Awaitable, Generator
from typing import Any

import trailblaze

OUTPUTS: list[tuple[str, Any]] = []


@trailblaze.hookimpl(wrapper=True)
def trailblaze_tool_call(call: Any, ctx: Any) -> Generator[None, Awaitable[Any], Awaitable[Any]]:
    invocation = yield

    async def keep() -> Any:
        outcome = await invocation
        OUTPUTS.append((call.name, outcome.output))
        return outcome

    return keep()
