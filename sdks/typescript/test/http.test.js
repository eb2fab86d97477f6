// `trailblaze.run()` started with `--transport http --port N` (what Trailblaze appends for
// `multi_device: http`): one process, Streamable HTTP at /mcp, each client its own MCP session,
// and each call's context the one its own `_meta` names — real MCP clients, the packaged SDK.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { transportFromArgs } from "../dist/server.js";

const SDK = fileURLToPath(new URL("../../../trailblaze/scripting-sdk/", import.meta.url));
const register = pathToFileURL(join(SDK, "dist", "register.js")).href;

let folder;
before(() => {
  folder = mkdtempSync(join(tmpdir(), "http-"));
});
after(() => rmSync(folder, { recursive: true, force: true }));

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function meta(session, device) {
  return {
    trailblazeInvocationId: `inv-${session}`,
    trailblaze: { sessionId: session, invocationId: `inv-${session}`, device: { id: device, platform: "WEB", driver: "web", width: 1, height: 1 } },
  };
}

test("--transport and --port are read from the arguments; anything else is refused", () => {
  assert.deepEqual(transportFromArgs(["server.js", "--transport", "http", "--port", "4100"]), { transport: "http", port: 4100 });
  assert.deepEqual(transportFromArgs(["--transport=stdio"]), { transport: "stdio" });
  assert.deepEqual(transportFromArgs([]), {});
  assert.throws(() => transportFromArgs(["--transport", "sse"]), /--transport must be stdio or http/);
  assert.throws(() => transportFromArgs(["--port", "http"]), /--port must be a port number/);
});

test("one process serves two clients over HTTP, each call with its own session's context", async () => {
  const server = join(folder, "server.js");
  writeFileSync(
    server,
    'import { trailblaze } from "@trailblaze/scripting";\n' +
      'trailblaze.tool("whoami", { description: "who asks", inputSchema: {} }, async (_args, ctx) => `${ctx?.sessionId} on ${ctx?.device.instanceId} in ${process.pid}`);\n' +
      "await trailblaze.run();\n",
  );
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", register, server, "--transport", "http", "--port", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stderr = [];
  child.stderr.on("data", (chunk) => stderr.push(String(chunk)));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  try {
    for (let i = 0; !stderr.join("").includes("Streamable HTTP at"); i++) {
      assert.ok(i < 200, `the server did not listen: ${stderr.join("")}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const clients = [];
    for (let i = 0; i < 2; i++) {
      const client = new Client({ name: `session-${i}`, version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      clients.push(client);
    }
    const answers = await Promise.all(
      clients.map((client, i) => client.callTool({ name: "whoami", arguments: {}, _meta: meta(`s${i}`, `d${i}`) })),
    );
    assert.deepEqual(
      answers.map((a) => a.content[0].text),
      [`s0 on d0 in ${child.pid}`, `s1 on d1 in ${child.pid}`],
    );
    const unknown = await fetch(`http://127.0.0.1:${port}/elsewhere`);
    assert.equal(unknown.status, 404);
    for (const client of clients) await client.close();
  } finally {
    child.kill("SIGTERM");
  }
  assert.equal(await exited, 0); // SIGTERM closes it
});
