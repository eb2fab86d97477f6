"""An MCP server whose tools have the names it is given: ``named.py NAMES_JSON`` lists one tool per
name in the JSON list, in order and as given (repeats included), each answering with its name."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

NAMES: list[str] = json.loads(sys.argv[1])


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    schema = {"type": "object", "properties": {}}
    return types.ListToolsResult(tools=[types.Tool(name=n, description="a tool", input_schema=schema) for n in NAMES])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=f"called {params.name}")])


async def main() -> None:
    server = Server("named", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
