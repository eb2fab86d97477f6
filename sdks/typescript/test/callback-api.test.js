// The client against the callback API's description, ../../callback-api.openrpc.json — the file
// the Python side generates from its server and holds its own client to. A command added on one
// side only fails here or there.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import ts from "typescript";

import { TrailblazeClient } from "../dist/index.js";

const spec = JSON.parse(readFileSync(new URL("../../callback-api.openrpc.json", import.meta.url), "utf-8"));
/** What the client has besides the API's methods. */
const HELPERS = new Set(["constructor", "call"]);

test("the client has a method for each of the API's methods, and no other", () => {
  const methods = Object.getOwnPropertyNames(TrailblazeClient.prototype).filter((name) => !HELPERS.has(name));
  assert.deepEqual(methods.sort(), spec.methods.map((m) => m.name).sort());
});

test("each method takes the API's parameters, required where the API requires them", () => {
  const file = fileURLToPath(new URL("../src/client.ts", import.meta.url));
  const source = ts.createSourceFile(file, readFileSync(file, "utf-8"), ts.ScriptTarget.ES2022, true);
  const declared = new Map();
  source.forEachChild(function visit(node) {
    if (ts.isClassDeclaration(node) && node.name?.text === "TrailblazeClient") {
      for (const member of node.members) {
        if (!ts.isMethodDeclaration(member) || member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) continue;
        const name = member.name.getText(source);
        if (HELPERS.has(name)) continue;
        const [first, ...rest] = member.parameters;
        let params = [];
        if (first !== undefined && rest.length === 0 && first.type && ts.isTypeLiteralNode(first.type)) {
          params = first.type.members.map((p) => [p.name.getText(source), p.questionToken === undefined]);
        } else {
          // positional: callTool(name, args) — `arguments` cannot name a parameter
          params = member.parameters.map((p) => [p.name.getText(source) === "args" ? "arguments" : p.name.getText(source), !p.initializer && !p.questionToken]);
        }
        declared.set(name, params);
      }
    }
  });
  for (const method of spec.methods) {
    assert.deepEqual(
      declared.get(method.name),
      method.params.map((p) => [p.name, p.required]),
      `${method.name}: its parameters differ from the API's`,
    );
  }
});
