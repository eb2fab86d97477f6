"""``{{args.x}}``, ``{{memory.x}}`` and ``${ENV_VAR}`` in step text and tool arguments.

A string that is exactly one reference takes the referenced value with its type (so an
``integer`` arg fills an integer field); a reference inside a longer string is spliced in as
text. ``{{memory.x}}`` is resolved when the step runs; the others when the trail loads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

_REFERENCE = re.compile(r"\{\{\s*([A-Za-z_][\w-]*)\.([A-Za-z_][\w.-]*)\s*\}\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
NAMESPACES = ("args", "memory")


@dataclass(frozen=True, slots=True)
class Reference:
    namespace: str  # "args" | "memory" | "env" | anything else written (an error)
    name: str
    text: str


def references(value: Any) -> list[Reference]:
    """Every reference in a (nested) value."""
    found: list[Reference] = []

    def visit(item: Any) -> None:
        if isinstance(item, str):
            for m in _REFERENCE.finditer(item):
                if m.group(3):
                    found.append(Reference("env", m.group(3), m.group(0)))
                else:
                    found.append(Reference(m.group(1), m.group(2), m.group(0)))
        elif isinstance(item, Mapping):
            for v in item.values():
                visit(v)
        elif isinstance(item, list | tuple):
            for v in item:
                visit(v)

    visit(value)
    return found


def has_references(value: Any, namespace: str | None = None) -> bool:
    return any(namespace is None or r.namespace == namespace for r in references(value))


Lookup = Callable[[Reference], tuple[bool, Any]]


def substitute(value: Any, lookup: Lookup) -> Any:
    """Replace every reference ``lookup`` resolves (returns ``(True, value)``); keep the rest."""
    if isinstance(value, str):
        if "{{" not in value and "${" not in value:
            return value
        whole = _REFERENCE.fullmatch(value)
        if whole:
            ok, resolved = lookup(_reference(whole))
            return resolved if ok else value

        def splice(m: re.Match[str]) -> str:
            ok, resolved = lookup(_reference(m))
            return _as_text(resolved) if ok else m.group(0)

        return _REFERENCE.sub(splice, value)
    if isinstance(value, Mapping):
        return {k: substitute(v, lookup) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [substitute(v, lookup) for v in value]
    return value


def _reference(m: re.Match[str]) -> Reference:
    if m.group(3):
        return Reference("env", m.group(3), m.group(0))
    return Reference(m.group(1), m.group(2), m.group(0))


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def resolver(
    args: Mapping[str, Any] | None = None,
    memory: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Lookup:
    """A lookup over the namespaces given; a namespace passed as None stays unresolved
    (reports resolve args and memory but leave ``${SECRET}`` as written)."""

    def lookup(ref: Reference) -> tuple[bool, Any]:
        if ref.namespace == "args" and args is not None and ref.name in args:
            return True, args[ref.name]
        if ref.namespace == "memory" and memory is not None and ref.name in memory:
            return True, memory[ref.name]
        if ref.namespace == "env" and environ is not None and ref.name in environ:
            return True, environ[ref.name]
        return False, None

    return lookup
