"""Example MCP toolset in Python, on the ``mcp`` SDK's MCPServer, for trailblaze.

Trailblaze spawns it (``script: python_tools/server.py`` in trailblaze.yaml) with the same
Python it runs on, talks MCP over stdio, and registers its tools next to the built-in ones. With
``multi_device: http`` and several sessions at once (``trailblaze run --workers 2``) it is
started once, as ``server.py --transport http --port N``, and serves them all over Streamable
HTTP: each call says which session and device it is for in its ``_meta``, and
``TrailblazeClient.from_context(ctx)`` reads it from there.
It shows the three things an MCP toolset can do for Trailblaze:

* ``_meta`` tags on a tool (``trailblaze/isDelegating``, ``trailblaze/supportedPlatforms``…);
* the ``trailblaze://registry`` resource with more metadata (groups, flags);
* callbacks to the device through ``TrailblazeClient.from_context(ctx)``: queries while
  delegating, actions while executing.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from trailblaze import TrailblazeClient

server = MCPServer("sample-python-tools", version="1.0.0")

FORMS_HEADING = {"web": {"headingLevel": 1, "ariaNameRegex": "Forms"}}
FILTER_BOX = {"web": {"ariaRole": "searchbox", "ariaNameRegex": "Filter items"}}
LIST_LINKS = {"web": {"ariaRole": "link"}, "childOf": {"web": {"dataTestId": "item-list"}}}


@server.tool(
    name="sample_openForms",
    meta={"trailblaze/isDelegating": True, "trailblaze/supportedPlatforms": ["WEB"]},
)
async def open_forms(ctx: Context) -> dict[str, Any]:
    """Open the sample app's forms page, unless it is already showing."""
    tb = TrailblazeClient.from_context(ctx)
    if await tb.is_visible(selector=FORMS_HEADING):  # a query: allowed while delegating
        return {"_trailblaze_delegates": []}
    return {"_trailblaze_delegates": [{"tool": "web_navigate", "args": {"url": "/forms.html"}}]}


@server.tool(name="sample_filterList", meta={"trailblaze/supportedPlatforms": ["WEB"]})
async def filter_list(query: str, expected: int, ctx: Context) -> str:
    """Filter the list page for `query` and check how many items remain (acts through callbacks)."""
    tb = TrailblazeClient.from_context(ctx)
    await tb.navigate("/lists.html")
    await tb.tap(selector=FILTER_BOX)
    await tb.input_text(query)
    count = await tb.get_element_count(selector=LIST_LINKS)
    if count != expected:
        raise ToolError(f"filtering for {query!r} left {count} items, expected {expected}")
    return f"{count} items"


@server.tool(name="sample_openItem", meta={"trailblaze/isDelegating": True})
async def open_item(number: int) -> dict[str, Any]:
    """Open item `number` from the list page."""
    link = {**LIST_LINKS, "web": {"ariaRole": "link", "ariaNameRegex": f"Item {number}"}}
    return {
        "_trailblaze_delegates": [
            {"tool": "web_click", "args": {"nodeSelector": link}},
            {"tool": "web_waitForUrl", "args": {"pattern": f"**/detail.html?item={number}"}},
        ]
    }


@server.resource("trailblaze://registry", mime_type="application/json")
def registry() -> str:
    """Metadata for Trailblaze (seed 000's registry shape); tool `_meta` wins where both say."""
    return json.dumps(
        {
            "tools": {
                "sample_openForms": {"groups": ["sample", "navigation"]},
                "sample_filterList": {"groups": ["sample", "lists"], "isRecordable": True},
                "sample_openItem": {"groups": ["sample", "lists"], "platforms": ["web"]},
            },
            "groups": {
                "sample": {"description": "Tools for the bundled sample app", "defaultEnabled": True},
                "lists": {"description": "The list page", "defaultEnabled": True},
                "navigation": {"description": "Getting around", "defaultEnabled": True},
            },
            "serverInfo": {"name": "sample-python-tools", "version": "1.0.0"},
        }
    )


if __name__ == "__main__":
    options = argparse.ArgumentParser()
    options.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    options.add_argument("--port", type=int, default=0)
    given = options.parse_args()
    if given.transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=given.port)
    else:
        server.run()
