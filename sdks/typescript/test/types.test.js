// The published types, compiled against fixtures written as tools are (fixtures/typed_usage.ts
// also says, with @ts-expect-error, what must not compile).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import ts from "typescript";

test("the fixtures compile against the SDK's declarations, resolved by its package name", () => {
  const configPath = fileURLToPath(new URL("./fixtures/tsconfig.json", import.meta.url));
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(config.fileNames, config.options);
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(problems, []);
  const sdk = program.getSourceFiles().find((f) => f.fileName.endsWith("/dist/index.d.ts"));
  assert.ok(sdk, "@trailblaze/scripting resolved to this package's dist/index.d.ts");
});
