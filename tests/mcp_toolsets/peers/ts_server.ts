// A TypeScript MCP server for the tests: `script:` entries ending in .ts run with bun, else tsx
// (found here in node_modules/.bin). It echoes the envelope it gets and delegates.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-probe", version: "1.0.0" });

server.registerTool(
  "ts_openForms",
  {
    description: "Delegate to web_navigate, after checking the envelope says this is the web.",
    inputSchema: { _trailblazeContext: z.object({ device: z.object({ platform: z.string() }) }).passthrough() },
    _meta: { "trailblaze/isDelegating": true },
  },
  async ({ _trailblazeContext }) => {
    const platform: string = _trailblazeContext.device.platform;
    const delegates = platform === "WEB" ? [{ tool: "web_navigate", args: { url: "/forms.html" } }] : [];
    return { content: [{ type: "text", text: "ok" }], structuredContent: { _trailblaze_delegates: delegates } };
  },
);

await server.connect(new StdioServerTransport());
