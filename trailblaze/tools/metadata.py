"""Trailblaze metadata of tools: the ``trailblaze/*`` keys and how their layers merge.

The keys are Trailblaze's tool vocabulary (seed 000), read from MCP tools' ``_meta`` and from
the ``default_meta:``/``tool_meta:`` overlays in ``trailblaze.yaml`` (which the configuration
checks when it loads, so this module sits below both).

A tool's flags can come from four places. Highest first (seed 002, "Annotation-overlay
semantics"): the tool's own ``_meta`` in ``tools/list``, the server's ``trailblaze://registry``
resource, the toolset's ``tool_meta:`` for that tool, the toolset's ``default_meta:``, then
Trailblaze's defaults (recordable, exposed to an LLM, not delegating, every platform and driver).
Each key is decided on its own: a server that ships only ``isDelegating`` still gets the
overlay's ``groups``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from trailblaze.core.errors import InfrastructureError
from trailblaze.tools.model import ToolMetadata

PREFIX = "trailblaze/"

#: wire key (without the prefix) → (ToolMetadata field, expected type)
KEYS: dict[str, tuple[str, type]] = {
    "isRecordable": ("recordable", bool),
    "isDelegating": ("delegating", bool),
    "exposedToLlm": ("exposed_to_llm", bool),
    "isForLlm": ("exposed_to_llm", bool),
    "supportedPlatforms": ("platforms", list),
    "supportedDrivers": ("drivers", list),
    "requiresHost": ("requires_host", bool),
    "requiresContext": ("requires_context", bool),
    "toolset": ("toolset", str),
    "groups": ("groups", list),
    # not in the seeds' list: lets an MCP tool be recorded in a ``verify:`` step
    "isVerification": ("verification", bool),
    # not in the seeds' list either: a read-only query, never recorded (see ToolMetadata.query)
    "isQuery": ("query", bool),
}
#: extra spellings the registry resource uses (seed 000's example: ``platforms``)
REGISTRY_ALIASES = {"platforms": "supportedPlatforms", "drivers": "supportedDrivers"}

Layer = dict[str, Any]  # ToolMetadata field → value


def _coerce(key: str, value: Any) -> Any:
    """The value for ``key``, or raise ValueError saying what was expected."""
    field, kind = KEYS[key]
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{PREFIX}{key} must be true or false, got {value!r}")
        return value
    if kind is str:
        if not isinstance(value, str) or not value:
            raise ValueError(f"{PREFIX}{key} must be a name, got {value!r}")
        return value
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{PREFIX}{key} must be a list of names, got {value!r}")
    if field == "platforms":
        return frozenset(v.lower() for v in value)
    if field == "drivers":
        return frozenset(value)
    return tuple(value)


def check_overlay(meta: Mapping[str, Any], where: str) -> Layer:
    """Validate a ``default_meta:``/``tool_meta:`` mapping from trailblaze.yaml (ValueError)."""
    layer: Layer = {}
    for wire, value in meta.items():
        key = wire.removeprefix(PREFIX)
        if not wire.startswith(PREFIX) or key not in KEYS:
            known = ", ".join(PREFIX + k for k in KEYS)
            raise ValueError(f"{where}: unknown key {wire!r} (known: {known})")
        layer[KEYS[key][0]] = _coerce(key, value)
    return layer


def overlay_layer(meta: Mapping[str, Any]) -> Layer:
    """A validated overlay (trailblaze.yaml was checked when it loaded)."""
    return check_overlay(meta, "overlay")


def tool_meta_layer(meta: Mapping[str, Any] | None, source: str) -> Layer:
    """The ``trailblaze/*`` keys of a tool's own ``_meta``; other vendors' keys are ignored, and
    so are ``trailblaze/*`` keys this version does not know (a newer server may send them)."""
    layer: Layer = {}
    for wire, value in (meta or {}).items():
        key = wire.removeprefix(PREFIX)
        if wire.startswith(PREFIX) and key in KEYS:
            try:
                layer[KEYS[key][0]] = _coerce(key, value)
            except ValueError as exc:
                raise InfrastructureError(f"{source}: _meta {exc}") from None
    return layer


def registry_layer(entry: Any, source: str) -> Layer:
    """One tool's entry in the server's ``trailblaze://registry`` (unprefixed or prefixed keys)."""
    if not isinstance(entry, Mapping):
        raise InfrastructureError(f"{source}: trailblaze://registry entry must be an object, got {entry!r}")
    layer: Layer = {}
    for wire, value in entry.items():
        key = REGISTRY_ALIASES.get(wire, wire.removeprefix(PREFIX))
        if key in KEYS and value is not None:
            try:
                layer[KEYS[key][0]] = _coerce(key, value)
            except ValueError as exc:
                raise InfrastructureError(f"{source}: trailblaze://registry {exc}") from None
    return layer


def merge(layers: Iterable[Layer], *, toolset: str | None = None) -> ToolMetadata:
    """Fold ``layers`` (highest precedence first) over the defaults into a :class:`ToolMetadata`."""
    values: Layer = {}
    for layer in layers:
        for field, value in layer.items():
            values.setdefault(field, value)
    if toolset is not None:
        values.setdefault("toolset", toolset)
    meta = ToolMetadata(**values)
    if (meta.delegating or meta.query) and meta.recordable:  # a delegating tool records its delegates
        meta = ToolMetadata(**{**values, "recordable": False})
    return meta


def applies(meta: ToolMetadata, driver_names: Iterable[str], platform: str) -> bool:
    """Whether a session on this driver (its key and aliases) and platform gets the tool."""
    if meta.drivers is not None:
        names = {n.lower() for n in driver_names}
        if not any(d.lower() in names for d in meta.drivers):
            return False
    return meta.platforms is None or platform.lower() in meta.platforms
