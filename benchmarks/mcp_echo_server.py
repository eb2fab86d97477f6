"""The MCP server the MCP benchmarks spawn: one ``echo`` tool, on the ``mcp`` SDK's MCPServer.

``python benchmarks/mcp_echo_server.py [PREFIX]`` names the tool ``PREFIX`` + ``echo`` so several
copies can serve one session without their names colliding.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

PREFIX = sys.argv[1] if len(sys.argv) > 1 else ""
server = MCPServer(f"bench{PREFIX}", version="1.0.0")


@server.tool(name=f"{PREFIX}echo")
def echo(text: str) -> str:
    """Return the text."""
    return text


if __name__ == "__main__":
    server.run()
