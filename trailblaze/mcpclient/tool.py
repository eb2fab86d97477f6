"""An MCP server's tool as a Trailblaze tool: argument checks, the call, and what came back.

Every ``tools/call`` carries request ``_meta`` (seed 000): ``trailblazeInvocationId`` and
``trailblaze: {baseUrl, sessionId, invocationId, token, device: {id, platform, driver, width,
height, driverType, widthPixels, heightPixels}, capabilities}`` (the device under both our
names and upstream's). Trailblaze-aware tools — from ``script:`` entries, marked
``trailblaze/requiresContext``, or whose input schema names ``_trailblazeContext`` — also get
the session's ``memory`` and app ``target`` (``{id, displayName, appIds}``) in it, and seed
003's envelope as the reserved argument ``_trailblazeContext`` (memory + device). Other
servers never see an argument their schema does not declare, nor the memory.

A result carrying ``_trailblaze_delegates`` (in structured content, or as a JSON object in its
text) is delegation: the tool must be marked ``trailblaze/isDelegating`` — the resolver then
validates, executes and records the delegates like a Python delegating tool's. ``isError``
fails the step with the server's text; the result's ``_meta.trailblaze.exitCode`` may say
what kind of failure it is (1: a check did not hold, the default; 2: the tool itself broke; 3:
misuse), as the ``@trailblaze/scripting`` SDK does for a tool that throws. A successful
result's ``_meta.trailblaze.memoryDelta`` (values) and ``memoryDeletions`` (names) change the
session's memory, as upstream's scripted tools' ``ctx.memory.set``/``delete`` do.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.core import jsonsource
from trailblaze.core.errors import ExitCode, InfrastructureError, ToolFailure, TrailblazeError, UsageError
from trailblaze.device.drivernames import upstream_key
from trailblaze.mcpclient.rpc import Invocation
from trailblaze.tools.model import Delegate, ToolArgumentError, ToolContext, ToolImplementation, ToolOutcome

if TYPE_CHECKING:
    import mcp_types

    from trailblaze.mcpclient.connection import Connection
    from trailblaze.mcpclient.rpc import CallbackServer

CONTEXT_ARG = "_trailblazeContext"
DELEGATES_KEY = "_trailblaze_delegates"


@dataclass(slots=True)
class CallContext:
    """What every call of a session's MCP tools needs: where to call back, with which token."""

    rpc: CallbackServer
    token: str


class McpTool(ToolImplementation):
    def __init__(
        self,
        connection: Connection,
        name: str,
        input_schema: Mapping[str, Any],
        *,
        aware: bool,
        calls: CallContext,
    ) -> None:
        self.connection = connection
        self.name = name
        self.schema = dict(input_schema)
        self.aware = aware
        self.calls = calls
        self._validator: Any = None

    # -- arguments -------------------------------------------------------------------------------

    def validate(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        if self._validator is None:
            self._validator = argument_validator(
                self.schema, f"MCP server {self.connection.decl.where}: tool {self.name}"
            )
        return check_arguments(self._validator, self.name, args)

    # -- the call ----------------------------------------------------------------------------------

    async def invoke(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
        arguments = dict(args)
        if self.aware:
            arguments[CONTEXT_ARG] = envelope(ctx)
        delegating = ctx.tool.metadata.delegating
        invocation = Invocation(ctx.invocation_id, self.calls.token, ctx, ctx.tool.name, delegating)
        self.calls.rpc.begin(invocation)
        try:
            result = await self.connection.call(self.name, arguments, request_meta(ctx, self.calls, aware=self.aware))
        except InfrastructureError as exc:
            if self.connection.dead and ctx.mark_broken is not None:
                ctx.mark_broken(str(exc))  # the rest of its trails get a new session
            raise
        finally:
            self.calls.rpc.end(invocation)
        text = _text(result)
        answer = _trailblaze_meta(result)
        source = f"tool {ctx.tool.name!r} ({ctx.tool.source})"
        if result.is_error:
            detail = text or "the tool reported an error without a message"  # cut where it is reported
            unsaid = [f for f in invocation.failures if f not in detail]  # nested calls' messages say theirs
            if unsaid:
                detail += "; during the call: " + "; ".join(unsaid)
            exit_code = answer.get("exitCode")
            if exit_code == ExitCode.ERROR:
                raise TrailblazeError(detail)
            if exit_code == ExitCode.USAGE:
                raise UsageError(detail)
            raise ToolFailure(detail)
        _remember(ctx, answer, source)
        delegates = _delegates(result, text)
        if delegating:
            items = delegates if delegates is not None else []
            if not isinstance(items, list):
                raise UsageError(f"{source} returned {DELEGATES_KEY} that is not a list: {items!r}")
            return ToolOutcome(delegates=[Delegate.coerce(item, source) for item in items])
        if delegates is not None:
            raise UsageError(
                f"{source} returned {DELEGATES_KEY} but is not marked delegating: set "
                f'"trailblaze/isDelegating": true in its _meta (or in tool_meta: of its toolset)'
            )
        output = result.structured_content if result.structured_content is not None else text
        return ToolOutcome(output=output)


def argument_validator(schema: Mapping[str, Any], where: str) -> Any:
    """A JSON Schema validator for a tool's arguments (``where`` names the tool in messages)."""
    import jsonschema

    schema = user_schema(schema)
    cycle = ref_cycle(schema)
    if cycle is not None:  # jsonschema would follow it until Python's recursion limit
        raise InfrastructureError(
            f"{where}'s inputSchema has a $ref that leads back to itself ({' → '.join(cycle)}); its arguments "
            "cannot be checked, so it is not called"
        )
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError:
        cls = _Permissive  # a server's broken schema must not make its tool unusable
    else:
        # a server's `pattern` is matched with a time bound, as every regex trailblaze runs
        cls = jsonschema.validators.extend(cls, {"pattern": _bounded_pattern})
    return cls(schema)


def check_arguments(validator: Any, name: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """``args`` when they fit; a :class:`ToolArgumentError` listing every problem otherwise."""
    problems = [_problem(e) for e in sorted(validator.iter_errors(dict(args)), key=lambda e: list(e.absolute_path))]
    if problems:
        raise ToolArgumentError(name, problems)
    return args


def request_meta(ctx: ToolContext, calls: CallContext, *, aware: bool = False) -> dict[str, Any]:
    """Seed 000's request ``_meta`` for one call (``aware``: with the memory and the target)."""
    device = ctx.device
    trailblaze: dict[str, Any] = {
        "baseUrl": calls.rpc.url,
        "sessionId": ctx.session_id,
        "invocationId": ctx.invocation_id,
        "token": calls.token,
        "device": {
            "id": device.id,
            "platform": device.platform.upper(),
            "driver": device.driver,
            "width": device.width,
            "height": device.height,
            "driverType": driver_type(ctx),
            "widthPixels": device.width,
            "heightPixels": device.height,
        },
        "capabilities": {"sampling": False, "callbacks": True},
    }
    if aware:
        trailblaze["memory"] = json.loads(json.dumps(ctx.memory, default=str))
        target = target_envelope(ctx)
        if target is not None:
            trailblaze["target"] = target
    return {"trailblazeInvocationId": ctx.invocation_id, "trailblaze": trailblaze}


def driver_type(ctx: ToolContext) -> str:
    """The session's driver by upstream's name (``android-ondevice-accessibility``), as scripts
    written for upstream compare it."""
    session = ctx.session
    if session is None:
        return ctx.device.driver
    return upstream_key(session.driver.key, session.driver.aliases)


def target_envelope(ctx: ToolContext) -> dict[str, Any] | None:
    """The session's app target as upstream's scripted tools read it (``ctx.target``), if any."""
    return ctx.app_target() if ctx.app_target is not None else None


def envelope(ctx: ToolContext) -> dict[str, Any]:
    """Seed 003's ``_trailblazeContext``: the session's memory and its device."""
    device = ctx.device
    memory = json.loads(json.dumps(ctx.memory, default=str))
    return {
        "memory": memory,
        "device": {
            "platform": device.platform.upper(),
            "widthPixels": device.width,
            "heightPixels": device.height,
            "driverType": driver_type(ctx),
        },
    }


def user_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The input schema as trail authors see it: without the reserved context argument."""
    shown = dict(schema)
    properties = shown.get("properties")
    if isinstance(properties, dict) and CONTEXT_ARG in properties:
        shown["properties"] = {k: v for k, v in properties.items() if k != CONTEXT_ARG}
    required = shown.get("required")
    if isinstance(required, list) and CONTEXT_ARG in required:
        shown["required"] = [r for r in required if r != CONTEXT_ARG]
    return shown


#: keywords whose subschemas apply to the same value: a $ref cycle through them never reaches a
#: smaller part of the value, so validating follows it for ever
_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONES = ("not", "if", "then", "else")


def ref_cycle(schema: Mapping[str, Any]) -> list[str] | None:
    """The local ``$ref`` chain of ``schema`` that comes back to where it started while still
    checking the same value (``#/$defs/a → #/$defs/b → #/$defs/a``), or None. Recursion through
    ``properties`` or ``items`` (a tree of nodes) is fine: each step checks a smaller value."""
    nodes = {"#", *_local_refs(schema, everywhere=True)}
    targets = {node: _pointer(schema, node) for node in nodes}
    edges = {node: _local_refs(target, everywhere=False) for node, target in targets.items() if target is not None}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(edges):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(edges[start]))]
        state[start] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
                continue
            if state.get(step) == 1:
                return [*path[path.index(step) :], step]
            if not state.get(step) and step in edges:
                state[step] = 1
                path.append(step)
                stack.append(iter(sorted(edges[step])))
    return None


def _local_refs(schema: Any, *, everywhere: bool) -> set[str]:
    """The ``#…`` references in ``schema``: anywhere in it, or only where they check the same value."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            found.add(ref)
        if everywhere:
            pending.extend(node.values())
            continue
        for key in _SAME_VALUE_LISTS:
            if isinstance(node.get(key), list):
                pending.extend(node[key])
        pending.extend(node[key] for key in _SAME_VALUE_ONES if key in node)
    return found


def _pointer(schema: Any, ref: str) -> Any:
    """What the local reference ``ref`` (``#/$defs/a``) names in ``schema``, or None."""
    node = schema
    for part in ref.removeprefix("#").split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def names_context(schema: Mapping[str, Any]) -> bool:
    properties = schema.get("properties")
    return isinstance(properties, dict) and CONTEXT_ARG in properties


def _text(result: mcp_types.CallToolResult) -> str:
    import mcp_types

    return "\n".join(block.text for block in result.content if isinstance(block, mcp_types.TextContent)).strip()


def _trailblaze_meta(result: mcp_types.CallToolResult) -> dict[str, Any]:
    """The ``trailblaze`` part of a result's ``_meta`` (empty when there is none)."""
    found = (result.meta or {}).get("trailblaze")
    return found if isinstance(found, dict) else {}


def _remember(ctx: ToolContext, answer: Mapping[str, Any], source: str) -> None:
    """Apply a result's ``memoryDelta`` and ``memoryDeletions`` to the session's memory."""
    delta, deletions = answer.get("memoryDelta", {}), answer.get("memoryDeletions", [])
    if not isinstance(delta, dict) or not isinstance(deletions, list) or not all(isinstance(k, str) for k in deletions):
        raise UsageError(
            f"{source} returned _meta.trailblaze.memoryDelta/memoryDeletions that are not an object of values "
            f"and a list of names: {delta!r}, {deletions!r}"
        )
    ctx.memory.update(delta)
    for name in deletions:
        ctx.memory.pop(name, None)


def _delegates(result: mcp_types.CallToolResult, text: str) -> Any:
    """``_trailblaze_delegates`` from structured content, else from a JSON object in the text."""
    structured = result.structured_content
    if isinstance(structured, dict) and DELEGATES_KEY in structured:
        return structured[DELEGATES_KEY]
    if text.startswith("{") and DELEGATES_KEY in text:
        try:
            data = jsonsource.parse(text)
        except ValueError:
            return None
        if isinstance(data, dict) and DELEGATES_KEY in data:
            return data[DELEGATES_KEY]
    return None


def _problem(error: Any) -> tuple[str, str]:
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required":
        missing = error.message.split("'")[1] if error.message.count("'") >= 2 else ""
        return (".".join(p for p in (path, missing) if p), "required")
    if error.validator == "additionalProperties":
        extra = error.message.split("'")[1] if error.message.count("'") >= 2 else ""
        return (".".join(p for p in (path, extra) if p), "unknown argument")
    message = error.message
    return path, message[:1].lower() + message[1:]


def _bounded_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """JSON Schema's ``pattern`` (a search, not a full match), given TRAILBLAZE_REGEX_TIMEOUT
    seconds: a pattern that backtracks without end is a clear problem, not a hung run."""
    import jsonschema
    import regex

    from trailblaze.core import limits

    if not validator.is_type(instance, "string"):
        return
    try:
        compiled = _compiled_pattern(pattern)
    except regex.error:
        return  # not a pattern this engine reads: the server decides
    seconds = limits.REGEX_SECONDS.get()
    try:
        found = compiled.search(instance, timeout=seconds)
    except TimeoutError:
        yield jsonschema.ValidationError(
            f"matching the schema's pattern {pattern!r} took over {seconds:g}s (TRAILBLAZE_REGEX_TIMEOUT); "
            "the server's pattern backtracks too much for this value"
        )
        return
    if found is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.lru_cache(maxsize=256)
def _compiled_pattern(pattern: str) -> Any:
    import regex

    return regex.compile(pattern)


class _Permissive:
    """Validator for a schema that is not valid JSON Schema: the server decides."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema

    def iter_errors(self, instance: Any) -> list[Any]:
        return []
