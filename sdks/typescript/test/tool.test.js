import assert from "node:assert/strict";
import { test } from "node:test";

import { trailblaze } from "../dist/index.js";
import { takePendingTools } from "../dist/tool.js";

test("a typed tool is a plain function a unit test can call with its own context and client", async () => {
  const calls = [];
  const client = { tools: new Proxy({}, { get: (_t, name) => async (args) => (calls.push([name, args]), "ok") }) };
  const definition = trailblaze.tool({ supportedPlatforms: ["web"] }, async (args, ctx) => {
    await ctx.tools.web_type({ ref: "css=#name", text: args.user });
    ctx.memory.set("last", args.user);
    return `${ctx.memory.get("greeting")} ${ctx.memory.get("last")} on ${ctx.device?.platform ?? "nothing"}`;
  });
  // a plain record stands in for the memory, as in upstream's tests
  const result = await definition({ user: "ada" }, { memory: { greeting: "hi" } }, client);
  assert.equal(result, "hi ada on nothing");
  assert.deepEqual(calls, [["web_type", { ref: "css=#name", text: "ada" }]]);
  assert.equal(await trailblaze.tool(async (args) => JSON.stringify(args))(undefined), "{}");
});

test("imperative tools wait for run(); a name declared twice is an error", () => {
  trailblaze.tool("once", { description: "d" }, async () => "x");
  assert.throws(() => trailblaze.tool("once", {}, async () => "y"), { message: 'trailblaze.tool: a tool named "once" is already declared' });
  assert.deepEqual(takePendingTools().map((t) => t.name), ["once"]);
  assert.deepEqual(takePendingTools(), []);
});

test("other call shapes are refused, saying which shapes there are", () => {
  for (const args of [[], [null], [{}], ["name"], ["name", async () => "x"], [{}, async () => "x", "extra"]]) {
    assert.throws(() => trailblaze.tool(...args), {
      name: "TypeError",
      message: /^trailblaze\.tool takes \(name, spec, handler\), \(spec, handler\) or \(handler\); got \(/,
    });
  }
});
