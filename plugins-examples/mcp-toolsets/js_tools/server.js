// Example MCP toolset in JavaScript, on the official TypeScript SDK (@modelcontextprotocol/sdk).
// Trailblaze spawns it (`script: js_tools/server.js`, run with node) and speaks MCP over stdio;
// run `npm ci` in this folder first. Nothing may be printed to stdout but MCP messages: log to
// stderr (console.error), which Trailblaze keeps in .trailblaze/logs/.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

import { callTrailblaze, delegate } from "./trailblaze.js";

const server = new McpServer({ name: "sample-js-tools", version: "1.0.0" });
const WEB_ONLY = { "trailblaze/supportedPlatforms": ["WEB"] };
const byTestId = (id) => ({ web: { dataTestId: id } });

server.registerTool(
  "js_fillContactForm",
  {
    description: "Fill in the contact form and submit it.",
    inputSchema: { name: z.string(), email: z.string(), plan: z.enum(["Free", "Pro", "Team"]).default("Free") },
    _meta: { "trailblaze/isDelegating": true, ...WEB_ONLY },
  },
  async ({ name, email, plan }) =>
    delegate([
      ["web_type", { text: name, nodeSelector: byTestId("name-input") }],
      ["web_type", { text: email, nodeSelector: byTestId("email-input") }],
      ["web_selectOption", { values: [plan], nodeSelector: { web: { cssSelector: "#plan" } } }],
      ["web_click", { nodeSelector: { web: { ariaRole: "button", ariaNameRegex: "Submit" } } }],
    ]),
);

server.registerTool(
  "js_signUp",
  {
    description: "Sign up: open the form (a Python tool), fill it in (a JavaScript tool), check the result.",
    inputSchema: { name: z.string(), email: z.string() },
    _meta: { "trailblaze/isDelegating": true, "trailblaze/groups": ["sample-js", "auth"], ...WEB_ONLY },
  },
  async ({ name, email }, extra) => {
    // a query through the callback API; a delegating tool may look but not act
    const alreadySignedUp = await callTrailblaze(extra, "isVisible", { text: `Name: ${name}` });
    if (alreadySignedUp) {
      return delegate([]);
    }
    return delegate([
      ["sample_openForms"],
      ["js_fillContactForm", { name, email, plan: "Pro" }],
      ["web_verifyTextVisible", { text: `Name: ${name}` }],
    ]);
  },
);

server.registerTool(
  "js_checkRemembered",
  {
    description: "Check a value the trail remembered, from the _trailblazeContext envelope.",
    inputSchema: {
      variable: z.string(),
      expected: z.string(),
      // script: servers get Trailblaze's envelope (memory, device) in this reserved argument
      _trailblazeContext: z.object({ memory: z.record(z.string(), z.any()) }).passthrough().optional(),
    },
  },
  async ({ variable, expected, _trailblazeContext }) => {
    const actual = _trailblazeContext?.memory?.[variable];
    if (actual !== expected) {
      return { isError: true, content: [{ type: "text", text: `${variable} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}` }] };
    }
    return { content: [{ type: "text", text: `${variable} = ${actual}` }] };
  },
);

await server.connect(new StdioServerTransport());
console.error("sample-js-tools: ready");
