"""Adding YAML-defined tools to a registry, with the checks only the whole registry can make:
calls to tools it does not have, compositions that call themselves, and the drivers and
platforms a composition can run on (those of the tools it calls).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.device.drivernames import driver_of_tool
from trailblaze.tools.model import ToolSpec
from trailblaze.tools.yamlcompose import ComposedTool, Unavailable, class_spec, composed_spec, delegate_names
from trailblaze.tools.yamltool import TOKEN, ToolDeclaration

if TYPE_CHECKING:
    from trailblaze.tools.registry import ToolRegistry

#: file suffixes that hold one tool each (upstream's trailmap tool layout)


def add_declarations(
    registry: ToolRegistry, declarations: Iterable[ToolDeclaration], *, allow_unknown: bool = False
) -> list[TrailblazeError]:
    """Register the tools ``declarations`` define; return the problems (file:line each).

    A composition's delegates must name registered tools (``allow_unknown``: tools MCP servers
    only offer once a session starts may also be named). A composition is offered on the
    platforms and drivers all of its delegates are offered on."""
    problems: list[TrailblazeError] = []
    composed: list[tuple[ToolDeclaration, ToolSpec]] = []
    for declaration in declarations:
        try:
            if declaration.file.body == "tools":
                spec: ToolSpec | None = composed_spec(declaration)
            elif declaration.file.body == "class":
                spec = class_spec(declaration, registry.get(declaration.file.id))
            else:
                continue  # a shortcut/trailhead block for a tool defined elsewhere: nothing to register
            if spec is None:
                continue
            registry.add(spec)
        except UsageError as exc:
            problems.append(UsageError(exc.message, exc.location or declaration.location("id")))
            continue
        if declaration.file.body == "tools":
            composed.append((declaration, spec))
    for declaration, spec in composed:
        for i, name in delegate_names(declaration.file):
            if name in registry or allow_unknown:
                continue
            upstream = driver_of_tool(name)
            if upstream is not None:  # upstream's composition for a driver this project lacks
                reason = f"calls {name}, a tool of {upstream.label}, which this project does not have"
                spec.unavailable, spec.implementation = reason, Unavailable(spec.name, reason)
                continue
            try:
                registry.require(name, declaration.location("tools", i, name))
            except UsageError as exc:
                problems.append(UsageError(f"{declaration.file.id} calls {exc.message}", exc.location))
    # a composition whose calls cannot work is reported where a trail calls it (as run would fail
    # there), not for every trail of the project: upstream's workspaces ship a few such files
    broken = {d.file.id: _broken_call(registry, d) for d, _ in composed}
    broken.update(_cycles([declaration for declaration, _ in composed]))
    _mark_unavailable(registry, [spec for _, spec in composed], {k: v for k, v in broken.items() if v})
    _scope_compositions(registry, [spec for _, spec in composed if isinstance(spec.implementation, ComposedTool)])
    return problems


def _broken_call(registry: ToolRegistry, declaration: ToolDeclaration) -> str | None:
    """Why a composition's calls cannot work, as far as its file says (with the call's
    location): arguments the called tool does not take or needs, and types of the values written
    out (a ``{{params.x}}`` value is only known when the tool is called)."""
    from trailblaze.tools.model import ToolArgumentError, strip_reason

    for i, item in enumerate(declaration.file.tools or []):
        if not (isinstance(item, dict) and len(item) == 1):
            continue
        name, args = next(iter(item.items()))
        inner = registry.get(name)
        if inner is None or inner.unavailable or not isinstance(args, dict | None):
            continue
        given = strip_reason(args or {})
        templated = {key for key, value in given.items() if _templated(value)}
        try:
            inner.validate(given)
        except ToolArgumentError as exc:
            found = [
                (field, message)
                for field, message in exc.problems
                if message in ("unknown argument", "required")
                or (field.split(".")[0] not in templated and (field or not templated))
            ]
            if found:
                details = "; ".join(f"{field}: {message}" if field else message for field, message in found)
                return f"calls {name} with invalid arguments: {details} ({declaration.location('tools', i, name)})"
    return None


def _mark_unavailable(registry: ToolRegistry, specs: list[ToolSpec], broken: dict[str, str]) -> None:
    """Make the broken compositions, and those calling them, tools that cannot run, saying why."""
    bad = dict(broken)
    changed = True
    while changed:
        changed = False
        for spec in specs:
            if spec.name in bad or not isinstance(spec.implementation, ComposedTool):
                continue
            callee = next((name for _, name in delegate_names(spec.implementation.file) if name in bad), None)
            if callee is not None:
                bad[spec.name] = f"calls {callee}, which {bad[callee]}"
                changed = True
    for spec in specs:
        if spec.name in bad:
            spec.unavailable, spec.implementation = bad[spec.name], Unavailable(spec.name, bad[spec.name])


def _templated(value: Any) -> bool:
    if isinstance(value, str):
        return TOKEN.search(value) is not None
    if isinstance(value, dict):
        return any(_templated(v) for v in value.values())
    if isinstance(value, list):
        return any(_templated(v) for v in value)
    return False


def _cycles(declarations: Sequence[ToolDeclaration]) -> dict[str, str]:
    """Compositions that call themselves, directly or through others (they would never end),
    each with the cycle and where it starts."""
    calls = {d.file.id: [name for _, name in delegate_names(d.file)] for d in declarations}
    where = {d.file.id: d for d in declarations}
    found: dict[str, str] = {}
    for start in calls:
        stack: list[tuple[str, list[str]]] = [(start, [start])]
        seen: set[str] = set()
        while stack and start not in found:
            current, chain = stack.pop()
            for callee in calls.get(current, []):
                if callee == start:
                    first = chain[1] if len(chain) > 1 else start  # the call of start's that goes round
                    index = next(i for i, name in delegate_names(where[start].file) if name == first)
                    cycle = " → ".join((*chain, start))
                    found[start] = (
                        f"is in a delegation cycle, {cycle}, which never ends ({where[start].location('tools', index)})"
                    )
                    break
                if callee in calls and callee not in seen:
                    seen.add(callee)
                    stack.append((callee, [*chain, callee]))
    return found


def _scope_compositions(registry: ToolRegistry, specs: list[ToolSpec]) -> None:
    """Narrow each composition to where all its delegates exist, until nothing changes (a
    composition may call another)."""
    changed = True
    while changed:
        changed = False
        for spec in specs:
            assert isinstance(spec.implementation, ComposedTool)  # the caller passes compositions only
            platforms, drivers = spec.metadata.platforms, spec.metadata.drivers
            for _, name in delegate_names(spec.implementation.file):
                inner = registry.get(name)
                if inner is None:
                    continue
                platforms = _narrow(platforms, inner.metadata.platforms)
                drivers = _narrow(drivers, inner.metadata.drivers)
            if (platforms, drivers) != (spec.metadata.platforms, spec.metadata.drivers):
                spec.metadata = replace(spec.metadata, platforms=platforms, drivers=drivers)
                changed = True


def _narrow(current: frozenset[str] | None, other: frozenset[str] | None) -> frozenset[str] | None:
    if other is None:
        return current
    return other if current is None else current & other
