// The client's side of the wire, against a local HTTP server that answers as the callback API
// does (the real one is exercised end to end by tests/mcp_toolsets/test_sdk.py).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { fromContext, TrailblazeClient, TrailblazeToolError } from "../dist/index.js";

const requests = [];
let answer = () => ({ result: null });
let server;
let url;

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const message = JSON.parse(body);
      requests.push({ headers: req.headers, message });
      const reply = answer(message);
      if (typeof reply === "string") {
        res.writeHead(502).end(reply);
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...reply }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${server.address().port}/rpc`;
});

after(() => server.close());

function client() {
  requests.length = 0;
  return new TrailblazeClient({ baseUrl: url, token: "tok", invocationId: "inv-7" });
}

test("a command is a JSON-RPC request with the token and the invocation id", async () => {
  answer = () => ({ result: true });
  const tb = client();
  assert.equal(await tb.isVisible({ text: "Welcome", timeoutMs: undefined }), true);
  const [{ headers, message }] = requests;
  assert.equal(headers.authorization, "Bearer tok");
  assert.equal(message.jsonrpc, "2.0");
  assert.equal(message.method, "isVisible");
  assert.deepEqual(message.params, { text: "Welcome", _meta: { trailblazeInvocationId: "inv-7" } });
});

test("tools.<name>(args) and callTool run a tool by name and resolve to its output", async () => {
  answer = (m) => ({ result: { ran: m.params.name, with: m.params.arguments } });
  const tb = client();
  assert.deepEqual(await tb.tools.web_click({ ref: "css=#go" }), { ran: "web_click", with: { ref: "css=#go" } });
  assert.deepEqual(await tb.callTool("wait"), { ran: "wait", with: {} });
  assert.equal(requests[0].message.method, "callTool");
  assert.equal(tb.tools.then, undefined); // `await ctx.tools` is not a tool call
  assert.equal(tb.tools[Symbol.iterator], undefined);
});

test("web_evaluate takes a function and its arguments, a script, or { script }", async () => {
  answer = (m) => ({ result: m.params.arguments.script });
  const tb = client();
  const script = await tb.tools.web_evaluate((a, b) => a + b, 2, "x");
  assert.equal(script, '((a, b) => a + b).apply(null, [2,"x"])');
  assert.equal(await tb.tools.web_evaluate("document.title"), "document.title");
  assert.equal(await tb.tools.web_evaluate({ script: "1" }), "1");
  assert.throws(() => tb.tools.web_evaluate(42), { name: "TypeError", message: /web_evaluate takes a function/ });
});

test("errors keep the API's code and say what they would make of a run", async () => {
  const tb = client();
  const cases = [
    [{ code: -32010, message: "web_verifyTextVisible: 'x' not visible", data: { exitCode: 1 } }, 1],
    [{ code: -32602, message: "unknown tool 'nope'", data: { exitCode: 3 } }, 3],
    [{ code: -32603, message: "broke", data: { exitCode: 2 } }, 2],
    [{ code: -32010, message: "assertion" }, 1],
    [{ code: -32012, message: "pinch is not supported by the playwright-native driver" }, 3],
    [{ code: -32011, message: "refused" }, 2],
  ];
  for (const [error, exitCode] of cases) {
    answer = () => ({ error });
    await assert.rejects(tb.callTool("t"), (thrown) => {
      assert.ok(thrown instanceof TrailblazeToolError);
      assert.equal(thrown.code, error.code);
      assert.equal(thrown.exitCode, exitCode);
      assert.equal(thrown.message, error.message); // a tool's failure names the tool already
      return true;
    });
  }
  answer = () => ({ error: { code: -32012, message: "pinch is not supported here" } });
  await assert.rejects(tb.pinch({ scale: 2 }), { message: "pinch: pinch is not supported here" });
});

test("a server that is gone or answers no JSON is an error of exit code 2", async () => {
  answer = () => "Bad Gateway";
  await assert.rejects(client().pressBack(), { exitCode: 2, message: /pressBack: the callback API answered HTTP 502 with no JSON: Bad Gateway/ });
  const gone = new TrailblazeClient({ baseUrl: "http://127.0.0.1:1/rpc" });
  await assert.rejects(gone.navigate({ url: "/" }), { exitCode: 2, message: /navigate: the callback to http:\/\/127.0.0.1:1\/rpc failed \(/ });
});

test("outside a session the client says so", async () => {
  const saved = process.env.TRAILBLAZE_CALLBACK_URL;
  delete process.env.TRAILBLAZE_CALLBACK_URL;
  try {
    await assert.rejects(new TrailblazeClient().tap({ text: "x" }), { exitCode: 3, message: /tap: not in a Trailblaze session/ });
    await assert.rejects(fromContext({}).callTool("x"), { exitCode: 3 });
  } finally {
    if (saved !== undefined) process.env.TRAILBLAZE_CALLBACK_URL = saved;
  }
});

test("fromContext reads an MCP handler's extra; the environment fills in what it lacks", async () => {
  process.env.TRAILBLAZE_CALLBACK_TOKEN = "from-env";
  try {
    const extra = {
      _meta: {
        trailblaze: {
          baseUrl: url,
          sessionId: "s",
          invocationId: "inv-9",
          device: { platform: "IOS", driver: "ios-wda", width: 390, height: 844 },
        },
      },
    };
    const tb = fromContext(extra);
    assert.equal(tb.invocationId, "inv-9");
    assert.equal(tb.token, "from-env");
    assert.equal(tb.device.platform, "ios");
    answer = () => ({ result: 3 });
    requests.length = 0;
    assert.equal(await tb.getElementCount({ text: "Row" }), 3);
    assert.equal(requests[0].headers.authorization, "Bearer from-env");
  } finally {
    delete process.env.TRAILBLAZE_CALLBACK_TOKEN;
  }
});
