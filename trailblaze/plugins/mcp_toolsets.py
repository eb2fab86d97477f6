"""Built-in plugin: tools from MCP servers declared in trailblaze.yaml (``mcp_servers:``).

When a session opens, the servers that apply to it are spawned (or reached over HTTP) and
handshaken concurrently, and their tools join ``session.registry``; they are shut down with
the session. Projects without servers pay nothing: the ``mcp`` SDK is imported only here, and
only when a session has servers. Block it with ``-p no:mcp_toolsets``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.runner.session import Session


@hookimpl
def trailblaze_session_setup(session: Session) -> Awaitable[None] | None:
    if not session.run.project.has_dynamic_tools:
        return None
    return _attach(session)


async def _attach(session: Session) -> None:
    from trailblaze.mcp.session import attach

    await attach(session)
