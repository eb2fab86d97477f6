import assert from "node:assert/strict";
import { test } from "node:test";

import { createMemory } from "../dist/memory.js";

test("reads the snapshot, with values that are not text as their JSON", () => {
  const memory = createMemory({ user: "ada", count: 2, flags: { a: true }, gone: null });
  assert.equal(memory.get("user"), "ada");
  assert.equal(memory.get("count"), "2");
  assert.equal(memory.get("flags"), '{"a":true}');
  assert.equal(memory.has("gone"), false);
  assert.deepEqual(memory.keys(), ["user", "count", "flags"]);
  assert.deepEqual(memory.changes(), {});
});

test("writes are read back at once and reported as the call's changes", () => {
  const memory = createMemory({ user: "ada", city: "Paris" });
  memory.set("greeting", "hello");
  memory.delete("city");
  memory.set("user", "grace");
  assert.equal(memory.get("greeting"), "hello");
  assert.equal(memory.has("city"), false);
  assert.deepEqual(memory.changes(), { memoryDelta: { greeting: "hello", user: "grace" }, memoryDeletions: ["city"] });
  memory.set("city", "Lyon"); // remembered again: no longer a deletion
  assert.deepEqual(memory.changes().memoryDeletions, undefined);
});

test("set takes text only", () => {
  assert.throws(() => createMemory().set("n", 3), { name: "TypeError", message: /the value must be text, got number/ });
});

test("interpolate fills {{name}}, {{memory.name}} and ${name}, and leaves unknown names", () => {
  const memory = createMemory({ user: "ada" });
  assert.equal(memory.interpolate("{{user}} {{ memory.user }} ${user} ${memory.user} {{nobody}}"), "ada ada ada ada {{nobody}}");
});
