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

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from trailblaze.core.errors import Location, TrailblazeError, UsageError
from trailblaze.core.validation import describe_errors
from trailblaze.core.yamlsource import PathKey, YamlDocument, load_path

#: file suffixes that hold one tool each (upstream's trailmap tool layout)


TOOL_SUFFIXES = (".tool.yaml", ".shortcut.yaml", ".trailhead.yaml")
PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
TOKEN = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")
WHOLE_TOKEN = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}\Z")
#: parameter types (upstream's names and their JSON-schema / Python equivalents)
PARAM_TYPES: dict[str, tuple[str, type]] = {
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
        if value.lower() not in PARAM_TYPES:
            raise ValueError(f"unknown type {value!r} (known: {', '.join(sorted(set(PARAM_TYPES)))})")
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
            for match in TOKEN.finditer(text):
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
