"""A trailmap's scripted tools in a session: one MCP server per ``tools/`` folder, started on first call.

Each folder's files are served by the SDK's ``trailblaze-scripting serve --description FILE``
(bun, else node with the SDK's module hooks, which reuse the JavaScript made of each file
before), given the description :mod:`trailblaze.project.scriptedtools` made (written beside the
session's logs, with the files' full paths), so serving does not load the TypeScript compiler.
The server is a Trailblaze-aware MCP toolset like a ``script:`` entry: its calls carry the memory
and the target, and its tools run the session's tools back through the callback API. It is
started when the session first calls one of the folder's tools — a session that calls none pays
nothing — and stopped with the session. A server that dies is started again by the next call.

Its environment is not all of trailblaze's: only what node and the system need to run it
(:data:`INHERITED`: ``PATH``, ``HOME``, the locale, proxies, ``NODE_*``…), the ``TRAILBLAZE_*``
variables, and what ``scripted_tools_env:`` in trailblaze.yaml declares (``${VAR}`` taking a
value from trailblaze's environment), so a tool cannot print a credential it was never given.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.core import limits
from trailblaze.core.errors import InfrastructureError, Location, UsageError
from trailblaze.core.fileio import write_atomic
from trailblaze.core.pathnames import path_component
from trailblaze.device import masking
from trailblaze.mcpclient.declarations import ServerDecl
from trailblaze.mcpclient.tool import CallContext, McpTool, argument_validator, check_arguments
from trailblaze.project.scriptedtools import ScriptedToolDef, ScriptFolder, find_runtime, runtime_environment
from trailblaze.tools.model import ToolContext, ToolImplementation, ToolOutcome

if TYPE_CHECKING:
    from trailblaze.api.driver import DriverRegistry
    from trailblaze.api.session import Session
    from trailblaze.core.errors import TrailblazeError
    from trailblaze.mcpclient.connection import Connection
    from trailblaze.project.workspace import Workspace
    from trailblaze.tools.registry import ToolRegistry

STATE_KEY = "scripted_tools"
#: variables a scripted tool's server inherits undeclared: what node and the system need, no credential
INHERITED = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "TEMP", "TMP",
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
        "SSL_CERT_FILE", "SSL_CERT_DIR",
        "SYSTEMROOT", "SystemRoot", "COMSPEC", "PATHEXT", "WINDIR", "APPDATA", "LOCALAPPDATA", "USERPROFILE",
    }
)  # fmt: skip
INHERITED_PREFIXES = ("LC_", "NODE_", "XDG_", "TRAILBLAZE_")
#: trailblaze.yaml's key naming more variables for scripted tools (a mapping; ``${VAR}`` allowed)
ENV_KEY = "scripted_tools_env"
#: seconds a folder's server may take to start: node, compiling the files (once), the handshake
STARTUP_TIMEOUT_S = 30.0


@dataclass(slots=True)
class _Served:
    connection: Connection
    calls: CallContext


class ScriptedTool(ToolImplementation):
    """A tool a trailmap's script exports: arguments checked against the schema its ``Args``
    type gave, the call made through its folder's server."""

    def __init__(self, tool: ScriptedToolDef, folder: ScriptFolder, shown: str, folder_shown: str) -> None:
        self.tool = tool
        self.folder = folder
        #: the tool's file and line, and its folder, as messages show them
        self.shown = shown
        self.folder_shown = folder_shown
        self._validator: Any = None

    def validate(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        if self._validator is None:
            self._validator = argument_validator(
                self.tool.input_schema, f"scripted tool {self.tool.name} ({self.shown})"
            )
        return check_arguments(self._validator, self.tool.name, args)

    async def invoke(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
        from trailblaze.api.session import Session  # loaded already: a session is running

        session = ctx.session
        if not isinstance(session, Session):  # the server starts in the session, with its config and logs
            raise InfrastructureError(f"scripted tool {self.tool.name} runs only in a session")
        served = await _served(session, self.folder, self.folder_shown)
        tool = McpTool(served.connection, self.tool.name, self.tool.input_schema, aware=True, calls=served.calls)
        return await tool.invoke(ctx, args)


async def _served(session: Session, folder: ScriptFolder, shown: str) -> _Served:
    """The folder's server in ``session``: started by the first call, shared by the calls after."""
    running: dict[tuple[Path, str], asyncio.Task[_Served]] = session.state.setdefault(STATE_KEY, {})
    key = (folder.folder, folder.key)  # files changed since (toolbox RELOAD): a server of their own
    task = running.get(key)
    if (
        task is not None
        and task.done()
        and (task.cancelled() or task.exception() is not None or task.result().connection.dead)
    ):
        task = None  # a failed start, or a server that died: the next call starts it again
    if task is None:
        task = running[key] = asyncio.ensure_future(_start(session, folder, shown))
    return await asyncio.shield(task)


async def _start(session: Session, folder: ScriptFolder, shown: str) -> _Served:
    from trailblaze.mcpclient import rpc
    from trailblaze.mcpclient.attach import log_dir, server_environment
    from trailblaze.mcpclient.connection import Connection  # the mcp SDK: only when a scripted tool runs

    runtime = find_runtime()
    folder_log = log_dir(session) / path_component(shown, fallback="scripted")
    description = folder_log.with_suffix(".description.json")
    description.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(description, json.dumps(_description(folder)))
    decl = ServerDecl(
        label=f"scripted tools {shown}",
        location=Location(shown),
        origin="trailmap",
        kind="stdio",
        timeout_s=limits.SCRIPTED_TOOL_SECONDS.get(),
        timeout_from=limits.SCRIPTED_TOOL_SECONDS.env,
        startup_timeout_s=STARTUP_TIMEOUT_S,
        command=runtime.command[0],
        args=(
            *runtime.command[1:],
            "serve",
            "--description",
            str(description),
            *(str(p) for p in folder.files),
        ),
        cwd=os.getcwd(),
        env=tuple({**declared_environment(session), **runtime_environment(folder.cache_root)}.items()),
        aware=True,
        toolset_file=str(folder.folder),
    )
    config = session.run.config
    try:
        port = config.getini("callback_port")
    except ValueError:  # the mcp_toolsets plugin is blocked: its key is not part of the file
        port = None
    server = await rpc.acquire(port)
    session.exit_stack.push_async_callback(rpc.release, server)
    token = server.new_session()
    session.exit_stack.callback(server.end_session, token)

    def redact(line: str) -> str:
        return masking.redact(line, session.secrets)

    log = folder_log.with_suffix(".stderr.log")
    inherited = {k: v for k, v in os.environ.items() if k in INHERITED or k.startswith(INHERITED_PREFIXES)}
    connection = Connection(decl, server_environment(session, decl, server.url, token, inherited), log, redact)
    session.exit_stack.push_async_callback(connection.close)
    await connection.start()
    return _Served(connection, CallContext(server, token))


def declared_environment(session: Session) -> dict[str, str]:
    """``scripted_tools_env:`` of trailblaze.yaml, ``${VAR}`` taken from trailblaze's environment."""
    from trailblaze.mcpclient.declarations import expand_values

    config = session.run.config
    try:
        declared = config.getini(ENV_KEY) or {}
    except ValueError:  # the mcp_toolsets plugin is blocked: its key is not part of the file
        return {}
    return expand_values(declared, ENV_KEY, config.location((ENV_KEY,)), os.environ)


def _description(folder: ScriptFolder) -> dict[str, Any]:
    """What ``serve --description`` reads: ``describe``'s shape, with full paths."""
    tools = [
        {
            "name": tool.name,
            "file": str(tool.file.resolve()),
            "line": tool.line,
            "description": tool.description,
            "inputSchema": tool.input_schema,
            "_meta": tool.meta,
        }
        for tool in folder.tools
    ]
    return {"tools": tools, "errors": []}


def add_scripted_tools(registry: ToolRegistry, workspace: Workspace, drivers: DriverRegistry) -> list[TrailblazeError]:
    """Add the workspace's scripted tools to ``registry``, each run by its folder's server (a
    :class:`ScriptedTool`); one a target lists is offered to agents. Returns the problems, each
    at its file:line: a name another tool has, metadata that does not parse."""
    from trailblaze.tools import metadata
    from trailblaze.tools.model import ToolSpec

    problems: list[TrailblazeError] = []
    for name, tool in workspace.scripted.items():
        where = Location(workspace.shown(tool.file), tool.line)
        existing = registry.get(name)
        if existing is not None:
            problems.append(
                UsageError(f"scripted tool {name} has the name of a tool of {existing.source}; rename it", where)
            )
            continue
        try:
            layers = [metadata.tool_meta_layer(tool.meta, f"scripted tool {name}")]
            if name not in workspace.listed_scripted:
                layers.insert(0, {"exposed_to_llm": False})
            meta = metadata.merge(layers)
            if meta.drivers is not None:
                meta = replace(meta, drivers=drivers.expand_all(meta.drivers))
        except (InfrastructureError, UsageError) as exc:
            problems.append(UsageError(exc.message, where))
            continue
        folder = workspace.script_folders[tool.folder]
        registry.add(
            ToolSpec(
                name=name,
                description=tool.description,
                input_schema=tool.input_schema,
                metadata=meta,
                implementation=ScriptedTool(tool, folder, str(where), workspace.shown(tool.folder)),
                source=f"script:{workspace.shown(tool.file)}",
            )
        )
    return problems
