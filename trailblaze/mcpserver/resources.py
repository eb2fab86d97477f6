"""MCP resources: what ``trailblaze mcp`` knows, readable without a tool call (seed 000: "metadata
exposed via MCP resources"; upstream's URIs where upstream has them).

* ``trailblaze://about`` (Markdown): what trailblaze is and how an agent uses it;
* ``trailblaze://config`` (JSON): the session's settings, their options, the enabled categories;
* ``trailblaze://registry`` (JSON): the tool registry in seed 000's shape — every tool of the
  device (or of the default device) with its source, platforms, drivers, groups, flags and
  categories, the groups, ``serverInfo``;
* ``trailblaze://tools/categories`` (Markdown): the toolbox's categories and profiles;
* ``trailblaze://devices/connected`` (JSON): the device, as ``device(action=INFO)`` says;
* ``trailblaze://trails`` (JSON): the project's trails — name, file, title, URI;
* ``trailblaze://trails/<path>`` (YAML): one trail file, by its path below the trails folder.

The list holds one resource per trail, so it changes when the session saves a new trail:
the client gets ``notifications/resources/list_changed``. Everything is read when asked, so
``config``, ``registry`` and ``devices/connected`` always say how the session is now (the
registry changes with ``tools/list``). Reads are per client session, as tools are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from trailblaze import __version__
from trailblaze.core.errors import Location, TrailblazeError
from trailblaze.core.sourcefile import read_source
from trailblaze.mcpserver.categories import DESCRIPTIONS, PROFILES, Category, categories_of
from trailblaze.mcpserver.handlers import HANDLERS
from trailblaze.mcpserver.settings import CONFIG_KEYS
from trailblaze.mcpserver.trails import shown, title_of, trail_files, trail_name
from trailblaze.trail.discovery import resolved_path

if TYPE_CHECKING:
    from trailblaze.mcpserver.state import ClientState

ABOUT = "trailblaze://about"
CONFIG = "trailblaze://config"
REGISTRY = "trailblaze://registry"
CATEGORIES = "trailblaze://tools/categories"
DEVICE = "trailblaze://devices/connected"
TRAILS = "trailblaze://trails"
TRAIL_PREFIX = TRAILS + "/"
#: resources per ``resources/list`` page
PAGE_SIZE = 100
#: digits of a cursor (an offset into the list)
_CURSOR_DIGITS = 12
#: the MCP spec's code for a resource that does not exist
RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602
JSON = "application/json"
MARKDOWN = "text/markdown"
YAML = "application/yaml"

_FIXED = [
    (ABOUT, "about", "About Trailblaze", "What trailblaze is and how an agent uses it", MARKDOWN),
    (CONFIG, "config", "Session settings", "The session's settings, their options and enabled tool categories", JSON),
    (REGISTRY, "registry", "Tool registry", "Every tool of the device: source, platforms, groups, flags", JSON),
    (CATEGORIES, "tool-categories", "Tool categories", "The toolbox's categories and profiles", MARKDOWN),
    (DEVICE, "connected-device", "Connected device", "The device this session drives, if any", JSON),
    (TRAILS, "trails", "Trails", "The project's trails: name, file, title and URI", JSON),
]


def listing(state: ClientState, cursor: str | None) -> types.ListResourcesResult:
    """One page of the resources: the fixed ones, then one per trail."""
    every = [
        types.Resource(uri=uri, name=name, title=title, description=description, mime_type=mime)
        for uri, name, title, description, mime in _FIXED
    ]
    folder = state.project.config.trails_dir
    for path in _trail_files(state):
        every.append(
            types.Resource(
                uri=trail_uri(folder, path),
                name=trail_name(folder, path),
                title=title_of(path),
                description=f"The trail file {shown(state, path)}",
                mime_type=YAML,
            )
        )
    start = _offset(cursor)
    end = start + PAGE_SIZE
    return types.ListResourcesResult(resources=every[start:end], next_cursor=str(end) if end < len(every) else None)


def read(state: ClientState, uri: str, instructions: str) -> types.ReadResourceResult:
    """The contents of ``uri``; one that is not there is the MCP spec's -32002 error."""
    if uri.startswith(TRAIL_PREFIX):
        return _text(uri, YAML, _trail_text(state, uri))
    if uri == ABOUT:
        return _text(uri, MARKDOWN, _about(instructions))
    if uri == CONFIG:
        return _json(uri, _config(state))
    if uri == REGISTRY:
        return _json(uri, registry(state))
    if uri == CATEGORIES:
        return _text(uri, MARKDOWN, _categories(state))
    if uri == DEVICE:
        return _json(uri, _device(state))
    if uri == TRAILS:
        return _json(uri, _trails(state))
    raise MCPError(RESOURCE_NOT_FOUND, f"no resource {uri!r}: resources/list lists them")


def trail_uri(folder: Path, path: Path) -> str:
    return TRAIL_PREFIX + quote(_below(folder, path), safe="/")


def _below(folder: Path, path: Path) -> str:
    return Path(resolved_path(path)).relative_to(folder.resolve()).as_posix()


def _trail_files(state: ClientState) -> list[Path]:
    """The trails the resources serve: those whose file is in the trails folder. A link to a
    file elsewhere is left out, as ``show-report`` leaves out a link out of the report's folder."""
    folder = state.project.config.trails_dir.resolve()
    return [path for path in trail_files(state) if Path(resolved_path(path)).is_relative_to(folder)]


def registry(state: ClientState) -> dict[str, Any]:
    """Seed 000's ``trailblaze://registry``: tool metadata by name, the groups, ``serverInfo``."""
    builtin = state.builtin_sources()
    specs = state.all_device_tools()
    offered = {spec.name for spec in state.device_tools(frozenset(HANDLERS))}
    tools: dict[str, Any] = {}
    groups: dict[str, dict[str, Any]] = {}
    for spec in specs:
        entry = {k: v for k, v in spec.to_registry().items() if k not in ("name", "inputSchema")}
        entry["categories"] = sorted(c.value for c in categories_of(spec, builtin))
        entry["offered"] = spec.name in offered
        tools[spec.name] = entry
        for group in spec.metadata.groups:
            info = groups.setdefault(group, {"defaultEnabled": False, "tools": []})
            info["defaultEnabled"] = info["defaultEnabled"] or spec.metadata.default_enabled
            info["tools"].append(spec.name)
    device = state.device
    connected = device is not None and device.session is not None
    return {
        "tools": tools,
        "groups": groups,
        "serverInfo": {"name": "trailblaze", "version": __version__},
        "driver": device.driver_key if connected and device is not None else state.default_driver(),
        "connected": connected,
    }


# -- the contents ------------------------------------------------------------------------------------------


def _about(instructions: str) -> str:
    rows = "\n".join(f"- `{uri}`: {description}" for uri, _, _, description, _ in _FIXED)
    return (
        f"# Trailblaze\n\n{instructions}\n\n## Resources\n\n{rows}\n"
        f"- `{TRAIL_PREFIX}<path>`: one trail file, by its path below the trails folder\n"
    )


def _config(state: ClientState) -> dict[str, Any]:
    settings = state.settings
    return {
        "session": state.id,
        "settings": [
            {"key": k.name, "description": k.description, "currentValue": settings.get(k), "options": k.options}
            for k in CONFIG_KEYS
        ],
        "currentValues": settings.values(),
        "enabledCategories": sorted(c.value for c in state.enabled),
    }


def _categories(state: ClientState) -> str:
    builtin = state.builtin_sources()
    members: dict[Category, list[str]] = {c: [] for c in Category if c is not Category.ALL}
    for spec in state.all_device_tools():
        for category in categories_of(spec, builtin):
            members[category].append(spec.name)
    parts = ["# Tool categories", "", "toolbox(action=ENABLE|DISABLE, categories=[…]) changes which are offered."]
    for category, names in members.items():
        parts += ["", f"## {category.value}", "", DESCRIPTIONS[category], "", f"Tools: {', '.join(names) or 'none'}"]
    parts += ["", "## Profiles", "", "toolbox(action=PROFILE, profile=…):", ""]
    parts += [f"- {p.value}: {', '.join(sorted(c.value for c in cats))}" for p, cats in PROFILES.items()]
    return "\n".join(parts) + "\n"


def _device(state: ClientState) -> dict[str, Any]:
    device = state.device
    if device is None or device.session is None:
        return {"connected": False, "message": "no device connected: device(action=WEB|ANDROID|IOS)"}
    return {"connected": True, **device.describe()}


def _trails(state: ClientState) -> list[dict[str, Any]]:
    folder = state.project.config.trails_dir
    return [
        {"name": trail_name(folder, p), "file": shown(state, p), "title": title_of(p), "uri": trail_uri(folder, p)}
        for p in _trail_files(state)
    ]


def _trail_text(state: ClientState, uri: str) -> str:
    """The text of the trail ``uri`` names: one the list holds, found by name — what the client
    sent never reaches the file system."""
    folder = state.project.config.trails_dir
    relative = unquote(uri.removeprefix(TRAIL_PREFIX))
    if "\x00" in relative:
        raise MCPError(
            INVALID_PARAMS, f"invalid resource URI {_cut(uri)!r}: %00, a NUL character, is in no file's name"
        )
    path = next((p for p in _trail_files(state) if _below(folder, p) == relative), None)
    if path is None:
        raise MCPError(RESOURCE_NOT_FOUND, f"no trail {_cut(relative)!r} in the trails folder: {TRAILS} lists them")
    try:
        return read_source(path)
    except TrailblazeError as exc:
        where = exc.location or Location(None)
        at = Location(shown(state, path), where.line, where.column)  # relative to the project
        raise MCPError(RESOURCE_NOT_FOUND, f"{uri}: {at}: {exc.message}") from None


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if cursor.isascii() and cursor.isdigit() and len(cursor) <= _CURSOR_DIGITS:
        return int(cursor)
    raise MCPError(INVALID_PARAMS, f"invalid cursor {_cut(cursor)!r}: pass the nextCursor of the page before")


def _cut(text: str) -> str:
    """What a message repeats of the client's text: its first 200 characters."""
    return text if len(text) <= 200 else text[:199] + "…"


def _json(uri: str, value: Any) -> types.ReadResourceResult:
    return _text(uri, JSON, json.dumps(value, indent=1, ensure_ascii=False, default=str))


def _text(uri: str, mime: str, text: str) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])
