"""Tools defined in YAML files (``*.tool.yaml``), exactly as upstream Trailblaze writes them.

A file is one tool with an ``id`` and one of two bodies (upstream's ``ToolYamlConfig``):

* ``tools:`` — a composition without code: a list of tool calls with ``{{params.NAME}}`` tokens,
  ``description:`` and ``parameters:`` (``name``, ``type``, ``required``, ``description``,
  ``default``) declared in the file, and optional flags ``surface_to_llm``, ``is_recordable``,
  ``requires_host``, ``is_verification``. It becomes a *delegating* tool: a call fills the tokens
  and hands the calls to Trailblaze, which validates, executes and records them like any other
  delegation.
* ``class:`` — a tool implemented in code. Upstream names a Kotlin class; here ``class:`` names a
  ``@trailblaze.tool`` function as ``module:function``. A Kotlin class name is accepted for a
  tool this project already has under that ``id`` (so upstream's own declarations load), and
  otherwise marks the tool as unavailable — a trail that uses it fails validation saying so.

Token semantics follow upstream (``YamlDefinedTrailblazeTool``): a string that is a single token
takes the parameter's value with its type; a token inside a longer string is spliced in as text;
an omitted optional parameter without a ``default:`` drops the key (or list item) it fills, and
an explicit ``null`` counts as omitted. As an extension, ``{{memory.x}}`` tokens pass through to
be filled from the trail's memory when the calls run.

``*.shortcut.yaml`` and ``*.trailhead.yaml`` files (upstream's navigation tools) load the same
way; their ``shortcut:``/``trailhead:`` waypoint contracts are kept but not enforced.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from trailblaze.core.errors import Location, TrailblazeError, UsageError
from trailblaze.core.validation import describe_errors
from trailblaze.core.yamlsource import PathKey, YamlDocument, load_path
from trailblaze.device.drivernames import driver_of_tool
from trailblaze.tools.model import (
    Delegate,
    ToolArgumentError,
    ToolContext,
    ToolImplementation,
    ToolMetadata,
    ToolOutcome,
    ToolSpec,
    strip_reason,
)

if TYPE_CHECKING:
    from trailblaze.tools.registry import ToolRegistry

#: file suffixes that hold one tool each (upstream's trailmap tool layout)
TOOL_SUFFIXES = (".tool.yaml", ".shortcut.yaml", ".trailhead.yaml")
PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TOKEN = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")
_WHOLE_TOKEN = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}\Z")
#: parameter types (upstream's names and their JSON-schema / Python equivalents)
_TYPES: dict[str, tuple[str, type]] = {
    "string": ("string", str),
    "integer": ("integer", int),
    "int": ("integer", int),
    "long": ("integer", int),
    "number": ("number", float),
    "float": ("number", float),
    "double": ("number", float),
    "boolean": ("boolean", bool),
    "array": ("array", list),
    "list": ("array", list),
    "object": ("object", dict),
    "map": ("object", dict),
}


class _Omit:
    """Stands for an omitted optional parameter: the key or list item it fills is dropped."""


OMIT = _Omit()


class ToolParameter(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    type: str
    required: StrictBool = True
    description: str | None = None
    default: Any = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not PARAM_NAME.match(value):
            raise ValueError(f"{value!r} is not a parameter name (letters, digits and _, not starting with a digit)")
        return value

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        if value.lower() not in _TYPES:
            raise ValueError(f"unknown type {value!r} (known: {', '.join(sorted(set(_TYPES)))})")
        return value.lower()

    @property
    def has_default(self) -> bool:
        return "default" in self.model_fields_set


class Waypoints(BaseModel):
    """A shortcut's or trailhead's waypoint contract (kept, not enforced here)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    to: str | None = None
    dynamic: StrictBool = False
    variant: str | None = None
    from_: str | None = Field(default=None, alias="from")


class ToolFile(BaseModel):
    """One ``*.tool.yaml`` (upstream's ``ToolYamlConfig``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(min_length=1)
    class_: str | None = Field(default=None, alias="class")
    description: str | None = None
    parameters: list[ToolParameter] = Field(default_factory=list)
    surface_to_llm: StrictBool | None = None
    is_recordable: StrictBool | None = None
    requires_host: StrictBool | None = None
    is_verification: StrictBool | None = None
    tools: list[Any] | None = None
    shortcut: Waypoints | None = None
    trailhead: Waypoints | None = None

    @model_validator(mode="after")
    def _one_body(self) -> ToolFile:
        if self.class_ is not None and self.tools is not None:
            raise ValueError("declares both 'class:' and 'tools:'; exactly one is allowed")
        if self.shortcut is not None and self.trailhead is not None:
            raise ValueError("declares both 'shortcut:' and 'trailhead:'; a tool is at most one of them")
        flags = ("surface_to_llm", "is_recordable", "requires_host", "is_verification")
        if self.class_ is not None:
            extra = ["description"] if self.description is not None else []
            extra += ["parameters"] if self.parameters else []
            extra += [f for f in flags if getattr(self, f) is not None]
            if extra:
                raise ValueError(
                    f"uses 'class:'; {', '.join(dict.fromkeys(extra))} come from the implementation and must not be "
                    f"declared here"
                )
        elif self.tools is not None:
            if not (self.description or "").strip():
                raise ValueError("uses 'tools:' and must declare a 'description:' (there is no code to take it from)")
            names = [p.name for p in self.parameters]
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise ValueError(f"declares parameter(s) {', '.join(duplicates)} twice")
        elif self.shortcut is None and self.trailhead is None:
            raise ValueError("declares neither 'class:' nor 'tools:': nothing to register")
        return self

    @property
    def body(self) -> str:
        if self.class_ is not None:
            return "class"
        return "tools" if self.tools is not None else "metadata"


@dataclass(slots=True)
class ToolDeclaration:
    """A loaded tool file: what it says and where each part of it is."""

    file: ToolFile
    doc: YamlDocument
    base: PathKey
    source: str

    def location(self, *keys: str | int) -> Location:
        return self.doc.location((*self.base, *keys))


@dataclass(slots=True)
class Loaded:
    """Tool files read from somewhere: the tools they define and the problems they have."""

    declarations: list[ToolDeclaration] = field(default_factory=list)
    problems: list[TrailblazeError] = field(default_factory=list)


def find_tool_files(folder: Path) -> list[Path]:
    """Every tool file under ``folder`` (any depth), in name order."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.name.endswith(TOOL_SUFFIXES) and p.is_file())


def load_tool_file(path: Path, source: str | None = None) -> Loaded:
    """Read one tool file; a broken one is problems with file:line, never an exception."""
    loaded = Loaded()
    try:
        doc = load_path(path)
    except UsageError as exc:
        loaded.problems.append(exc)
        return loaded
    declaration = parse_declaration(doc, (), source or f"yaml:{path.name}", loaded.problems)
    if declaration is not None:
        loaded.declarations.append(declaration)
    return loaded


def parse_declaration(
    doc: YamlDocument, base: PathKey, source: str, problems: list[TrailblazeError]
) -> ToolDeclaration | None:
    """The tool declared by the mapping at ``base`` in ``doc`` (a file, or an inline entry)."""
    data = doc.data
    for key in base:
        data = data[key]
    if not isinstance(data, dict):
        problems.append(UsageError("a tool file is a mapping with 'id:' and 'tools:' or 'class:'", doc.location(base)))
        return None
    try:
        tool_file = ToolFile.model_validate(data)
    except ValidationError as exc:
        problems.extend(describe_errors(exc, doc=doc, base=base, model=ToolFile))
        return None
    declaration = ToolDeclaration(tool_file, doc, base, source)
    if tool_file.tools is not None:
        problems.extend(_body_problems(declaration))
    return declaration


def _body_problems(declaration: ToolDeclaration) -> list[TrailblazeError]:
    """Calls that are not ``{toolName: {args}}`` and tokens that name no declared parameter."""
    problems: list[TrailblazeError] = []
    declared = {p.name for p in declaration.file.parameters}
    for i, item in enumerate(declaration.file.tools or []):
        if not (isinstance(item, dict) and len(item) == 1):
            problems.append(
                UsageError("each entry of 'tools:' is one call: '- toolName: {args}'", declaration.location("tools", i))
            )
            continue
        ((name, args),) = item.items()
        if args is not None and not isinstance(args, dict):
            problems.append(
                UsageError(f"arguments of {name!r} must be a mapping", declaration.location("tools", i, name))
            )
            continue
        for path, text in _strings(args, ("tools", i, name)):
            for match in _TOKEN.finditer(text):
                prefix, _, param = match.group(1).strip().partition(".")
                where = declaration.location(*path)
                if prefix == "memory" and PARAM_NAME.match(param):
                    continue
                if prefix != "params" or not PARAM_NAME.match(param):
                    problems.append(
                        UsageError(
                            f"{match.group(0)}: tool files fill in {{{{params.NAME}}}} (or {{{{memory.NAME}}}})", where
                        )
                    )
                elif param not in declared:
                    known = ", ".join(sorted(declared)) or "none are declared"
                    problems.append(UsageError(f"{match.group(0)} names no parameter (parameters: {known})", where))
    return problems


def _strings(value: Any, path: PathKey) -> Iterable[tuple[PathKey, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


# -- turning declarations into tools ----------------------------------------------------------------


def composed_spec(declaration: ToolDeclaration) -> ToolSpec:
    """The delegating tool a ``tools:`` file defines."""
    tool_file = declaration.file
    model = _arguments_model(tool_file)
    schema = model.model_json_schema()
    schema.pop("title", None)
    return ToolSpec(
        name=tool_file.id,
        description=(tool_file.description or "").strip(),
        input_schema=schema,
        metadata=ToolMetadata(
            exposed_to_llm=tool_file.surface_to_llm is not False,
            recordable=False,  # a delegating tool records what it delegates to …
            record_delegates=tool_file.is_recordable is not False,  # … unless it says not to
            delegating=True,
            requires_host=bool(tool_file.requires_host),
            verification=bool(tool_file.is_verification),
        ),
        implementation=ComposedTool(tool_file, model),
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
        python_type = _TYPES[param.type][1]
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

    def __init__(self, tool_file: ToolFile, model: type[BaseModel]) -> None:
        self.file = tool_file
        self.model = model

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
        whole = _WHOLE_TOKEN.match(value)
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

        return _TOKEN.sub(splice, value)
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


# -- registering ----------------------------------------------------------------------------------


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
        return _TOKEN.search(value) is not None
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


def load_entries(entries: Sequence[Any], doc: YamlDocument, base: PathKey, root: Path, source: str) -> Loaded:
    """A config's ``tools:`` list: paths of tool files or folders of them (relative to ``root``),
    ``{ref: path}``, or tools written inline."""
    loaded = Loaded()
    for i, entry in enumerate(entries):
        where = (*base, i)
        ref = entry.get("ref") if isinstance(entry, dict) and set(entry) == {"ref"} else entry
        if isinstance(ref, str):
            path = Path(ref).expanduser()
            path = path if path.is_absolute() else root / path
            if path.is_dir():
                files = find_tool_files(path)
            elif path.is_file():
                files = [path]
            else:
                loaded.problems.append(UsageError(f"tools: {ref}: no such file or folder", doc.location(where)))
                continue
            for file in files:
                more = load_tool_file(file, f"yaml:{_shown(file, root)}")
                loaded.declarations += more.declarations
                loaded.problems += more.problems
        elif isinstance(entry, dict):
            declaration = parse_declaration(doc, where, source, loaded.problems)
            if declaration is not None:
                loaded.declarations.append(declaration)
        else:
            loaded.problems.append(
                UsageError("tools: each entry is a path, {ref: path} or a tool written inline", doc.location(where))
            )
    return loaded


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
