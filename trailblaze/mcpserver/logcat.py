"""``logcat(action=QUERY|ASSERT)``: what an Android app logged, which the screen does not show —
analytics events, a request that failed, a crash (upstream's tool, its actions and arguments).

The log is read from the device (``logcat -d``) from the moment the device was connected on, so
lines of an earlier run on the same phone never match; like upstream, that moment is the
computer's clock, which an emulator and a phone on the network share. ``pattern`` is a regex in
Java's syntax, as everywhere in trailblaze, searched in each line (time-bounded, as selectors
are); ``tag`` keeps the lines of one log tag. QUERY returns the matching lines (the first
``limit``, 50 by default) and how many there are; ASSERT returns ``passed`` — a check that does
not hold is an answer, not an error. A log the device cannot dump (no ``logcat`` on it, an
option it refuses) is an error naming what the device said, never lines to match. Neither is
recorded: a trail cannot replay them.

The tool is offered while an Android device is connected.
"""

from __future__ import annotations

import re
from typing import Any

from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import compile_search
from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver.calls import Call, Reply, ToolError

DEFAULT_LIMIT = 50
#: a line's priority letter, then its tag (``1700000000.123  4242  4242 I MyTag   : text``)
_PRIORITIES = "VDIWEF"


async def logcat(call: Call, arguments: dict[str, Any]) -> Reply:
    try:
        args: A.LogcatArgs = A.parse(A.LogcatArgs, arguments)
    except ValueError as exc:
        raise ToolError(f"invalid arguments: {exc}") from None
    device = call.state.device
    if device is None or device.session is None:
        raise ToolError("logcat reads an Android device's log: connect one first with device(action=ANDROID)")
    commands = device.live.device
    if device.platform != "android" or not hasattr(commands, "log_lines"):
        raise ToolError(f"logcat reads an Android device's log; the connected device is {device.driver_key}")
    try:
        pattern = compile_search(args.pattern)
    except ValueError as exc:
        raise ToolError(f"pattern: {exc}") from None
    async with call.state.lock:
        try:
            lines: list[str] = await commands.log_lines(device.opened_at)
        except ToolFailure as exc:  # no log to search: an error, never the shell's message as lines
            raise ToolError(str(exc)) from None
    if args.tag is not None:
        tagged = re.compile(rf"\s[{_PRIORITIES}]\s+{re.escape(args.tag)}\s*:")
        lines = [line for line in lines if tagged.search(line)]
    try:
        matched = [line for line in lines if pattern.search(line)]
    except ToolFailure as exc:  # the pattern took too long on a line
        raise ToolError(str(exc)) from None
    if args.action is A.LogcatAction.QUERY:
        limit = args.limit or DEFAULT_LIMIT
        found = f"{len(matched)} matching line{'' if len(matched) == 1 else 's'}"
        shown = f" (the first {limit})" if len(matched) > limit else ""
        return Reply(
            {
                "matches": matched[:limit],
                "totalMatches": len(matched),
                "message": f"{found}{shown}" if matched else f"no line matches {args.pattern!r}",
            }
        )
    what = args.message or f"a line matches {args.pattern!r}"
    passed = bool(matched)
    return Reply(
        {
            "passed": passed,
            "matchedLine": matched[0] if matched else None,
            "totalMatches": len(matched),
            "message": f"PASSED: {what}" if passed else f"FAILED: {what} (no line of the log matches)",
        }
    )
