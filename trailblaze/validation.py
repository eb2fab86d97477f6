"""Turn pydantic validation errors into ``file:line:col: field: message`` lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from trailblaze.errors import Location, UsageError
from trailblaze.yamlsource import YamlDocument


def describe_errors(
    exc: ValidationError,
    *,
    doc: YamlDocument | None = None,
    base: Sequence[str | int] = (),
    model: type[BaseModel] | None = None,
) -> list[UsageError]:
    """One :class:`UsageError` per pydantic error, located in ``doc`` when there is one."""
    problems: list[UsageError] = []
    for err in exc.errors(include_url=False):
        loc = _clean_loc(err["loc"])
        field = ".".join(str(p) for p in loc)
        message = _message(err, loc, model)
        where: Location | None = doc.location((*base, *loc)) if doc is not None else None
        problems.append(UsageError(f"{field}: {message}" if field else message, where))
    return problems


def _clean_loc(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    # pydantic inserts union-member and function-validator tags into loc; users never wrote those
    cleaned: list[str | int] = []
    for part in loc:
        if isinstance(part, str) and ("[" in part or part.startswith("function-")):
            continue
        cleaned.append(part)
    return tuple(cleaned)


def _message(err: Any, loc: tuple[str | int, ...], model: type[BaseModel] | None) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        known = _known_keys(model, loc[:-1]) if model is not None else []
        hint = f" (expected one of: {', '.join(known)})" if known else ""
        return f"unknown key{hint}"
    if kind == "missing":
        return "required"
    msg = str(err["msg"])
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if msg.startswith("Assertion failed, "):
        msg = msg[len("Assertion failed, ") :]
    return msg[:1].lower() + msg[1:]


def _known_keys(model: type[BaseModel], parent: tuple[str | int, ...]) -> list[str]:
    current: Any = model
    for part in parent:
        fields = getattr(current, "model_fields", None)
        if fields is None or not isinstance(part, str):
            return []
        field = next((f for name, f in fields.items() if part in (name, f.alias)), None)
        if field is None:
            return []
        current = _model_of(field.annotation)
        if current is None:
            return []
    fields = getattr(current, "model_fields", {})
    return sorted(f.alias or name for name, f in fields.items())


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None
