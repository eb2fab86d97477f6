"""Attach a session's MCP servers: spawn and connect them all at once, register their tools.

Called from the ``mcp_toolsets`` plugin's ``trailblaze_session_setup``: it attaches servers to a
:class:`trailblaze.api.session.Session`. Everything it opens is registered on
``session.exit_stack``, so it is closed when the session ends — passed, failed or interrupted.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import ErrorList, InfrastructureError, TrailblazeError, UsageError
from trailblaze.core.pathnames import path_component
from trailblaze.device import masking
from trailblaze.device.drivernames import DriverContext, upstream_key
from trailblaze.mcpclient import rpc
from trailblaze.mcpclient.declarations import ServerDecl, group_by_spawn, session_declarations
from trailblaze.mcpclient.tool import CallContext, McpTool, names_context, user_schema
from trailblaze.tools import metadata
from trailblaze.tools.model import ToolMetadata, ToolSpec

if TYPE_CHECKING:
    import mcp_types

    from trailblaze.api.session import Session
    from trailblaze.mcpclient.connection import Connection
    from trailblaze.mcpclient.shared import SharedServer

STATE_KEY = "mcp_toolsets"


def driver_context(session: Session) -> DriverContext:
    driver = session.driver
    registry = session.run.project.drivers
    return DriverContext(driver.key, driver.platform, tuple(getattr(driver, "aliases", ())), registry.expand)


def log_dir(session: Session) -> Path:
    """Where the servers' stderr goes: ``.trailblaze/logs/<session id>/`` next to trailblaze.yaml."""
    return session.run.config.root / ".trailblaze" / "logs" / session.id


async def attach(session: Session) -> list[Connection]:
    """Spawn/connect the session's servers concurrently and add their tools to its registry.

    A session set up again (``trailblaze mcp``'s ``toolbox(action=RELOAD)``) first shuts down
    the servers it attached before: they start afresh, with their code as it is now."""
    await _detach(session)
    config = session.run.config
    driver = driver_context(session)
    decls = session_declarations(config, driver, target=session.target)
    if not decls:
        return []
    from trailblaze.mcpclient import prefork

    if any(prefork.eligible(d) and not shares_server(session, d) for d in decls):
        try:
            helper = prefork.acquire()  # it imports the SDK while we do: start it first
        except OSError:
            pass  # no helper: the servers are spawned fresh
        else:
            session.exit_stack.push_async_callback(prefork.release, helper)
    from trailblaze.mcpclient.connection import Connection  # the mcp SDK: only when there is a server

    server = await rpc.acquire(config.getini("callback_port"))
    session.exit_stack.push_async_callback(rpc.release, server)
    token = server.new_session()
    session.exit_stack.callback(server.end_session, token)
    groups = group_by_spawn(decls)
    folder = log_dir(session)

    def redact(line: str) -> str:
        return masking.redact(line, session.secrets)

    connections: list[Connection | None] = [None] * len(groups)
    acquired: list[tuple[ServerDecl, SharedServer]] = []

    async def open_one(index: int, decl: ServerDecl) -> None:
        if shares_server(session, decl):
            from trailblaze.mcpclient import shared

            environment = shared_environment(decl, server.url)
            host = await shared.acquire(session.run.id, decl, environment, shared_log(session, decl))
            acquired.append((decl, host))
            host.watch(session.mark_broken)  # it died: the session's next trail gets a fresh one
            reached = replace(decl, kind="http", url=host.url, headers=())
            connection = connections[index] = Connection(reached, shared=host)
        else:
            environment = server_environment(session, decl, server.url, token)
            connection = connections[index] = Connection(decl, environment, folder / _log_name(decl), redact)
        await connection.start()

    async def release_all() -> None:
        from trailblaze.mcpclient import shared

        await asyncio.gather(
            *(shared.release(session.run.id, decl, host) for decl, host in acquired), return_exceptions=True
        )

    async def close_all() -> None:
        await asyncio.gather(*(c.close() for c in connections if c is not None), return_exceptions=True)

    session.exit_stack.push_async_callback(release_all)  # after the connections to them are closed
    session.exit_stack.push_async_callback(close_all)
    results = await asyncio.gather(
        *(open_one(index, group[0]) for index, group in enumerate(groups)), return_exceptions=True
    )
    failures: list[TrailblazeError] = []
    for result in results:
        if isinstance(result, asyncio.CancelledError):
            raise result
        if isinstance(result, TrailblazeError):
            failures.append(result)
        elif isinstance(result, BaseException):
            failures.append(InfrastructureError(f"MCP server failed to start: {type(result).__name__}: {result}"))
    if failures:
        raise failures[0] if len(failures) == 1 else ErrorList(failures)
    calls = CallContext(server, token)
    registered: dict[str, ServerDecl] = {}
    opened = [c for c in connections if c is not None]
    for group, connection in zip(groups, opened, strict=True):
        _register(session, group, connection, calls, registered)
    session.state[STATE_KEY] = opened
    return opened


async def _detach(session: Session) -> None:
    previous: list[Connection] = session.state.pop(STATE_KEY, [])
    await asyncio.gather(*(c.close() for c in previous), return_exceptions=True)


def server_environment(
    session: Session, decl: ServerDecl, url: str, token: str, inherited: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The inherited environment (``inherited``, else all of trailblaze's), the entry's ``env:``,
    then seed 003's ``TRAILBLAZE_*``."""
    if decl.kind == "http":
        return {}
    info = session.info
    return {
        **(os.environ if inherited is None else inherited),
        **dict(decl.env),
        "TRAILBLAZE_DEVICE_PLATFORM": info.platform.upper(),
        "TRAILBLAZE_DEVICE_DRIVER": upstream_key(session.driver.key, getattr(session.driver, "aliases", ())),
        "TRAILBLAZE_DEVICE_ID": info.id,
        "TRAILBLAZE_DEVICE_WIDTH_PX": str(info.width),
        "TRAILBLAZE_DEVICE_HEIGHT_PX": str(info.height),
        "TRAILBLAZE_SESSION_ID": session.id,
        "TRAILBLAZE_TOOLSET_FILE": decl.toolset_file,
        "TRAILBLAZE_CALLBACK_URL": url,
        "TRAILBLAZE_CALLBACK_TOKEN": token,
    }


def shares_server(session: Session, decl: ServerDecl) -> bool:
    """Whether the session reaches ``decl`` on the run's one HTTP server: the entry says
    ``multi_device: http`` and the run has several sessions at once (one session keeps stdio)."""
    return decl.multi_device == "http" and decl.kind == "stdio" and session.run.lanes > 1


def shared_environment(decl: ServerDecl, url: str, inherited: Mapping[str, str] | None = None) -> dict[str, str]:
    """A shared server's environment: what a stdio server gets but what names one session or
    device (those come with each call, in its ``_meta``)."""
    return {
        **(os.environ if inherited is None else inherited),
        **dict(decl.env),
        "TRAILBLAZE_TOOLSET_FILE": decl.toolset_file,
        "TRAILBLAZE_CALLBACK_URL": url,
        "TRAILBLAZE_MCP_TRANSPORT": "http",
    }


def shared_log(session: Session, decl: ServerDecl) -> Path:
    """Where a shared server's output goes: ``.trailblaze/logs/run-<run id>/<server>.http.log``."""
    folder = session.run.config.root / ".trailblaze" / "logs" / f"run-{session.run.id}"
    return folder / (path_component(decl.label, fallback="server") + ".http.log")


def _log_name(decl: ServerDecl) -> str:
    return path_component(decl.label, fallback="server") + ".stderr.log"


def _register(
    session: Session,
    group: list[ServerDecl],
    connection: Connection,
    calls: CallContext,
    registered: dict[str, ServerDecl],
) -> None:
    """Register one server's tools, once per tool, under the first declaration that takes it."""
    offered = {tool.name: tool for tool in connection.tools}
    entries = _registry_tools(connection)
    groups_off = _groups_off_by_default(connection)
    server_info = _server_info(connection)
    driver = driver_context(session)
    done: set[str] = set()
    for decl in group:
        toolset = decl.toolset_config
        if toolset is not None:
            _check_names(decl, "tools", toolset.tools, offered)
            _check_names(decl, "tool_meta", list(toolset.tool_meta), offered)
        for tool in connection.tools:
            if tool.name in done or (toolset is not None and toolset.tools and tool.name not in toolset.tools):
                continue
            done.add(tool.name)
            meta = _metadata(session, decl, tool, entries.get(tool.name))
            if meta.groups and all(g in groups_off for g in meta.groups):
                meta = replace(meta, default_enabled=False)
            if not metadata.applies(meta, driver.names, driver.platform):
                continue
            _check_collision(session, decl, tool.name, registered)
            schema = dict(tool.input_schema or {"type": "object"})
            aware = decl.aware or meta.requires_context or names_context(schema)
            spec = ToolSpec(
                name=tool.name,
                description=(tool.description or "").strip(),
                input_schema=user_schema(schema),
                metadata=meta,
                implementation=McpTool(connection, tool.name, schema, aware=aware, calls=calls),
                source=decl.source,
                server_info=server_info,
            )
            session.registry.add(spec)
            registered[tool.name] = decl


def _registry_tools(connection: Connection) -> Mapping[str, Any]:
    data = connection.registry
    if data is None:
        return {}
    tools = data.get("tools", {})
    if not isinstance(tools, dict):
        raise InfrastructureError(
            f"MCP server {connection.decl.where}: trailblaze://registry `tools` must be an object"
        )
    return tools


def _groups_off_by_default(connection: Connection) -> frozenset[str]:
    """The registry's groups with ``defaultEnabled: false`` (seed 000's ``GroupInfo``)."""
    groups = (connection.registry or {}).get("groups", {})
    where = f"MCP server {connection.decl.where}: trailblaze://registry"
    if not isinstance(groups, dict):
        raise InfrastructureError(f"{where} `groups` must be an object")
    off = set()
    for name, info in groups.items():
        if not isinstance(info, dict) or not isinstance(info.get("defaultEnabled", True), bool):
            raise InfrastructureError(f"{where} group {name!r} must be {{description, defaultEnabled: true|false}}")
        if info.get("defaultEnabled", True) is False:
            off.add(name)
    return frozenset(off)


def _server_info(connection: Connection) -> dict[str, str] | None:
    """The registry's ``serverInfo`` (name and version), when it has one."""
    info = (connection.registry or {}).get("serverInfo")
    if info is None:
        return None
    if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
        raise InfrastructureError(
            f"MCP server {connection.decl.where}: trailblaze://registry `serverInfo` must be {{name, version}}"
        )
    return {k: info[k] for k in ("name", "version") if k in info}


def _metadata(session: Session, decl: ServerDecl, tool: mcp_types.Tool, entry: Any) -> ToolMetadata:
    source = f"MCP server {decl.where}, tool {tool.name}"
    layers = [metadata.tool_meta_layer(tool.meta, source)]
    if entry is not None:
        layers.append(metadata.registry_layer(entry, source))
    toolset = decl.toolset_config
    if toolset is not None:
        layers.append(metadata.overlay_layer(toolset.tool_meta.get(tool.name, {})))
        layers.append(metadata.overlay_layer(toolset.default_meta))
    meta = metadata.merge(layers, toolset=decl.toolset)
    if meta.drivers is not None:  # upstream names, aliases and platforms become driver keys
        try:
            meta = replace(meta, drivers=session.run.project.drivers.expand_all(meta.drivers))
        except UsageError as exc:
            raise UsageError(f"{source}: trailblaze/supportedDrivers: {exc.message}") from None
    return meta


def _check_names(decl: ServerDecl, field: str, names: list[str], offered: Mapping[str, Any]) -> None:
    missing = [n for n in names if n not in offered]
    if missing:
        known = ", ".join(sorted(offered)) or "no tools"
        raise UsageError(
            f"toolset {decl.toolset}: {field}: names {', '.join(repr(m) for m in missing)}, which MCP server "
            f"{decl.label} does not offer (it offers: {known})",
            decl.location,
        )


def _check_collision(session: Session, decl: ServerDecl, name: str, registered: Mapping[str, ServerDecl]) -> None:
    other = registered.get(name)
    if other is not None:
        raise UsageError(
            f"tool {name!r} is offered by two MCP servers: {other.where} and {decl.where}; tool names must be "
            f"unique (rename one, or leave it out with a toolset's tools: filter)"
        )
    existing = session.registry.get(name) or session.run.project.tools.get(name)
    if existing is not None:
        raise UsageError(
            f"tool {name!r} is offered by MCP server {decl.where} and by {existing.source or 'another source'}; "
            f"tool names must be unique (rename one, or block the plugin with -p no:NAME)"
        )
