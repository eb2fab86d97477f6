"""``trailblaze mcp``: an MCP server that lets any agent drive a device and save what it did as a trail.

Seeds 001 (Decision 008) and 004. The client's LLM connects a browser or phone through the
``device`` tool, looks at the screen, acts through the same tools a trail records (the device's
primitives appear as MCP tools once it is connected), and ``trail(action=SAVE)`` writes the
session as a trail file that ``trailblaze run`` replays without any LLM.

Modules, from the wire inwards:

* :mod:`.server` — the MCP server on the SDK's low-level ``Server`` (tools that change per
  session), its stdio and Streamable HTTP transports, shutdown;
* :mod:`.http` — the HTTP app around the SDK's transport: ``/mcp``, ``/ping``, Host/Origin
  checks and the bearer token;
* :mod:`.session_tools` — upstream's session tools by name, one module per family:
  :mod:`.device_tool` (``device``), :mod:`.step_tools` (``step``, ``runPrompt``),
  :mod:`.ask_tool` (``ask``), :mod:`.trail_tools` (``trail``, ``session``),
  :mod:`.config_tools` (``config``, ``toolbox``); :mod:`.device_calls` runs the device's own
  tools, and :mod:`.calls` holds what they all share (the call, the reply, ``ToolError``);
* :mod:`.state` — one client's session: settings, the connected device, the recording;
* :mod:`.device` — a device session opened through the runner, and calls made on it;
* :mod:`.recording` — the recorded steps, written as a unified-format trail file;
* :mod:`.categories` — upstream's tool categories and profiles (``toolbox``);
* :mod:`.sampling` — the agent that thinks with the client's LLM (MCP sampling);
* :mod:`.settings` — the session settings and their enums.

The ``mcp`` SDK is imported only by :mod:`.server` and :mod:`.http`, when the command runs.
"""
