"""An agent's run on one step, written down (:mod:`trailblaze.api.agentlog`): used by ``record``,
``run --self-heal`` and ``trailblaze mcp``'s ``step``/``runPrompt``.

The agent works through its task; its iterations and LLM completions are written by the agent,
each tool execution by the task, and the run's record here, last — also when the agent raised
(``status: error`` with the kind of error) or was interrupted. After the run a screenshot of the
screen as the agent left it is kept beside the log (``agent-<run>.png``), best effort within
:data:`~trailblaze.runner.evidence.CAPTURE_TIMEOUT`: the agent view of the HTML report shows it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.agentlog import FILE_NAME, AgentLog

if TYPE_CHECKING:
    from trailblaze.api.agent import Agent, StepTask, Verdict
    from trailblaze.api.session import Session


def new_log(
    folder: Path | None, session: Session, task: StepTask, agent: Agent, *, strategy: str = "DIRECT"
) -> AgentLog:
    """The log of ``agent``'s run on ``task``, in ``folder`` (None: counted, not written), given
    to the task so the agent writes into it."""
    log = AgentLog(
        folder / FILE_NAME if folder is not None else None,
        secrets=session.secrets,
        objective=task.text,
        step=task.label,
        agent=agent.name,
        strategy="MCP_SAMPLING" if strategy == "MCP_SAMPLING" else "DIRECT",
    )
    task.log = log
    return log


async def solve_logged(agent: Agent, task: StepTask, session: Session) -> tuple[Verdict, dict[str, Any]]:
    """``agent.solve(task)``, and the run's record written to ``task.log`` (returned with the
    verdict, for metrics)."""
    log = task.log
    try:
        verdict = await agent.solve(task)
    except BaseException as exc:
        log.finish(status="error", explanation=_message(exc), error_kind=error_kind(exc))
        raise
    screenshot = await _screenshot(log, session)
    kind = None if verdict.status == "complete" else verdict.error_kind or verdict.status
    record = log.finish(
        status=verdict.status,
        explanation=verdict.explanation,
        error_kind=kind,
        model=verdict.usage.model,
        screenshot=screenshot,
    )
    return verdict, record


def error_kind(exc: BaseException) -> str:
    """The kind of error an agent run ended with, as the metrics count it."""
    from trailblaze.core.errors import InfrastructureError, UsageError

    if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
        return "interrupted"
    if isinstance(exc, UsageError):
        return "misuse"
    if isinstance(exc, InfrastructureError):
        return "infrastructure"
    return type(exc).__name__


def _message(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


async def _screenshot(log: AgentLog, session: Session) -> str | None:
    """The screen as the agent left it, saved beside the log; its name, or None."""
    if log.path is None:
        return None
    from trailblaze.core.fileio import write_whole
    from trailblaze.runner.evidence import CAPTURE_TIMEOUT

    try:
        screen = await asyncio.wait_for(session.device.capture_screen(), CAPTURE_TIMEOUT)
        if not screen.screenshot:
            return None
        jpeg = screen.screenshot[:3] == b"\xff\xd8\xff"
        name = f"agent-{log.run}.{'jpg' if jpeg else 'png'}"
        write_whole(log.path.parent / name, screen.screenshot)
    except (Exception, TimeoutError):  # a screenshot is best effort: the run's record stands without it
        return None
    return name
