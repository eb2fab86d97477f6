"""``@trailblaze.tool``: turn a Python function into a tool.

The input JSON Schema comes from the signature through pydantic; the parameter annotated
``ToolContext`` (or named ``ctx``) is injected and is not part of the schema. Annotate a
parameter with ``pydantic.SecretStr`` to keep its value out of logs and reports. The
implementation (pydantic models, invocation) is in :mod:`trailblaze.tools.python`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from trailblaze.tools.model import VERIFIES_ATTR, ToolMetadata, ToolSpec

F = TypeVar("F", bound=Callable[..., Any])
TOOL_ATTR = "__trailblaze_tool__"


def tool(
    name: str | None = None,
    *,
    description: str | None = None,
    platforms: Iterable[str] | None = None,
    drivers: Iterable[str] | None = None,
    groups: Iterable[str] = (),
    exposed_to_llm: bool = True,
    recordable: bool = True,
    delegating: bool = False,
    requires_host: bool = False,
    verification: bool = False,
    query: bool = False,
) -> Callable[[F], F]:
    """Declare a tool. The function is returned unchanged, with the tool spec attached.

    ``name`` defaults to the function name; ``description`` to its docstring. ``platforms``
    (``web``, ``android``, ``ios``) and ``drivers`` (driver keys) limit where it is offered;
    ``None`` means everywhere. A ``delegating`` tool returns a list of
    :class:`trailblaze.Delegate`; it may query the device but not act on it. ``verification``
    marks a read-only check, the only kind a ``verify:`` step may record. A ``query`` answers
    the agent that called it and changes nothing (``web_currentUrl``): it is never recorded.
    """

    def decorate(fn: F) -> F:
        pending = _Pending(
            fn,
            name=name or fn.__name__,
            description=description,
            metadata=ToolMetadata(
                platforms=frozenset(platforms) if platforms is not None else None,
                drivers=frozenset(drivers) if drivers is not None else None,
                groups=tuple(groups),
                exposed_to_llm=exposed_to_llm,
                recordable=recordable and not delegating and not query,
                delegating=delegating,
                requires_host=requires_host,
                verification=verification,
                query=query,
            ),
        )
        setattr(fn, TOOL_ATTR, pending)
        return fn

    return decorate


def verifies_when(check: Callable[[Mapping[str, Any]], bool]) -> Callable[[F], F]:
    """Under :func:`tool`: the calls for which ``check(args)`` is true only look, so a ``verify:``
    step may make them although the tool is no verification tool."""

    def decorate(fn: F) -> F:
        setattr(fn, VERIFIES_ATTR, check)
        return fn

    return decorate


def spec_of(obj: Any) -> ToolSpec | None:
    """The :class:`ToolSpec` of a decorated function (or the spec itself).

    The spec (its pydantic input model and JSON Schema) is built on first use, not when the
    plugin module is imported, so installed plugins do not slow down the CLI's start-up."""
    if isinstance(obj, ToolSpec):
        return obj
    pending = getattr(obj, TOOL_ATTR, None)
    return pending.spec() if isinstance(pending, _Pending) else None


@dataclass(slots=True)
class _Pending:
    fn: Callable[..., Any]
    name: str
    description: str | None
    metadata: ToolMetadata
    built: ToolSpec | None = None

    def spec(self) -> ToolSpec:
        if self.built is None:
            from trailblaze.tools.python import build_spec

            self.built = build_spec(self.fn, name=self.name, description=self.description, metadata=self.metadata)
        return self.built
