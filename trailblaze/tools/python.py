"""Python functions as tools: the pydantic input model, invocation, and result handling.

Registering a tool costs no more than listing it needs: its name, description and flags. The
parameters are checked for ``*args``/``**kwargs`` then (they cannot describe an input); the
annotations are read, and the pydantic model and its JSON Schema built, on first use — a
validation of a call, the call itself, or the schema's export — once per process.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, cast, get_args, get_origin, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Secret,
    SecretBytes,
    SecretStr,
    ValidationError,
    WithJsonSchema,
    create_model,
)
from pydantic.fields import FieldInfo

from trailblaze.device.commands import BlockingCommands, Commands
from trailblaze.tools.model import (
    VERIFIES_ATTR,
    Delegate,
    ToolArgumentError,
    ToolContext,
    ToolImplementation,
    ToolMetadata,
    ToolOutcome,
    ToolSpec,
    deferred,
)


def build_spec(fn: Callable[..., Any], *, name: str, description: str | None, metadata: ToolMetadata) -> ToolSpec:
    _check_parameters(fn, name)
    implementation = PythonTool(fn, name, metadata.delegating)
    doc = description if description is not None else inspect.getdoc(fn) or ""
    return ToolSpec(
        name=name,
        description=doc.strip(),
        input_schema=deferred(implementation.schema),
        metadata=metadata,
        implementation=implementation,
        secret_fields=deferred(implementation.secret_fields),
    )


def _check_parameters(fn: Callable[..., Any], name: str) -> None:
    """``*args``/``**kwargs`` cannot describe a tool's input: said when the tool is registered.
    A plain function's code flags tell without building its signature."""
    code = getattr(fn, "__code__", None)
    if code is not None and not hasattr(fn, "__wrapped__"):
        variadic = code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    else:
        kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        variadic = any(p.kind in kinds for p in inspect.signature(fn).parameters.values())
    if variadic:
        raise TypeError(_VARIADIC.format(name=name))


_VARIADIC = "tool {name!r}: *args/**kwargs cannot describe a tool's input; name each parameter"


def _arguments(fn: Callable[..., Any], name: str) -> tuple[dict[str, Any], str | None]:
    """The fields of ``fn``'s input model, and the parameter that receives the context."""
    signature = inspect.signature(fn)
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception as exc:  # unresolvable forward reference in the plugin's annotations
        raise TypeError(f"tool {name!r}: cannot read the annotations of {fn.__qualname__}: {exc}") from exc
    fields: dict[str, Any] = {}
    context_param: str | None = None
    for param in signature.parameters.values():
        annotation = hints.get(param.name, Any)
        if annotation is ToolContext or (param.name == "ctx" and param.name not in hints):
            context_param = param.name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(_VARIADIC.format(name=name))
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    return fields, context_param


class PythonTool(ToolImplementation):
    """A tool implemented by a Python function (async, or sync run in a worker thread).

    The function's annotations are read on first use (:attr:`fields`), not when it is
    registered: a command pays only for the tools it validates, calls or describes."""

    def __init__(self, fn: Callable[..., Any], name: str, delegating: bool) -> None:
        self.fn = fn
        self.name = name
        self.delegating = delegating
        self.is_async = inspect.iscoroutinefunction(fn)
        self._arguments: tuple[dict[str, Any], str | None] | None = None
        self._model: type[BaseModel] | None = None
        self._schema: dict[str, Any] | None = None

    @property
    def fields(self) -> dict[str, Any]:
        """The input model's fields by parameter name: ``(annotation, default)``."""
        return self._read_arguments()[0]

    @property
    def context_param(self) -> str | None:
        """The parameter that receives the :class:`ToolContext`, if one does."""
        return self._read_arguments()[1]

    def _read_arguments(self) -> tuple[dict[str, Any], str | None]:
        if self._arguments is None:
            self._arguments = _arguments(self.fn, self.name)
        return self._arguments

    @property
    def model(self) -> type[BaseModel]:
        """The pydantic model of the arguments (built on first use)."""
        if self._model is None:
            config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
            self._model = create_model(f"{self.name}_arguments", __config__=config, **self.fields)
        return self._model

    def schema(self) -> dict[str, Any]:
        """The arguments' JSON Schema (made once)."""
        if self._schema is None:
            self._schema = arguments_schema(self.model)
        return self._schema

    def secret_fields(self) -> frozenset[str]:
        """Arguments whose values must never show: those annotated with one of pydantic's secret
        types (``SecretStr``, ``SecretBytes``, ``Secret[T]``), optional or ``Annotated`` too.

        Read from the annotations, not from the JSON Schema: every tool a trail calls is asked
        this, and building the schemas of the tools a run of the example trails calls cost
        0.1–0.2 s of CPU (a few ms a tool, and pydantic's JSON Schema machinery on first use).
        A parameter whose schema is set by hand (``Field(json_schema_extra=…)``,
        ``WithJsonSchema``) may mark itself ``writeOnly`` or a ``password`` there: then the
        schema is read too."""
        fields = self.fields
        secret = {key for key, (annotation, _default) in fields.items() if _holds_secret(annotation)}
        if any(_sets_schema(annotation) or _sets_schema(default) for annotation, default in fields.values()):
            properties = self.schema().get("properties", {})
            secret.update(
                k for k, prop in properties.items() if prop.get("writeOnly") or prop.get("format") == "password"
            )
        return frozenset(secret)

    def verifies(self, args: Mapping[str, Any]) -> bool:
        check = getattr(self.fn, VERIFIES_ATTR, None)
        return bool(check(args)) if check is not None else False

    def validate(self, args: Mapping[str, Any]) -> BaseModel:
        try:
            return self.model.model_validate(dict(args))
        except ValidationError as exc:
            raise ToolArgumentError(self.name, pydantic_problems(exc)) from None

    async def invoke(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
        validated = self.validate(args)
        kwargs = {key: getattr(validated, key) for key in type(validated).model_fields}
        if self.is_async:
            if self.context_param:
                kwargs[self.context_param] = ctx
            result = await self.fn(**kwargs)
        else:
            if self.context_param:
                loop = asyncio.get_running_loop()
                blocking = cast(Commands, BlockingCommands(ctx.commands, loop))  # the same API, without awaits
                kwargs[self.context_param] = dataclasses.replace(ctx, commands=blocking)
            result = await asyncio.to_thread(self.fn, **kwargs)
        return self._outcome(result)

    def _outcome(self, result: Any) -> ToolOutcome:
        source = f"tool {self.name!r}"
        if self.delegating:
            if result is None:
                return ToolOutcome(delegates=[])
            if isinstance(result, Delegate | Mapping):
                result = [result]
            if not isinstance(result, list | tuple):
                raise TypeError(f"delegating {source} must return a list of trailblaze.Delegate, got {result!r}")
            return ToolOutcome(delegates=[Delegate.coerce(item, source) for item in result])
        if isinstance(result, list | tuple) and result and all(isinstance(r, Delegate) for r in result):
            raise TypeError(f"{source} returned delegates but is not declared with delegating=True")
        return ToolOutcome(output=result)


_SECRET_TYPES = (SecretStr, SecretBytes, Secret)


def _holds_secret(annotation: Any) -> bool:
    """``annotation`` is a pydantic secret type, alone, in a union (``SecretStr | None``) or
    ``Annotated``."""
    if isinstance(annotation, type):
        return issubclass(annotation, _SECRET_TYPES)
    origin = get_origin(annotation)
    if isinstance(origin, type) and issubclass(origin, _SECRET_TYPES):  # Secret[int]
        return True
    if origin is Annotated:
        return _holds_secret(get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return any(_holds_secret(member) for member in get_args(annotation))
    return False


def _sets_schema(hint: Any) -> bool:
    """``hint`` (an annotation, its metadata or a default) carries a JSON Schema of its own
    making: a pydantic ``Field`` with ``json_schema_extra``, or ``WithJsonSchema``."""
    if isinstance(hint, FieldInfo):
        return hint.json_schema_extra is not None
    if isinstance(hint, WithJsonSchema):
        return True
    return any(_sets_schema(arg) for arg in get_args(hint))


def arguments_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments model, without pydantic's generated title (a
    tool's schema is named by the tool)."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    return schema


def pydantic_problems(exc: ValidationError) -> list[tuple[str, str]]:
    problems = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"] if not (isinstance(p, str) and "[" in p))
        if err["type"] == "extra_forbidden":
            msg = "unknown argument"
        elif err["type"] == "missing":
            msg = "required"
        else:
            msg = str(err["msg"])
            msg = msg.removeprefix("Value error, ")
            msg = msg[:1].lower() + msg[1:]
        problems.append((loc, msg))
    return problems
