"""Run tool calls on a session: the context each call gets, the hook that runs it, its report.

Its own module so that replay, healing and the agent's steps all use it without importing one
another: the replay hands it the way to run an inline trail (``runTrail``) instead of being imported.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

from trailblaze.api.results import ToolReport
from trailblaze.api.session import Session
from trailblaze.core.errors import TrailblazeError
from trailblaze.core.pathnames import path_component
from trailblaze.device.commands import Commands, QueryOnlyCommands
from trailblaze.tools.model import ToolCall, ToolContext, ToolOutcome, ToolSpec
from trailblaze.tools.resolve import ExecutedCall, Resolver
from trailblaze.trail.model import Trail


class ToolRunner:
    """Runs tool calls of one trail on a session: contexts, the hook, reports."""

    def __init__(
        self,
        session: Session,
        trail: Trail,
        timeout: float,
        on_report: Callable[[ToolReport], None] | None = None,
        run_trail: Callable[[str], Awaitable[str]] | None = None,
    ) -> None:
        self.session = session
        self.trail = trail
        self.timeout = timeout
        self.on_report = on_report
        #: runs another trail's recordings inside a call (``runTrail``); the replay supplies it
        self.run_trail = run_trail
        #: receives each executable call with the arguments to record (the recorder listens here)
        self.on_executed: Callable[[ExecutedCall], None] | None = None
        self.hook = session.run.project.hook
        self.resolver = Resolver(
            registry=session.registry,
            invoke=self._invoke,
            make_context=self._context,
            memory=session.memory,
            environ=os.environ,
            arg_values=trail.arg_values,
            on_executed=self._executed,
            secrets=session.secrets,
        )

    async def run(self, call: ToolCall) -> None:
        await self.resolver.run(call)

    async def _invoke(self, spec: ToolSpec, ctx: ToolContext, args: Any) -> ToolOutcome:
        awaitable = self.hook.trailblaze_tool_call(call=ctx.call, ctx=ctx)
        if awaitable is None:
            raise TrailblazeError(f"no plugin ran the call to {spec.name} (is the core_tools plugin blocked?)")
        outcome: ToolOutcome = await awaitable
        return outcome

    def _context(self, spec: ToolSpec, call: ToolCall, delegating: bool) -> ToolContext:
        session = self.session
        device = session.device
        return ToolContext(
            # the query-only proxy answers as Commands does (its actions refuse)
            commands=cast(Commands, QueryOnlyCommands(device, spec.name)) if delegating else device,
            driver=device,
            device=session.info,
            memory=session.memory,
            session_id=session.id,
            invocation_id=f"inv-{uuid.uuid4().hex[:16]}",
            tool=spec,
            call=call,
            timeout=self.timeout,
            trail_path=self.trail.path,
            base_url=device.base_url,
            artifacts_dir=_artifacts_for(session, self.trail),
            mark_broken=session.mark_broken,
            app_target=session.app_target,
            secrets=session.secrets,
            session=session,
            run_trail=self.run_trail,
        )

    def _executed(self, executed: ExecutedCall) -> None:
        if self.on_executed is not None:
            self.on_executed(executed)
        report = ToolReport(
            name=executed.call.name,
            args=executed.display_args,
            status=executed.status,
            duration_ms=executed.duration_ms,
            delegated_from=list(executed.delegated_from),
            recordable=executed.recordable,
            error=executed.error,
        )
        if self.on_report is not None:
            self.on_report(report)
        self.hook.trailblaze_tool_report(report=report, session=self.session)


def _artifacts_for(session: Session, trail: Trail) -> Path | None:
    root = session.run.options.artifacts_dir
    if root is None:
        return None
    return root / path_component(trail.id)
