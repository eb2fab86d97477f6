"""Tools as an agent's LLM sees them: compact input schemas, names LLM APIs accept, and
arguments that arrive as text.

An agent pays for every tool it is offered on every turn, so what it reads is the tool's
schema cut to what a model needs (:func:`agent_schema`):

* optional parameters are simply not ``required``: pydantic's ``anyOf: [T, {"type": "null"}]``
  and ``default: null`` go, so each parameter has its own top-level ``type`` (clients that
  coerce text arguments by that type, such as the MCP Inspector's CLI, then send an object
  for an object parameter);
* ``$ref``\\ s are inlined and pydantic's titles (``"Timeoutms"``) left out;
* a selector parameter (``nodeSelector``, the legacy ``selector``) is one object with a
  one-line description naming only the connected platform's matcher fields; its full schema
  stays what the tool validates against (``toolbox(action=LIST, name=…)`` shows it).

Arguments are checked against the full schema. Some clients and models send an object or
array argument as JSON text (``nodeSelector='{"web": …}'``); :func:`parse_json_arguments`
turns such text back into the value the schema asks for before the call is checked.

Names: the MCP specification allows tool names of 1–128 characters from ``A-Z a-z 0-9 _ . -``,
but the LLM APIs agents call (OpenAI's, Anthropic's) take only ``^[a-zA-Z0-9_-]{1,64}$``.
:class:`AgentNames` gives each tool a name that fits the stricter rule and maps it back:
every character outside it becomes ``_`` (``bank.signIn`` → ``bank_signIn``), a name longer
than 64 characters keeps its first 57 and a ``_`` and six hex digits of its SHA-1, and a
name that would then clash with another tool's gets the same six-digit suffix.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from trailblaze.core import jsonsource

#: what LLM APIs accept as a function name (OpenAI's and Anthropic's rule)
AGENT_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: what the MCP specification allows as a tool name (2025-11-25, "Tool names")
MCP_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_NOT_AGENT_CHARACTER = re.compile(r"[^a-zA-Z0-9_-]")

#: the matcher blocks of a ``nodeSelector`` that each platform's drivers match
PLATFORM_BLOCKS: dict[str, tuple[str, ...]] = {
    "web": ("web",),
    "android": ("androidAccessibility", "androidMaestro"),
    "ios": ("iosMaestro",),
}
#: a selector's relations to other elements, each a selector of the same kind
_RELATIONS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild", "containsDescendants")
_SELECTOR_DEFS = frozenset({"NodeSelector", "ElementSelector"})


def agent_schema(schema: Mapping[str, Any], platform: str | None = None) -> dict[str, Any]:
    """``schema`` (a tool's input JSON Schema) as an LLM is offered it; see the module docstring.
    ``platform`` (``web``, ``android``, ``ios``) narrows selector descriptions to its matchers."""
    source = copy.deepcopy(dict(schema))
    defs = source.pop("$defs", None) or source.pop("definitions", None) or {}
    properties = source.get("properties") or {}
    out: dict[str, Any] = {"type": "object"}
    compact: dict[str, Any] = {}
    for name, prop in properties.items():
        selector = _selector_kind(prop)
        if selector is not None:
            compact[name] = selector_parameter(selector, platform, _description(prop))
        else:
            compact[name] = _simplify(prop, defs, ())
    out["properties"] = compact
    required = [name for name in source.get("required") or () if name in compact]
    if required:
        out["required"] = required
    if source.get("additionalProperties") is False:
        out["additionalProperties"] = False
    return out


def selector_parameter(kind: str, platform: str | None, description: str | None = None) -> dict[str, Any]:
    """A selector parameter in one line: the platform's matcher fields and the relations."""
    from trailblaze.device import selectors

    relations = f"relations {', '.join(_RELATIONS)} (selectors) and index"
    if kind == "ElementSelector":
        own = [n for n in selectors.ElementSelector.model_fields if n not in _RELATIONS and n != "index"]
        shape = f"legacy element selector {{{', '.join(own)}}} with {relations}"
    else:
        blocks = PLATFORM_BLOCKS.get(platform or "") or selectors.DRIVER_BLOCKS[:4]
        parts = []
        for block in blocks:
            model = _model_of(selectors.NodeSelector.model_fields[block].annotation)
            fields = ", ".join(model.model_fields) if model is not None else "…"
            parts.append(f'{{"{block}": {{{fields}}}}}')
        shape = f"stable selector {' or '.join(parts)} with {relations}"
    lead = (description or "").rstrip(". ")
    return {"type": "object", "description": f"{lead}: {shape}" if lead else f"A {shape}"}


def _model_of(annotation: Any) -> Any:
    """The pydantic model inside ``Model | None``."""
    for candidate in getattr(annotation, "__args__", (annotation,)):
        if hasattr(candidate, "model_fields"):
            return candidate
    return None


def _selector_kind(prop: Any) -> str | None:
    """``NodeSelector``/``ElementSelector`` when ``prop`` is such a selector (or null)."""
    if not isinstance(prop, dict):
        return None
    for branch in [prop, *(prop.get("anyOf") or ())]:
        ref = branch.get("$ref") if isinstance(branch, dict) else None
        if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in _SELECTOR_DEFS:
            return ref.rsplit("/", 1)[-1]
    return None


def _description(prop: Any) -> str | None:
    return prop.get("description") if isinstance(prop, dict) else None


def _simplify(node: Any, defs: Mapping[str, Any], seen: tuple[str, ...]) -> Any:
    """``node`` without titles, null branches and ``default: null``, ``$ref``\\ s inlined (a
    recursive one becomes a plain object)."""
    if isinstance(node, list):
        return [_simplify(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        target = defs.get(name)
        extra = {k: v for k, v in node.items() if k != "$ref"}
        if target is None or name in seen:
            return _simplify({"type": "object", **extra}, defs, seen)
        return _simplify({**target, **extra}, defs, (*seen, name))
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" or (key == "default" and value is None):
            continue
        out[key] = _simplify(value, defs, seen)
    branches = out.get("anyOf")
    if isinstance(branches, list):
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1 and isinstance(kept[0], dict):
            del out["anyOf"]
            out = {**kept[0], **{k: v for k, v in out.items() if k not in kept[0] or k == "description"}}
        elif len(kept) != len(branches):
            out["anyOf"] = kept
    return out


# -- arguments that arrive as text ------------------------------------------------------------------------


def parse_json_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` with each object or array parameter given as JSON text parsed: a value is
    parsed only when the parameter's schema takes an object (or array) and no string, and
    the text is a JSON object (or array); anything else is left for validation to judge."""
    properties = schema.get("properties") or {}
    defs = schema.get("$defs") or {}
    out = dict(arguments)
    for name, value in arguments.items():
        if not isinstance(value, str) or name not in properties:
            continue
        kinds = _json_kinds(properties[name], defs)
        if "string" in kinds or not kinds & {"object", "array"}:
            continue
        text = value.strip()
        if not text.startswith(("{", "[")):
            continue
        try:
            parsed = jsonsource.parse(text)  # nesting bounded, as every JSON a client sends
        except ValueError:
            continue
        if ("object" in kinds and isinstance(parsed, dict)) or ("array" in kinds and isinstance(parsed, list)):
            out[name] = parsed
    return out


def _json_kinds(prop: Any, defs: Mapping[str, Any], depth: int = 0) -> set[str]:
    """The JSON types a parameter's schema allows (looking through ``$ref`` and ``anyOf``)."""
    if not isinstance(prop, dict) or depth > 8:
        return set()
    ref = prop.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1])
        return _json_kinds(target, defs, depth + 1) if target is not None else {"object"}
    kinds: set[str] = set()
    declared = prop.get("type")
    if isinstance(declared, str):
        kinds.add(declared)
    elif isinstance(declared, list):
        kinds.update(t for t in declared if isinstance(t, str))
    if "properties" in prop:
        kinds.add("object")
    for key in ("anyOf", "oneOf"):
        for branch in prop.get(key) or ():
            kinds |= _json_kinds(branch, defs, depth + 1)
    return kinds


# -- names ----------------------------------------------------------------------------------------------------


class AgentNames:
    """The names a set of tools is offered to LLMs under, and the tool each one means.

    A name that already fits ``^[a-zA-Z0-9_-]{1,64}$`` is offered as it is; others as the
    module docstring says. The original name is understood too."""

    def __init__(self, names: Iterable[str]) -> None:
        unique = list(dict.fromkeys(names))
        taken = {n for n in unique if AGENT_NAME.match(n)}
        self._offered: dict[str, str] = {n: n for n in taken}
        for name in unique:
            if name in taken:
                continue
            alias = _sanitized(name)
            if alias in taken:
                alias = f"{alias[:57]}_{_digest(name)}"
            taken.add(alias)
            self._offered[name] = alias
        self._tools = {alias: name for name, alias in self._offered.items()}

    def offered(self, name: str) -> str:
        """The name ``name`` is offered under."""
        return self._offered.get(name) or _sanitized(name)

    def tool(self, offered: str) -> str:
        """The tool an offered name (or the tool's own name) means; unknown names unchanged."""
        return self._tools.get(offered, offered)


def _sanitized(name: str) -> str:
    text = _NOT_AGENT_CHARACTER.sub("_", name) or "_"
    if len(text) > 64:
        text = f"{text[:57]}_{_digest(name)}"
    return text


def _digest(name: str) -> str:
    return hashlib.sha1(name.encode("utf-8"), usedforsecurity=False).hexdigest()[:6]
