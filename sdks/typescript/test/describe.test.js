import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { promisify } from "node:util";

import { describe } from "../dist/describe.js";

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const cli = fileURLToPath(new URL("../../../trailblaze/scripting-sdk/dist/cli.js", import.meta.url));

test("a typed tool's name, description, input schema, metadata and place come from its source", () => {
  const { tools, errors } = describe([fixture("shop_tools.ts")]);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    tools.map((t) => t.name),
    ["shop_signIn", "shop_hello", "shop_described", "shop_fail", "shop_crash", "shop_callOut"],
  );
  const [signIn, hello, described] = tools;
  assert.equal(signIn.file, fixture("shop_tools.ts"));
  assert.equal(signIn.line, 27);
  assert.equal(signIn.description, "Sign in to the shop.\n\nTypes the user and submits."); // not the // note
  assert.deepEqual(signIn._meta, {
    "trailblaze/supportedPlatforms": ["WEB"],
    "trailblaze/requiresContext": true,
    "trailblaze/isDelegating": true,
  });
  assert.deepEqual(signIn.inputSchema, {
    type: "object",
    properties: {
      user: { type: "string", description: "Who signs in." },
      remember: { type: "boolean", description: "Remember the user afterwards.", default: true },
      plan: { type: "string", enum: ["Free", "Pro", "Team"] },
      tags: { type: "array", items: { type: "string" } },
      address: {
        type: "object",
        properties: { street: { type: "string", description: "Street and number." }, city: { type: "string" } },
        required: ["street"],
        additionalProperties: false,
      },
      extras: { type: "object", properties: {}, additionalProperties: { type: "number" } },
      note: { anyOf: [{ type: "null" }, { type: "string" }] },
    },
    required: ["user"],
    additionalProperties: false,
  });
  assert.deepEqual(hello.inputSchema, { type: "object", properties: {}, additionalProperties: false });
  assert.equal(described.description, "The spec's description wins.");
  assert.deepEqual(described._meta, { "trailblaze/exposedToLlm": false, "trailblaze/isRecordable": false });
});

test("the SDK under other names is recognised; another package's tool is not", () => {
  const { tools, errors } = describe([fixture("aliases.ts")]);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    tools.map((t) => [t.name, t.description]),
    [
      ["alias_namespace", "Through the namespace import."],
      ["alias_moduleTool", "Through `tool` of the namespace import."],
      ["alias_renamed", "Through a renamed `tool`."],
    ],
  );
  assert.deepEqual(tools[1].inputSchema.required, ["n"]);
  assert.deepEqual(tools[2]._meta, { "trailblaze/requiresHost": true });
});

test("what cannot be described is an error with the file, line and tool, and the rest is still read", () => {
  const { tools, errors } = describe([fixture("bad_tools.ts")]);
  assert.deepEqual(tools.map((t) => t.name), ["good_one"]);
  const found = errors.map((e) => [e.name, e.line, e.message]);
  const file = fixture("bad_tools.ts");
  assert.ok(errors.every((e) => e.file === file));
  assert.deepEqual(found, [
    ["bad_functionArg", 9, "() => void is a function: tool arguments are JSON"],
    ["bad_specValue", 11, "spec.supportedPlatforms must be a literal value: Trailblaze reads it from the source without running it"],
    ["bad_spread", 13, "write the spec's fields out (no spreads or shorthands): Trailblaze reads them from the source"],
    ["bad_unresolved", 15, "cannot resolve the type Missing: is it imported from a file next to the tool?"],
    ["bad_notAnObject", 17, "the arguments of a tool are an object type (an interface), not string"],
    ["bad_recursive", 22, "Tree nests too deep or refers to itself: tool arguments cannot"],
  ]);
});

test("the describe command prints JSON and exits 1 when a file has problems, 3 on a bad command line", async () => {
  const run = promisify(execFile);
  const good = await run(process.execPath, [cli, "describe", fixture("aliases.ts")]);
  assert.equal(JSON.parse(good.stdout).tools.length, 3);
  await assert.rejects(run(process.execPath, [cli, "describe", fixture("bad_tools.ts")]), (error) => {
    assert.equal(error.code, 1);
    assert.equal(JSON.parse(error.stdout).errors.length, 6);
    return true;
  });
  await assert.rejects(run(process.execPath, [cli, "describe"]), (error) => {
    assert.equal(error.code, 3);
    assert.match(error.stderr, /^usage: trailblaze-scripting describe <file>/);
    return true;
  });
  const missing = await run(process.execPath, [cli, "describe", fixture("nothing_here.ts")]).catch((e) => e);
  assert.equal(missing.code, 1);
  assert.deepEqual(JSON.parse(missing.stdout).errors, [{ file: fixture("nothing_here.ts"), message: "cannot read the file" }]);
});

test("a syntax error, or an export whose name MCP does not allow, is an error at its line", () => {
  const folder = mkdtempSync(join(tmpdir(), "describe-"));
  try {
    const broken = join(folder, "broken.ts");
    writeFileSync(broken, 'import { trailblaze } from "@trailblaze/scripting";\nexport const t = trailblaze.tool(async () => {;\n');
    const names = join(folder, "names.ts");
    writeFileSync(
      names,
      'import { trailblaze } from "@trailblaze/scripting";\n' +
        'export const café = trailblaze.tool(async () => "x");\n' +
        `export const ${"a".repeat(129)} = trailblaze.tool(async () => "x");\n` +
        'export const fine_1 = trailblaze.tool(async () => "x");\n',
    );
    const { tools, errors } = describe([broken, names]);
    assert.deepEqual(tools.map((t) => t.name), ["fine_1"]);
    assert.deepEqual(
      errors.map((e) => [e.file === broken ? "broken" : "names", e.line, e.name]),
      [
        ["broken", 3, undefined],
        ["names", 2, undefined],
        ["names", 3, undefined],
      ],
    );
    assert.equal(errors[0].message, "'}' expected.");
    assert.match(errors[1].message, /^"café" is not a tool name: 1 to 128 characters of A-Z/);
    assert.match(errors[2].message, /^"a{60}…" is not a tool name/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
