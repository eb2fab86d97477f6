"""Tools from MCP servers: declarations, connections, metadata, calls, the callback server
and the Python client SDK.

Nothing in this package imports the ``mcp`` SDK at module level: it costs more than a second,
so it is imported only when a session actually connects to a server."""
