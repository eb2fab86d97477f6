"""The ``ask`` session tool: a question about the screen, answered from the view hierarchy (and by
the agent when one is set up).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from trailblaze.device.screen import render_screen
from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver import replies
from trailblaze.mcpserver.calls import (
    ECHO_CHARS,
    MAX_FULL_HIERARCHY,
    STANDARD_LINES,
    Call,
    Reply,
    ToolError,
    attach_screen,
    connected_device,
    parse_args,
    screen_summary,
)
from trailblaze.mcpserver.device_calls import cut
from trailblaze.mcpserver.settings import (
    Mode,
    ViewHierarchyVerbosity,
)
from trailblaze.mcpserver.step_tools import session_agent, usage_dict

if TYPE_CHECKING:
    from trailblaze.api.agent import Agent
    from trailblaze.device.commands import ViewNode


async def ask(call: Call, arguments: dict[str, Any]) -> Reply:
    """With trailblaze's agent (TRAILBLAZE_AS_AGENT), an answer about the screen; otherwise, or
    when that agent has no LLM, the screen itself, for the client's LLM to read. Never recorded."""
    args: A.AskArgs = parse_args(A.AskArgs, arguments)
    state = call.state
    verbosity = args.viewHierarchy
    async with state.lock:
        device = await connected_device(state)
        screen = await device.screen()
        summary = screen_summary(screen)
        state.last_screen = summary
        data: dict[str, Any] = {"question": cut(args.question, ECHO_CHARS)}
        agent: Agent | None = None
        note = "MCP_CLIENT_AS_AGENT: trailblaze calls no LLM; read the screen below to answer"
        if state.settings.mode is Mode.TRAILBLAZE_AS_AGENT:
            try:
                agent = await session_agent(call, device)
            except ToolError as exc:  # no LLM: the screen still answers the client's own
                note = f"no answer from trailblaze's agent: {exc}. Read the screen below to answer"
        if agent is not None:
            answer, usage = await agent.answer(args.question, summary)  # type: ignore[attr-defined]
            data["answer"] = answer
            data["agent"] = {"name": agent.name, **usage_dict(usage)}
        else:
            data["answer"] = None
            data["note"] = note
            if verbosity is None and state.settings.view_hierarchy_verbosity is not ViewHierarchyVerbosity.MINIMAL:
                verbosity = state.settings.view_hierarchy_verbosity  # MINIMAL is the screen below already
        reply = Reply(data, text=_screen_part(screen, summary, verbosity))
        if args.screenshot or args.includeScreenshot:
            await attach_screen(state, device, reply, screenshot=True, summary=False)
    return reply


def _screen_part(screen: ViewNode, summary: str, verbosity: ViewHierarchyVerbosity | None) -> str:
    """The screen once, at the verbosity asked for: the summary (MINIMAL), up to 1,000 lines
    (STANDARD), or every element with its attributes and bounds, as JSON (FULL)."""
    if verbosity is None or verbosity is ViewHierarchyVerbosity.MINIMAL:
        return replies.whole_screen(summary)
    if verbosity is ViewHierarchyVerbosity.STANDARD:
        return replies.whole_screen(render_screen(screen, STANDARD_LINES))
    text = json.dumps(screen.to_dict(), ensure_ascii=False)
    if len(text) > MAX_FULL_HIERARCHY:
        text = text[:MAX_FULL_HIERARCHY] + f"… ({len(text) - MAX_FULL_HIERARCHY} more characters left out)"
    return replies.FULL_HIERARCHY + text
