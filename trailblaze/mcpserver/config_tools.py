"""The ``config`` and ``toolbox`` session tools: the session's settings, and which device tools
the client is offered (categories and profiles).
"""

from __future__ import annotations

from typing import Any

from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver.calls import Call, Reply, ToolError, parse_args
from trailblaze.mcpserver.catalog import SESSION_TOOL_NAMES
from trailblaze.mcpserver.categories import (
    DESCRIPTIONS,
    PROFILES,
    Category,
    Profile,
    categories_of,
    profile_categories,
    profile_of,
    same_action_as,
)
from trailblaze.mcpserver.reload import reload_tools
from trailblaze.mcpserver.settings import (
    CONFIG_KEYS,
    config_key,
)
from trailblaze.mcpserver.state import ClientState


async def config(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.ConfigArgs = parse_args(A.ConfigArgs, arguments)
    state = call.state
    settings = state.settings
    if args.action is A.ConfigAction.LIST:
        return Reply(
            {
                "keys": [
                    {"key": k.name, "description": k.description, "value": settings.get(k), "options": k.options}
                    for k in CONFIG_KEYS
                ]
            }
        )
    if args.action is A.ConfigAction.GET:
        if args.key is None:
            return Reply({"values": settings.values()})
        key = _config_key(args.key)
        return Reply(
            {"key": key.name, "value": settings.get(key), "options": key.options, "description": key.description}
        )
    if args.key is None or args.value is None:
        raise ToolError('SET needs a key and a value: config(action=SET, key="mode", value="TRAILBLAZE_AS_AGENT")')
    key = _config_key(args.key)
    try:
        value = key.parse(args.value)
    except ValueError as exc:
        raise ToolError(f"{key.name}: {exc}") from None
    note = None
    if key.name == "target":
        value = None if str(value).strip().lower() in ("", "none", "clear") else str(value).strip()
        project = state.project
        workspace = project.workspace
        if value is not None and project.target_config(value, workspace) is None:
            known = sorted({*project.config.project.targets, *(workspace.targets if workspace else ())})
            raise ToolError(f"unknown target {value!r} (targets: {', '.join(known) or 'none are configured'})")
    before = settings.get(key)
    setattr(settings, key.attribute, value)
    settings.changed.add(key.name)
    changed = settings.get(key) != before
    if changed and key.name == "target":
        async with state.lock:
            if await state.reconnect_for_target():
                note = "the device was connected again for the new target (its tools and base URL)"
    if key.name == "toolProfile":
        await enable(call, profile_categories(value))
    elif changed and key.name in ("mode", "target"):
        await call.tools_changed()
    return Reply({"key": key.name, "value": settings.get(key), "changed": changed, "note": note})


def _config_key(name: str) -> Any:
    key = config_key(name)
    if key is None:
        raise ToolError(
            f"unknown config key {name!r}; config(action=LIST) lists them ({', '.join(k.name for k in CONFIG_KEYS)})"
        )
    return key


async def toolbox(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.ToolboxArgs = parse_args(A.ToolboxArgs, arguments)
    state = call.state
    if args.action is A.ToolboxAction.LIST:
        return Reply(_toolbox_listing(state, args))
    if args.action is A.ToolboxAction.RELOAD:
        reloaded = await reload_tools(state)
        await call.tools_changed()
        return Reply(reloaded)
    concrete = {c for c in Category if c is not Category.ALL}
    enabled = concrete if Category.ALL in state.enabled else set(state.enabled)
    if args.action is A.ToolboxAction.PROFILE:
        if args.profile is None:
            raise ToolError(f"PROFILE needs profile: {', '.join(p.value for p in Profile)}")
        enabled = set(profile_categories(args.profile))
    else:
        if not args.categories:
            raise ToolError(f'{args.action.value} needs categories, e.g. categories=["VERIFICATION"]')
        chosen = concrete if Category.ALL in args.categories else set(args.categories)
        enabled = enabled | chosen if args.action is A.ToolboxAction.ENABLE else enabled - chosen
        if args.action is A.ToolboxAction.ENABLE and Category.ALL in args.categories:
            enabled = {Category.ALL}
    await enable(call, frozenset(enabled))
    listing = _toolbox_listing(state, A.parse(A.ToolboxArgs, {}))
    return Reply({"enabled": listing["enabled"], "offered": listing["offered"], "categories": listing["categories"]})


async def enable(call: Call, categories: frozenset[Category]) -> None:
    """Offer the device tools of ``categories``; the client is told when the list changes."""
    state = call.state
    before = state.enabled
    state.enabled = categories
    state.settings.tool_profile = profile_of(categories)
    if categories != before:
        await call.tools_changed()


def _toolbox_listing(state: ClientState, args: A.ToolboxArgs) -> dict[str, Any]:
    offered_names = {s.name for s in state.device_tools(SESSION_TOOL_NAMES)}
    builtin = state.builtin_sources()
    platform = state.platform()
    groups: dict[str, list[dict[str, Any]]] = {c.value: [] for c in Category if c is not Category.ALL}
    for spec in state.all_device_tools():
        if args.name and spec.name != args.name:
            continue
        if args.search and args.search.lower() not in f"{spec.name} {spec.description}".lower():
            continue
        entry: dict[str, Any] = {
            "name": spec.name,
            "description": (spec.description or "").split("\n\n", 1)[0],
            "offered": spec.name in offered_names,
        }
        instead = same_action_as(spec.name, platform, offered_names)
        if instead is not None:
            entry["instead"] = instead  # offered in its place: the same action, the device's own name
        if args.detail or args.name:
            entry["inputSchema"] = spec.input_schema
            entry["source"] = spec.source
        for category in categories_of(spec, builtin):
            groups[category.value].append(entry)
    enabled = sorted(c.value for c in state.enabled)
    profile = state.settings.tool_profile
    return {
        "enabled": enabled,
        "profile": profile.value if profile is not None else None,
        "profiles": {p.value: sorted(c.value for c in cats) for p, cats in PROFILES.items()},
        "categories": [
            {"category": name, "description": DESCRIPTIONS[Category(name)], "tools": tools}
            for name, tools in groups.items()
        ],
        "offered": len(offered_names),
        "connected": state.device is not None,
        "note": None if state.device is not None else "connect a device to see its tools: device(action=WEB)",
    }
