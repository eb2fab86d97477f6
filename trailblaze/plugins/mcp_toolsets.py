"""Built-in plugin: tools from MCP servers declared in trailblaze.yaml.

It owns the keys that declare servers — ``mcp_servers:`` at the top level (every session's),
in each target and in each toolset (declared with ``parser.addini(…, within=…)``, so the core's
models know nothing of MCP; :mod:`trailblaze.mcpclient.settings`) — and ``callback_port:``, and
checks, before any device opens, that the servers a run needs can be started (a ``${VAR}``
that is not set, a missing script). When a session opens, the servers that apply to it are
spawned (or reached over HTTP) and handshaken concurrently, and their tools join
``session.registry``; they are shut down with the session. Projects without servers pay
nothing: the ``mcp`` SDK is imported only when a session has servers. It tells ``trailblaze
doctor`` about Node.js and the scripting SDK that scripted tools and JavaScript servers need.
Block it with ``-p no:mcp_toolsets``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Annotated

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.session import ProjectView, Run, Session
    from trailblaze.core.argparsing import Parser
    from trailblaze.core.errors import TrailblazeError
    from trailblaze.project.config import Config
    from trailblaze.project.workspace import Workspace
    from trailblaze.tools.registry import ToolRegistry


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    from pydantic import Field

    from trailblaze.mcpclient.settings import KEY, McpServers

    #: port of the callback server MCP tools call back on (127.0.0.1); None: a free one
    callback_port = Annotated[int | None, Field(ge=1, le=65535)]

    parser.addini(
        KEY,
        "MCP servers every session gets: a list, or a mapping from each server's name to its entry",
        type=McpServers,
        default=[],
        brings_tools=True,
    )
    parser.addini(
        KEY,
        "MCP servers the target's sessions get (a list, or a mapping by name)",
        type=McpServers,
        default=[],
        within="targets",
        brings_tools=True,
    )
    parser.addini(
        KEY,
        "MCP servers that start when the toolset applies; its tools: filters theirs",
        type=McpServers,
        default=[],
        within="toolsets",
        brings_tools=True,
    )
    parser.addini("callback_port", "port of the callback server on 127.0.0.1 (default: a free one)", callback_port)
    parser.addini(
        "scripted_tools_env",
        "environment variables a trailmap's scripted tools get beyond what node needs (${VAR} takes trailblaze's)",
        dict[str, str],
        default={},
    )


@hookimpl
def trailblaze_workspace_tools(
    workspace: Workspace, registry: ToolRegistry, project: ProjectView
) -> list[TrailblazeError]:
    """A trailmap's scripted tools (``tools/*.ts``, ``*.js``), each run by an MCP server of its
    folder when a session first calls one (:mod:`trailblaze.mcpclient.scripted`)."""
    if not workspace.scripted:
        return []
    from trailblaze.mcpclient.scripted import add_scripted_tools

    return add_scripted_tools(registry, workspace, project.drivers)


@hookimpl
def trailblaze_adds_session_tools(config: Config) -> bool:
    """Sessions get tools from servers when any are declared: at the root, in a target or in a
    toolset."""
    from trailblaze.mcpclient.settings import servers_in

    project = config.project
    return bool(
        config.getini("mcp_servers")
        or any(servers_in(t) for t in project.targets.values())
        or any(servers_in(t) for t in project.toolsets.values())
    )


@hookimpl
def trailblaze_check_run(run: Run) -> list[TrailblazeError] | None:
    """What is wrong with the servers the planned sessions would start (an unset ``${VAR}``, a
    missing script): found now instead of when a device is already open."""
    if not trailblaze_adds_session_tools(run.config):
        return None
    from trailblaze.core.errors import TrailblazeError
    from trailblaze.device.drivernames import DriverContext
    from trailblaze.mcpclient.declarations import session_declarations

    problems: list[TrailblazeError] = []
    seen: set[str] = set()
    for key, target in sorted({(p.driver_key, p.target or "") for p in run.planned if p.skip_reason is None}):
        driver = run.project.drivers.resolve(key)
        context = DriverContext(driver.key, driver.platform, tuple(driver.aliases))
        try:
            session_declarations(run.config, context, target=target or None)
        except TrailblazeError as exc:
            if str(exc) not in seen:
                seen.add(str(exc))
                problems.append(exc)
    return problems


@hookimpl
def trailblaze_session_setup(session: Session) -> Awaitable[None] | None:
    if not trailblaze_adds_session_tools(session.run.config):
        return None
    return _attach(session)


async def _attach(session: Session) -> None:
    from trailblaze.mcpclient.attach import attach

    await attach(session)


@hookimpl
def trailblaze_doctor(run: Run) -> list[DoctorCheck]:
    """Node.js (and bun) and the @trailblaze/scripting SDK: failures when the project has
    scripted tools or MCP servers that run on them, notes otherwise."""
    from trailblaze.mcpclient.doctor import javascript_checks

    return javascript_checks(run)
