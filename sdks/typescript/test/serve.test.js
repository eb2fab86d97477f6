// `trailblaze-scripting serve` as Trailblaze runs it: a real MCP client on its stdin/stdout.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const cli = fileURLToPath(new URL("../../../trailblaze/scripting-sdk/dist/cli.js", import.meta.url));
const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const run = promisify(execFile);

/** Trailblaze's request _meta for a Trailblaze-aware tool, without a callback server. */
const META = {
  trailblazeInvocationId: "inv-1",
  trailblaze: {
    sessionId: "sess-1",
    invocationId: "inv-1",
    device: { id: "chromium", platform: "WEB", driver: "playwright-native", width: 1280, height: 720 },
    memory: { user: "ada" },
    target: { id: "shop", appIds: ["com.example.shop"] },
  },
};

/** bun, when this machine has it (`TRAILBLAZE_TEST_BUN` names one elsewhere than PATH). */
const BUN = process.env.TRAILBLAZE_TEST_BUN || which("bun");

function which(name) {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(folder, name);
    if (folder && existsSync(candidate)) return candidate;
  }
  return undefined;
}

async function connect(...files) {
  return connectWith(process.execPath, ["serve", ...files]);
}

async function connectWith(runtime, args) {
  const stderr = [];
  const transport = new StdioClientTransport({ command: runtime, args: [cli, ...args], stderr: "pipe" });
  transport.stderr.on("data", (chunk) => stderr.push(String(chunk)));
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  return { client, stderr };
}

let shop;
before(async () => {
  shop = await connect(fixture("shop_tools.ts"));
});
after(() => shop.client.close());

const call = (name, args = {}, meta = META) => shop.client.callTool({ name, arguments: args, _meta: meta });

test("lists the typed tools of the file and the tools it declares", async () => {
  const { tools } = await shop.client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(byName).sort(), [
    "shop_callOut",
    "shop_crash",
    "shop_described",
    "shop_fail",
    "shop_hello",
    "shop_imperative",
    "shop_signIn",
  ]);
  assert.equal(byName.shop_signIn.description, "Sign in to the shop.\n\nTypes the user and submits.");
  assert.deepEqual(byName.shop_signIn._meta["trailblaze/supportedPlatforms"], ["WEB"]);
  assert.deepEqual(byName.shop_signIn.inputSchema.required, ["user"]);
  assert.equal(byName.shop_imperative.description, "Declared imperatively, with a JSON Schema.");
});

test("a typed handler gets the call's memory, device and target", async () => {
  const result = await call("shop_hello");
  assert.equal(result.isError, undefined);
  assert.deepEqual(result.structuredContent, { greeting: "hello ada", platform: "web", app: "com.example.shop" });
  assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
});

test("seed 003's _trailblazeContext argument is taken off and its memory used when _meta has none", async () => {
  const { memory: _none, ...envelope } = META.trailblaze;
  const result = await call("shop_hello", { _trailblazeContext: { memory: { user: "grace" } } }, { trailblaze: envelope });
  assert.equal(result.structuredContent.greeting, "hello grace");
});

test("arguments are checked against the schema (defaults filled in) before the handler runs", async () => {
  const wrong = await call("shop_described", { city: 3 });
  assert.equal(wrong.isError, true);
  assert.match(wrong.content[0].text, /^invalid arguments: .*city.* must be string/);
  assert.deepEqual(wrong._meta, { trailblaze: { exitCode: 3 } });
  const unknown = await call("shop_described", { city: "Oslo", colour: "red" });
  assert.match(unknown.content[0].text, /^invalid arguments: .*additional properties/i);
  assert.deepEqual((await call("shop_imperative")).structuredContent, { doubled: 4 }); // n defaults to 2
  assert.equal((await call("shop_described", { city: "Oslo" })).content[0].text, "Oslo");
});

test("a tool that throws answers its message, where in the file, and what kind of failure", async () => {
  const failed = await call("shop_fail");
  assert.equal(failed.isError, true);
  assert.deepEqual(failed._meta, { trailblaze: { exitCode: 1 } });
  const [message, frame] = failed.content[0].text.split("\n");
  assert.equal(message, "the cart is empty");
  assert.ok(frame.includes(`${fixture("shop_tools.ts")}:51:`), frame); // the TypeScript line, not the compiled one

  const crashed = await call("shop_crash");
  assert.deepEqual(crashed._meta, { trailblaze: { exitCode: 2 } });
  assert.match(crashed.content[0].text, /^TypeError: Cannot read properties of undefined/);
  assert.ok(!crashed.content[0].text.includes("node_modules"), "only the tool's own frames");

  const outside = await call("shop_callOut", { tool: "web_click" }); // no callback URL in this session
  assert.deepEqual(outside._meta, { trailblaze: { exitCode: 3 } });
  assert.match(outside.content[0].text, /^callTool: not in a Trailblaze session/);
});

test("console.log goes to stderr: stdout stays the MCP connection", async () => {
  await call("shop_imperative", { n: 1 });
  assert.ok(shop.stderr.join("").includes("a stray console.log must not reach stdout"));
});

test("a tool file anywhere resolves @trailblaze/scripting to this SDK, without an npm install", async () => {
  const folder = farFolder();
  try {
    const far = await connect(join(folder, "far_tool.ts"));
    try {
      const result = await far.client.callTool({ name: "far_away", arguments: { n: 7 } });
      assert.equal(result.content[0].text, "far 7");
    } finally {
      await far.client.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** A folder outside any package: a typed tool in TypeScript and a described function in JavaScript. */
function farFolder() {
  const folder = mkdtempSync(join(tmpdir(), "trailmap-tools-"));
  writeFileSync(join(folder, "shared.ts"), 'export const PREFIX: string = "far";\n');
  writeFileSync(
    join(folder, "far_tool.ts"),
    [
      'import { trailblaze } from "@trailblaze/scripting";',
      'import { PREFIX } from "./shared";',
      "/** A tool far from the SDK. */",
      "export const far_away = trailblaze.tool<{ n: number }>(async ({ n }) => `${PREFIX} ${n}`);",
      "",
    ].join("\n"),
  );
  // upstream's other shape: a plain exported function that a descriptor (here: JSON) describes
  writeFileSync(
    join(folder, "far_plain.js"),
    'export async function far_plain(args, ctx) { return `plain ${args.word} ${ctx?.sessionId ?? "no session"}`; }\n',
  );
  return folder;
}

test("serve takes a description instead of reading the sources, and serves the functions it names", async () => {
  const folder = farFolder();
  try {
    const plain = join(folder, "far_plain.js");
    const description = join(folder, "tools.json");
    const schema = { type: "object", properties: { word: { type: "string" } }, required: ["word"] };
    writeFileSync(description, JSON.stringify({ tools: [{ name: "far_plain", file: plain, line: 1, description: "Plain.", inputSchema: schema, _meta: {} }], errors: [] }));
    const served = await connectWith(process.execPath, ["serve", "--description", description, plain]);
    try {
      const { tools } = await served.client.listTools();
      assert.deepEqual(tools.map((t) => [t.name, t.description]), [["far_plain", "Plain."]]);
      const result = await served.client.callTool({ name: "far_plain", arguments: { word: "hi" }, _meta: META });
      assert.equal(result.content[0].text, "plain hi sess-1");
    } finally {
      await served.client.close();
    }
    writeFileSync(description, JSON.stringify({ tools: [{ name: "nothing", file: plain, line: 3, inputSchema: schema, _meta: {} }], errors: [] }));
    const failed = await run(process.execPath, [cli, "serve", "--description", description, plain]).catch((e) => e);
    assert.equal(failed.code, 3);
    assert.match(failed.stderr, /far_plain\.js:3: nothing is not a function the file exports/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("under bun, tool files run as they are and resolve the SDK too", { skip: BUN === undefined && "no bun here" }, async () => {
  const folder = farFolder();
  try {
    const far = await connectWith(BUN, ["serve", join(folder, "far_tool.ts"), fixture("shop_tools.ts")]);
    try {
      assert.equal((await far.client.callTool({ name: "far_away", arguments: { n: 1 } })).content[0].text, "far 1");
      const failed = await far.client.callTool({ name: "shop_fail", arguments: {}, _meta: META });
      assert.ok(failed.content[0].text.startsWith(`the cart is empty\n    at `));
      assert.ok(failed.content[0].text.includes(`${fixture("shop_tools.ts")}:51:`), failed.content[0].text);
    } finally {
      await far.client.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("files that cannot be served say why, and exit 3", async () => {
  const folder = mkdtempSync(join(tmpdir(), "bad-tools-"));
  try {
    mkdirSync(join(folder, "tools"));
    const needs = join(folder, "tools", "needs_a_package.ts");
    writeFileSync(needs, 'import { chunk } from "lodash-never-installed";\nexport const x = chunk;\n');
    const broken = join(folder, "tools", "broken.ts");
    writeFileSync(broken, 'import { trailblaze } from "@trailblaze/scripting";\nexport const t = trailblaze.tool(async () => {;\n');
    const cases = [
      [[fixture("bad_tools.ts")], new RegExp(`${fixture("bad_tools.ts")}:9: bad_functionArg: \\(\\) => void is a function`)],
      [[needs], /the package lodash-never-installed is not installed: run `npm install lodash-never-installed` in the tool's folder/],
      [[broken], /broken\.ts:3: .*expected/],
      [[], /^usage: /],
    ];
    for (const [files, message] of cases) {
      const failed = await run(process.execPath, [cli, "serve", ...files], { timeout: 60_000 }).catch((e) => e);
      assert.equal(failed.code, 3, failed.stderr);
      assert.match(failed.stderr, message);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
