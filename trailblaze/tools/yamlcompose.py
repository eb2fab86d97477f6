"""YAML-defined tools as tools: a ``tools:`` composition becomes a delegating tool whose call
fills the ``{{params.NAME}}`` tokens (:class:`ComposedTool`); a ``class:`` names a
``@trailblaze.tool`` function; a tool that cannot be had here is :class:`Unavailable`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
)

from trailblaze.core.errors import UsageError
from trailblaze.tools.model import (
    Delegate,
    ToolArgumentError,
    ToolContext,
    ToolImplementation,
    ToolMetadata,
    ToolOutcome,
    ToolSpec,
    deferred,
    strip_reason,
)
from trailblaze.tools.yamltool import OMIT, PARAM_TYPES, TOKEN, WHOLE_TOKEN, ToolDeclaration, ToolFile

#: file suffixes that hold one tool each (upstream's trailmap tool layout)


def composed_spec(declaration: ToolDeclaration) -> ToolSpec:
    """The delegating tool a ``tools:`` file defines (its arguments' model and JSON Schema are
    built on first use)."""
    tool_file = declaration.file
    implementation = ComposedTool(tool_file)
    return ToolSpec(
        name=tool_file.id,
        description=(tool_file.description or "").strip(),
        input_schema=deferred(implementation.schema),
        metadata=ToolMetadata(
            exposed_to_llm=tool_file.surface_to_llm is not False,
            recordable=False,  # a delegating tool records what it delegates to …
            record_delegates=tool_file.is_recordable is not False,  # … unless it says not to
            delegating=True,
            requires_host=bool(tool_file.requires_host),
            verification=bool(tool_file.is_verification),
        ),
        implementation=implementation,
        source=declaration.source,
    )


def class_spec(declaration: ToolDeclaration, existing: ToolSpec | None) -> ToolSpec | None:
    """The tool a ``class:`` file names: a ``module:function`` here, or — for upstream's Kotlin
    class names — the tool this project already has under that id (None: nothing to add), or
    an unavailable tool saying why."""
    from trailblaze.tools.authoring import spec_of

    tool_file = declaration.file
    target = tool_file.class_ or ""
    module_name, sep, attr = target.partition(":")
    if sep and module_name and attr:
        try:
            obj = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise UsageError(f"class: {target}: {exc}", declaration.location("class")) from None
        spec = spec_of(obj)
        if spec is None:
            raise UsageError(f"class: {target} is not a @trailblaze.tool function", declaration.location("class"))
        if spec.name != tool_file.id:
            raise UsageError(
                f"class: {target} is the tool {spec.name!r}, but this file declares id {tool_file.id!r}",
                declaration.location("id"),
            )
        if existing is not None and existing.implementation is spec.implementation:  # a plugin registers it already
            return None
        return spec.with_source(declaration.source)
    if existing is not None:  # upstream's declaration of a tool this project implements itself
        return None
    reason = f"is implemented upstream by {target}, which this project does not have"
    return unavailable_spec(tool_file.id, reason, declaration.source)


def unavailable_spec(name: str, reason: str, source: str) -> ToolSpec:
    """A tool whose name is known but which cannot run here; validation reports ``reason``."""
    return ToolSpec(
        name=name,
        description=f"not available: {name} {reason}",
        input_schema={"type": "object", "additionalProperties": True},
        metadata=ToolMetadata(exposed_to_llm=False),
        implementation=Unavailable(name, reason),
        source=source,
        unavailable=reason,
    )


class Unavailable(ToolImplementation):
    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def validate(self, args: Mapping[str, Any]) -> Any:
        return args

    async def invoke(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
        raise UsageError(f"{self.name} {self.reason}")


def _arguments_model(tool_file: ToolFile) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for param in tool_file.parameters:
        python_type = PARAM_TYPES[param.type][1]
        if python_type is float:
            python_type = float | int  # type: ignore[assignment]
        description = param.description
        if param.required:
            fields[param.name] = (python_type, Field(description=description))
        else:
            default = param.default if param.has_default else None
            fields[param.name] = (python_type | None, Field(default=default, description=description))
    return create_model(f"{tool_file.id}_arguments", __config__=ConfigDict(extra="forbid"), **fields)


class ComposedTool(ToolImplementation):
    """A ``tools:`` body: fill the tokens, return the calls as delegates."""

    def __init__(self, tool_file: ToolFile) -> None:
        self.file = tool_file
        self._model: type[BaseModel] | None = None
        self._schema: dict[str, Any] | None = None

    @property
    def model(self) -> type[BaseModel]:
        """The pydantic model of the parameters (built on first use)."""
        if self._model is None:
            self._model = _arguments_model(self.file)
        return self._model

    def schema(self) -> dict[str, Any]:
        """The parameters' JSON Schema (made once)."""
        if self._schema is None:
            from trailblaze.tools.python import arguments_schema

            self._schema = arguments_schema(self.model)
        return self._schema

    def validate(self, args: Mapping[str, Any]) -> Any:
        from trailblaze.tools.python import pydantic_problems

        try:
            return self.model.model_validate(dict(args))
        except ValidationError as exc:
            raise ToolArgumentError(self.file.id, pydantic_problems(exc)) from None

    async def invoke(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
        given = strip_reason(args)
        self.validate(given)
        values = self.values(given)
        delegates = []
        for item in self.file.tools or []:
            ((name, call_args),) = item.items()
            filled = fill(call_args or {}, values)
            delegates.append(Delegate(name, filled if isinstance(filled, dict) else {}))
        return ToolOutcome(delegates=delegates)

    def values(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Each parameter's value: the caller's, else the declared default, else omitted."""
        values: dict[str, Any] = {}
        for param in self.file.parameters:
            value = given.get(param.name)
            if value is not None:
                values[param.name] = value
            elif param.has_default:
                values[param.name] = param.default
            else:
                values[param.name] = OMIT
        return values


def fill(value: Any, values: Mapping[str, Any]) -> Any:
    """``value`` with ``{{params.x}}`` filled in (see the module docstring); OMIT when dropped."""
    if isinstance(value, str):
        whole = WHOLE_TOKEN.match(value)
        if whole is not None:
            name = _param_name(whole.group(1))
            return value if name is None else values[name]

        def splice(match: re.Match[str]) -> str:
            name = _param_name(match.group(1))
            if name is None:
                return match.group(0)
            found = values[name]
            if found is OMIT or found is None:
                return ""
            if isinstance(found, bool):
                return "true" if found else "false"
            return str(found)

        return TOKEN.sub(splice, value)
    if isinstance(value, dict):
        return {k: v for k, v in ((k, fill(v, values)) for k, v in value.items()) if v is not OMIT}
    if isinstance(value, list):
        return [v for v in (fill(item, values) for item in value) if v is not OMIT]
    return value


def _param_name(token: str) -> str | None:
    prefix, _, name = token.strip().partition(".")
    return name if prefix == "params" else None


def delegate_names(tool_file: ToolFile) -> Sequence[tuple[int, str]]:
    """The tools a ``tools:`` body calls, with their index in the list."""
    found = []
    for i, item in enumerate(tool_file.tools or []):
        if isinstance(item, dict) and len(item) == 1:
            found.append((i, next(iter(item))))
    return found
