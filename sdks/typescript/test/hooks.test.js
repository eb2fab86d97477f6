// The module hooks as the packaged SDK runs them (node's loader thread, a real MCP client on the
// server's stdin/stdout): TypeScript compiled once and kept by content, a damaged entry made again,
// TypeScript's import spellings, and which @trailblaze/scripting a `script:` server gets.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const SDK = fileURLToPath(new URL("../../../trailblaze/scripting-sdk/", import.meta.url));
const cli = join(SDK, "dist", "cli.js");
const register = pathToFileURL(join(SDK, "dist", "register.js")).href;

let folder;
before(() => {
  folder = mkdtempSync(join(tmpdir(), "hooks-"));
});
after(() => rmSync(folder, { recursive: true, force: true }));

/** Start `args` under node as an MCP server; its client, and what it wrote on stderr. */
async function serve(args, env = {}) {
  const stderr = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...process.env, ...env },
    stderr: "pipe",
  });
  transport.stderr.on("data", (chunk) => stderr.push(String(chunk)));
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  return { client, stderr };
}

async function callOnce(args, env, tool, toolArgs = {}) {
  const { client, stderr } = await serve(args, env);
  try {
    const result = await client.callTool({ name: tool, arguments: toolArgs });
    assert.equal(result.isError, undefined, `${result.content?.[0]?.text}\n${stderr.join("")}`);
    return result.content[0].text;
  } finally {
    await client.close();
  }
}

function write(relative, text) {
  const path = join(folder, relative);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

test("TypeScript is compiled once: the next server reads the cache, a damaged entry is made again", async () => {
  const tools = write(
    "cached/tools/greet.ts",
    'import { trailblaze } from "@trailblaze/scripting";\n' +
      'import { greeting } from "./greet_shared";\n' + // no extension, as TypeScript allows
      'import { loud } from "./loud.js";\n' + // the .js a .ts file becomes
      "export interface Args { name: string }\n" +
      "export const greet = trailblaze.tool<Args>(async ({ name }: Args) => loud(greeting(name)));\n",
  );
  write("cached/tools/greet_shared.ts", "export const greeting = (name: string): string => `hello ${name}`;\n");
  write("cached/tools/loud.ts", "export function loud(text: string): string { return text.toUpperCase(); }\n");
  const cache = join(folder, "cached", ".cache");
  const env = { TRAILBLAZE_SCRIPTING_CACHE: cache };

  assert.equal(await callOnce([cli, "serve", tools], env, "greet", { name: "ada" }), "HELLO ADA");
  const entries = readdirSync(cache).sort();
  assert.equal(entries.length, 3, "one entry per TypeScript file");

  // the cache is what runs: an entry rewritten (with a matching digest) changes the answer
  const entry = entries.map((name) => join(cache, name)).find((path) => readFileSync(path, "utf-8").includes("toUpperCase"));
  const body = readFileSync(entry, "utf-8").split("\n").slice(1).join("\n").replace("toUpperCase", "toLowerCase");
  const digest = createHash("sha256").update(body).digest("hex");
  writeFileSync(entry, `// trailblaze-scripting cache ${digest}\n${body}`);
  assert.equal(await callOnce([cli, "serve", tools], env, "greet", { name: "ADA" }), "hello ada");

  // a damaged entry (cut short, its digest no longer matching) is compiled again and replaced
  writeFileSync(entry, readFileSync(entry, "utf-8").slice(0, 60));
  assert.equal(await callOnce([cli, "serve", tools], env, "greet", { name: "ada" }), "HELLO ADA");
  assert.ok(readFileSync(entry, "utf-8").includes("toUpperCase"));
  assert.deepEqual(readdirSync(cache).filter((name) => !name.endsWith(".js")), [], "no temporary file left");
});

test("a cache folder that cannot be written only means compiling again", async () => {
  const tools = write("unwritable/tools/one.ts", 'import { trailblaze } from "@trailblaze/scripting";\nexport const one = trailblaze.tool(async () => "1");\n');
  const blocker = write("unwritable/not-a-folder", "a file where the cache folder would be\n");
  assert.equal(await callOnce([cli, "serve", tools], { TRAILBLAZE_SCRIPTING_CACHE: join(blocker, "cache") }, "one"), "1");
});

test("a script: server gets the SDK trailblaze carries unless its folder installed its own", async () => {
  const server =
    'import { trailblaze } from "@trailblaze/scripting";\n' +
    'const which: string = typeof trailblaze.marker === "string" ? trailblaze.marker : "packaged";\n' +
    'trailblaze.tool("which", { description: "which SDK", inputSchema: {} }, async () => ({ content: [{ type: "text", text: which }] }));\n' +
    "await trailblaze.run();\n";
  const bare = write("bare/server.ts", server);
  assert.equal(await callOnce(["--import", register, bare], {}, "which"), "packaged");

  // a server whose folder installed @trailblaze/scripting gets that copy (here one re-exporting
  // the packaged SDK, marked)
  const own = write("own/server.ts", server);
  write("own/node_modules/@trailblaze/scripting/package.json", JSON.stringify({ name: "@trailblaze/scripting", type: "module", exports: "./index.js" }));
  write(
    "own/node_modules/@trailblaze/scripting/index.js",
    `import * as sdk from ${JSON.stringify(pathToFileURL(join(SDK, "dist", "index.js")).href)};\n` +
      'export const trailblaze = { ...sdk.trailblaze, marker: "installed" };\n',
  );
  assert.equal(await callOnce(["--import", register, own], {}, "which"), "installed");
});
