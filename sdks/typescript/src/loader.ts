// How tool files are loaded. TypeScript runs under bun as it is; under node (20.6 or later) the
// SDK registers its module hooks (hooks.ts), which compile `.ts` files as they load and resolve
// their extensionless relative imports. Either way `@trailblaze/scripting` resolves to this SDK.

import { readFileSync } from "node:fs";
import { register } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

interface BunGlobal {
  plugin(plugin: {
    name: string;
    setup(build: {
      onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => { contents: string; loader: string }): void;
    }): void;
  }): void;
}

/** Tool files and what they import from next to them: sources outside node_modules. */
const TOOL_SOURCE = /^(?!.*\/node_modules\/).*\.(ts|tsx|mts|js|mjs)$/;
/** `from "@trailblaze/scripting"` and `import("@trailblaze/scripting")` in a tool file. */
const SDK_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*)(["'])@trailblaze\/scripting\2/g;

let prepared = false;

/** Make `import()` of tool files work (once per process). */
export async function prepareImports(): Promise<void> {
  if (prepared) return;
  prepared = true;
  const index = fileURLToPath(new URL("./index.js", import.meta.url));
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (bun !== undefined) {
    // bun's runtime plugins do not get to resolve package names (1.4 looks them up in the
    // registry instead), so the SDK's name is replaced in the TypeScript files it loads
    bun.plugin({
      name: "@trailblaze/scripting",
      setup(build) {
        build.onLoad({ filter: TOOL_SOURCE }, ({ path }) => ({
          contents: readFileSync(path, "utf-8").replace(SDK_IMPORT, (_all, head: string, quote: string) => `${head}${quote}${index}${quote}`),
          loader: /\.(js|mjs)$/.test(path) ? "js" : path.endsWith(".tsx") ? "tsx" : "ts",
        }));
      },
    });
    return;
  }
  process.setSourceMapsEnabled(true); // stack traces name the lines of the `.ts` files
  register(new URL("./hooks.js", import.meta.url));
}

/** Import a tool file; a package it needs and cannot find is an error saying where to install it. */
export async function importToolFile(file: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec(message);
    if (code === "ERR_MODULE_NOT_FOUND" && missing && !missing[1]!.startsWith(".") && !missing[1]!.startsWith("/")) {
      throw new LoadError(
        `${file}: the package ${missing[1]} is not installed: run \`npm install ${packageName(missing[1]!)}\` ` +
          "in the tool's folder (or the project's)",
      );
    }
    if (message.startsWith(`${file}:`)) throw new LoadError(message); // the compiler's, with the line
    throw new LoadError(`${file}: ${error instanceof Error && error.name !== "Error" ? `${error.name}: ` : ""}${message}`);
  }
}

export class LoadError extends Error {
  override name = "LoadError";
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}
