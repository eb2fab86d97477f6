// `trailblaze-scripting serve <file>…`: the typed tools of tool files (and the imperative tools
// they declare) as one MCP server over stdio — how Trailblaze runs a trailmap's scripted tools.

import { resolve } from "node:path";

import type { Description, DescribeProblem } from "./describe.js";
import { importToolFile, LoadError, prepareImports } from "./loader.js";
import { holdRun, jsonSchemaCheck, start, type ServedTool } from "./server.js";

export interface ServeOptions {
  /** The files' description, when it is known already (`describe`'s output): skips reading them. */
  description?: Description;
}

/** Load `files` and serve their tools; resolves once the server is connected. */
export async function serve(files: readonly string[], options: ServeOptions = {}): Promise<void> {
  const paths = files.map((file) => resolve(file));
  // the TypeScript compiler takes a while to load: only when there is no description yet
  const description = options.description ?? (await import("./describe.js")).describe(paths);
  if (description.errors.length > 0) throw new LoadError(description.errors.map(problemLine).join("\n"));
  const heldOptions = holdRun();
  await prepareImports();
  const served: ServedTool[] = [];
  for (const path of paths) {
    const module = await importToolFile(path);
    for (const described of description.tools.filter((t) => resolve(t.file) === path)) {
      // a typed definition, or (for a tool a descriptor describes) any exported function
      const definition = module[described.name];
      if (typeof definition !== "function") {
        throw new LoadError(`${path}:${described.line}: ${described.name} is not a function the file exports`);
      }
      const call = definition as (args: unknown, ctx: unknown, client: unknown) => Promise<unknown>;
      served.push({
        name: described.name,
        description: described.description,
        inputSchema: described.inputSchema,
        meta: described._meta,
        check: jsonSchemaCheck(described.inputSchema),
        call: (args, ctx, client) => call(args, ctx, client),
      });
    }
  }
  await start(heldOptions(), served);
}

export function problemLine(problem: DescribeProblem): string {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}`;
  return `${where}: ${problem.name ? `${problem.name}: ` : ""}${problem.message}`;
}
