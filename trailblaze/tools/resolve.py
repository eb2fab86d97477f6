"""Delegation, resolved by Trailblaze (seed 000, "Core Recording Principle").

Trailblaze is always the invoker. A delegating tool returns delegates instead of acting; the
:class:`Resolver` checks them against their tools' schemas, then executes them in order,
recursively, until only executable tools remain. Each executable call is reported with the
chain of delegating tools that produced it (``delegated_from``), and the recordable ones are
what a recording of the step consists of, so replay invokes exactly those again.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from trailblaze.core.errors import ExitCode, Location, Status, ToolFailure, TrailblazeError, UsageError
from trailblaze.core.interpolate import Reference, has_references, resolver, substitute
from trailblaze.core.limits import shorten
from trailblaze.device import masking
from trailblaze.device.commands import DelegationViolation
from trailblaze.tools.model import (
    Delegate,
    ToolArgumentError,
    ToolCall,
    ToolContext,
    ToolOutcome,
    ToolSpec,
    strip_reason,
)
from trailblaze.tools.registry import ToolRegistry

MAX_DELEGATION_DEPTH = 16


class CallFailed(Exception):
    """A tool call ended the step. ``status`` is "failed" (a check did not hold) or "error"."""

    def __init__(self, message: str, status: Status = "failed", exit_code: ExitCode = ExitCode.FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.exit_code = exit_code

    @classmethod
    def error(cls, message: str, exit_code: ExitCode = ExitCode.ERROR) -> CallFailed:
        return cls(message, "error", exit_code)


@dataclass(slots=True)
class ExecutedCall:
    """One executable (non-delegating) call as it ran; ``call`` holds the arguments to record."""

    call: ToolCall
    display_args: dict[str, Any]
    delegated_from: tuple[str, ...]
    recordable: bool
    status: Status = "passed"
    #: a read-only query: not recorded, and a replay loses nothing without it
    query: bool = False
    #: neither recordable nor a query, and not covered by an executable tool's own recording:
    #: no recording can hold it, so only an agent can redo it (seed 000, "Replay Modes")
    needs_agent: bool = False
    duration_ms: float = 0.0
    error: str | None = None
    output: Any = None


Invoke = Callable[[ToolSpec, ToolContext, Mapping[str, Any]], Awaitable[ToolOutcome]]
MakeContext = Callable[[ToolSpec, ToolCall, bool], ToolContext]


@dataclass(slots=True)
class Resolver:
    """Executes tool calls for one session, expanding delegation.

    ``invoke`` runs one tool (the runner routes it through the ``trailblaze_tool_call`` hook);
    ``make_context`` builds the :class:`ToolContext` (query-only commands when delegating);
    ``on_executed`` receives each executable call when it finishes, passed or not.
    """

    registry: ToolRegistry
    invoke: Invoke
    make_context: MakeContext
    memory: dict[str, Any]
    environ: Mapping[str, str]
    arg_values: Mapping[str, Any] = field(default_factory=dict)
    on_executed: Callable[[ExecutedCall], None] | None = None
    max_depth: int = MAX_DELEGATION_DEPTH
    #: values reports must not show: the ``${ENV}`` values calls used and their secret arguments
    secrets: set[str] = field(default_factory=set)

    async def run(self, call: ToolCall, chain: tuple[str, ...] = (), *, nested: bool = False) -> Any:
        """Execute ``call`` (and whatever it delegates to); raise :class:`CallFailed` on failure.
        Returns what an executable tool returned (None for a delegating one). ``nested``: the
        call comes from a running tool (``ctx.run_tool``), which may run the same tool again
        (with other arguments), so only the depth is bounded, not repeats."""
        spec = self._lookup(call, chain, nested=nested)
        exec_args = self._interpolate(call, chain)
        self._keep_secret(*(exec_args.get(key) for key in spec.secret_fields))
        try:
            self._validate(spec, exec_args, call, chain)
            if spec.metadata.delegating:
                await self._delegate(spec, call, exec_args, chain)
                return None
            return await self._execute(spec, call, exec_args, chain)
        except CallFailed as exc:
            exc.message = shorten(self.redact(exc.message))
            raise

    def _keep_secret(self, *values: Any) -> None:
        masking.keep(self.secrets, *values)

    def redact(self, text: str) -> str:
        """``text`` with every secret seen so far replaced by ``***`` (error messages may quote
        what a tool was given or read back: a page's text, a field's value)."""
        return masking.redact(text, self.secrets)

    # -- steps of run() ------------------------------------------------------------------------

    def _lookup(self, call: ToolCall, chain: tuple[str, ...], *, nested: bool = False) -> ToolSpec:
        path = " → ".join((*chain, call.name))
        if call.name in chain and not nested:
            raise CallFailed.error(f"delegation cycle: {path}", ExitCode.USAGE)
        if len(chain) >= self.max_depth:
            if nested:
                raise CallFailed.error(
                    f"tool calls nested deeper than {self.max_depth} levels: {path} (a tool that runs tools by "
                    f"name must not run itself without end)",
                    ExitCode.USAGE,
                )
            raise CallFailed.error(f"delegation deeper than {self.max_depth} levels: {path}", ExitCode.USAGE)
        spec = self.registry.get(call.name)
        if spec is None:
            via = f" (delegated by {' → '.join(chain)})" if chain else ""
            raise CallFailed.error(f"unknown tool {call.name!r}{via}", ExitCode.USAGE)
        return spec

    def _interpolate(self, call: ToolCall, chain: tuple[str, ...]) -> dict[str, Any]:
        args = strip_reason(call.args)
        if not has_references(args):
            return args
        missing: list[Reference] = []
        lookup = resolver(self.arg_values, self.memory, self.environ)

        def tracking(ref: Reference) -> tuple[bool, Any]:
            found = lookup(ref)
            if not found[0]:
                missing.append(ref)
            elif ref.namespace == "env":
                self._keep_secret(found[1])
            return found

        resolved = substitute(args, tracking)
        if missing:
            names = ", ".join(sorted({r.text for r in missing}))
            known = ", ".join(sorted(self.memory)) or "nothing yet"
            raise CallFailed(f"{call.name}: {names} not set (memory holds: {known})")
        return dict(resolved)

    def _validate(self, spec: ToolSpec, args: Mapping[str, Any], call: ToolCall, chain: tuple[str, ...]) -> None:
        try:
            spec.implementation.validate(args)
        except ToolArgumentError as exc:
            via = f" (delegated by {' → '.join(chain)})" if chain else ""
            raise CallFailed.error(f"{exc}{via}", ExitCode.USAGE) from None

    async def _delegate(self, spec: ToolSpec, call: ToolCall, args: dict[str, Any], chain: tuple[str, ...]) -> None:
        outcome = await self._invoke(spec, call.with_args(args), chain)
        delegates = outcome.delegates or []
        inner = (*chain, spec.name)
        planned: list[ToolCall] = []
        for delegate in delegates:  # check them all before acting on any
            planned.append(self._plan(delegate, call.location, inner))
        for delegated in planned:
            await self.run(delegated, inner)

    def _plan(self, delegate: Delegate, location: Location | None, chain: tuple[str, ...]) -> ToolCall:
        delegated = ToolCall(delegate.tool, dict(delegate.args), location)
        spec = self._lookup(delegated, chain)
        self._validate(spec, strip_reason(delegated.args), delegated, chain)
        return delegated

    async def _execute(self, spec: ToolSpec, call: ToolCall, args: dict[str, Any], chain: tuple[str, ...]) -> Any:
        # ``call`` is recorded as written: a trail's templates stay templates, delegates are concrete
        chain_records = self._chain_records(chain)
        executed = ExecutedCall(
            call=call,
            display_args=self.display_args(spec, call),
            delegated_from=chain,
            recordable=spec.metadata.recordable and chain_records,
            query=spec.metadata.query,
            needs_agent=chain_records and not spec.metadata.recordable and not spec.metadata.query,
        )
        start = time.perf_counter()
        try:
            outcome = await self._invoke(spec, call.with_args(args), chain)
            if outcome.delegates:  # Trailblaze must be the invoker: delegates need a delegating tool
                raise CallFailed.error(
                    f"{spec.name} ({spec.source or 'unknown source'}) returned delegates but is not a delegating "
                    f"tool; mark it delegating (trailblaze/isDelegating) so they are executed and recorded",
                    ExitCode.USAGE,
                )
            executed.output = outcome.output
        except CallFailed as exc:
            exc.message = shorten(self.redact(exc.message))  # reports stay readable: a 20 MB error is cut
            executed.status = exc.status
            executed.error = exc.message
            raise
        finally:
            executed.duration_ms = (time.perf_counter() - start) * 1000
            if self.on_executed is not None:
                self.on_executed(executed)
        return executed.output

    def _chain_records(self, chain: tuple[str, ...]) -> bool:
        """Whether the calls of ``chain`` let this one be recorded: each is a delegating tool
        that lets its delegates be recorded. A call an executable tool ran by name is not: the
        executable tool's own call is what replay runs again."""
        for name in chain:
            outer = self.registry.get(name)
            if outer is not None and not (outer.metadata.delegating and outer.metadata.record_delegates):
                return False
        return True

    async def _run_nested(
        self, chain: tuple[str, ...], location: Location | None, name: str, args: Mapping[str, Any]
    ) -> Any:
        """``ctx.run_tool``: a failure is raised as tools raise theirs, so the calling tool can
        catch it (a probe) or let it fail its own call."""
        try:
            return await self.run(ToolCall(name, dict(args), location), chain, nested=True)
        except CallFailed as exc:
            if exc.status == "failed":
                raise ToolFailure(exc.message) from None
            raise (UsageError if exc.exit_code == ExitCode.USAGE else TrailblazeError)(exc.message) from None

    async def _invoke(self, spec: ToolSpec, call: ToolCall, chain: tuple[str, ...]) -> ToolOutcome:
        ctx = self.make_context(spec, call, spec.metadata.delegating)
        ctx.run_tool = functools.partial(self._run_nested, (*chain, spec.name), call.location)
        try:
            return await self.invoke(spec, ctx, call.args)
        except (ToolFailure, AssertionError) as exc:
            raise CallFailed(f"{spec.name}: {_text(exc) or 'assertion failed'}") from None
        except DelegationViolation as exc:
            raise CallFailed.error(str(exc)) from None
        except CallFailed:
            raise
        except TrailblazeError as exc:
            raise CallFailed.error(f"{spec.name}: {exc}", exc.exit_code) from None
        except ToolArgumentError as exc:
            raise CallFailed.error(str(exc), ExitCode.USAGE) from None
        except NotImplementedError as exc:
            raise CallFailed.error(f"{spec.name}: {_text(exc) or 'not supported here'}", ExitCode.USAGE) from None
        except Exception as exc:
            raise CallFailed.error(
                f"{spec.name} ({spec.source or 'unknown source'}) raised {type(exc).__name__}: {_text(exc)}"
            ) from exc

    def display_args(self, spec: ToolSpec, call: ToolCall) -> dict[str, Any]:
        """Arguments as reports show them: args and memory filled in, ``${ENV}`` and secrets hidden
        (also where a delegating tool passed a secret on as a plain value)."""
        shown = substitute(strip_reason(call.args), resolver(self.arg_values, self.memory, None))
        return {k: masking.MASK if k in spec.secret_fields else self._redact_value(v) for k, v in dict(shown).items()}

    def _redact_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {k: self._redact_value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._redact_value(v) for v in value]
        return value


def _text(exc: BaseException) -> str:
    return " ".join(str(exc).split()) if str(exc) else ""
