// Example MCP toolset in JavaScript, on @trailblaze/scripting.
// Trailblaze spawns it (`script: js_tools/server.js`, run with node and the SDK trailblaze carries,
// so no `npm install` is needed) and speaks MCP over stdio. Logs go to stderr (console.log too: stdout is the MCP
// connection), which Trailblaze keeps in .trailblaze/logs/. With several sessions at once and `multi_device: http`
// it is started once as `server.js --transport http --port N`: trailblaze.run() then serves every session over
// Streamable HTTP, and each call's client (`client` below) is that call's session and device.

import { trailblaze, z } from "@trailblaze/scripting";

const WEB_ONLY = { "trailblaze/supportedPlatforms": ["WEB"] };
const byTestId = (id) => ({ web: { dataTestId: id } });

trailblaze.tool(
  "js_fillContactForm",
  {
    description: "Fill in the contact form and submit it.",
    inputSchema: { name: z.string(), email: z.string(), plan: z.enum(["Free", "Pro", "Team"]).default("Free") },
    // delegating: the tools it runs through client.tools are what gets recorded, not the tool itself
    _meta: { "trailblaze/isDelegating": true, ...WEB_ONLY },
  },
  async ({ name, email, plan }, _ctx, client) => {
    await client.tools.web_type({ text: name, nodeSelector: byTestId("name-input") });
    await client.tools.web_type({ text: email, nodeSelector: byTestId("email-input") });
    await client.tools.web_selectOption({ values: [plan], nodeSelector: { web: { cssSelector: "#plan" } } });
    await client.tools.web_click({ nodeSelector: { web: { ariaRole: "button", ariaNameRegex: "Submit" } } });
    return `submitted the form for ${name}`;
  },
);

trailblaze.tool(
  "js_signUp",
  {
    description: "Sign up: open the form (a Python tool), fill it in (a JavaScript tool), check the result.",
    inputSchema: { name: z.string(), email: z.string() },
    _meta: { "trailblaze/isDelegating": true, "trailblaze/groups": ["sample-js", "auth"], ...WEB_ONLY },
  },
  async ({ name, email }, _ctx, client) => {
    // a query through the callback API: it looks, and is not recorded
    if (await client.isVisible({ text: `Name: ${name}` })) {
      return `${name} is signed up already`;
    }
    await client.tools.sample_openForms({}); // the Python server's tool
    await client.tools.js_fillContactForm({ name, email, plan: "Pro" });
    await client.tools.web_verifyTextVisible({ text: `Name: ${name}` });
    return `signed up ${name}`;
  },
);

trailblaze.tool(
  "js_checkRemembered",
  {
    description: "Check a value the trail remembered.",
    inputSchema: { variable: z.string(), expected: z.string() },
  },
  async ({ variable, expected }, ctx) => {
    const actual = ctx?.memory.get(variable);
    if (actual !== expected) {
      // an Error fails the step (exit 1); its message is the step's error
      throw new Error(`${variable} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
    return `${variable} = ${actual}`;
  },
);

await trailblaze.run({ name: "sample-js-tools", version: "1.0.0" });
console.error("sample-js-tools: ready");
