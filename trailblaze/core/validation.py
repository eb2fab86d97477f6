"""Turn pydantic validation errors into ``file:line:col: field: message`` lines."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from trailblaze.core.errors import Location, UsageError
from trailblaze.core.yamlsource import YamlDocument


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
        where: Location | None = None
        if doc is not None:
            key_path = (*base, *loc)
            where = doc.key_location(key_path) if err["type"] == "extra_forbidden" else doc.location(key_path)
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
        close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6) if loc else []
        guess = f"did you mean {close[0]!r}? " if close else ""
        hint = f" ({guess}expected one of: {', '.join(known)})" if known else ""
        return f"unknown key{hint}"
    if kind == "missing":
        return "required"
    if kind in ("model_type", "model_attributes_type", "dict_type"):  # not pydantic's class names
        return f"expected a mapping (key: value), got {_yaml_kind(err.get('input'))}"
    msg = str(err["msg"])
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if msg.startswith("Assertion failed, "):
        msg = msg[len("Assertion failed, ") :]
    return msg[:1].lower() + msg[1:]


def _yaml_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    return "nothing" if value is None else type(value).__name__


def _known_keys(model: type[BaseModel], parent: tuple[str | int, ...]) -> list[str]:
    """The keys a mapping at ``parent`` accepts, following fields, dict values and list items."""
    annotation: Any = model
    for part in parent:
        found = _model_of(annotation)
        if found is not None and isinstance(part, str) and _is_model_level(annotation):
            field = next((f for name, f in found.model_fields.items() if part in (name, f.alias)), None)
            if field is None:
                return []
            annotation = field.annotation
        else:  # a dict key or a list index: step into the container's value type
            annotation = _container_value(annotation)
            if annotation is None:
                return []
    found = _model_of(annotation)
    if found is None or not _is_model_level(annotation):
        return []
    # a key spelled differently from its Python name (``class`` for ``class_``) is shown as written;
    # names an alias generator camel-cases are shown as the docs write them (snake_case)
    return sorted(
        f.alias if f.alias and f.alias_priority == 2 else name  # pydantic: priority 2 = set by hand
        for name, f in found.model_fields.items()
    )


def _is_model_level(annotation: Any) -> bool:
    """True when ``annotation`` is a model itself (or Optional of one), not a container of them."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    args = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    origin = getattr(annotation, "__origin__", None)
    if origin in (dict, list, tuple, set):
        return False
    return len(args) == 1 and _is_model_level(args[0])


def _container_value(annotation: Any) -> Any:
    args = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    origin = getattr(annotation, "__origin__", None)
    if origin is dict and len(args) == 2:
        return args[1]
    if origin in (list, tuple, set) and args:
        return args[0]
    if len(args) == 1:  # Optional[container]
        return _container_value(args[0])
    for arg in args:  # a union of containers of the same items (a list, or a mapping by name)
        found = _container_value(arg)
        if found is not None:
            return found
    return None


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None
