// Module hooks for tool files under node (`module.register`, node 20.6 or later), run on node's
// loader thread:
//
// * `@trailblaze/scripting` means this copy of the SDK, wherever the importing tool file is, so a
//   trailmap's tools run without an `npm install` of their own — and share one SDK, whose
//   registrations the server reads (registered by register.ts, for a `script:` server, only when
//   node finds no copy the server's folder installed);
// * a relative import may leave out the extension (`./shop_shared`) or name the `.js` a `.ts`
//   file becomes (`./shop_shared.js`), as TypeScript allows;
// * a source file (`.ts`, `.tsx`, `.mts`, `.js`, `.mjs`) outside node_modules is an ES module,
//   whatever the nearest package.json says: tool files use `import` and may `await` at the top,
//   and a trailmap's folder has no package.json to say so;
// * TypeScript becomes JavaScript with the TypeScript compiler's `transpileModule` (types removed,
//   each file on its own, a source map inline so stack traces name the `.ts` lines). The compiler
//   takes a while to load, so what it makes is kept in the folder `TRAILBLAZE_SCRIPTING_CACHE`
//   names, by the file's path and bytes: a file that has not changed since is not compiled again,
//   and a session whose files are all there never loads the compiler.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import type * as TS from "typescript";

const INDEX = new URL("./index.js", import.meta.url).href;
const PACKAGE = "@trailblaze/scripting";
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const TYPESCRIPT = /\.(ts|tsx|mts)$/;
/** What an extensionless relative import may name, in the order TypeScript's resolution tries. */
const TRY_SUFFIXES = [".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.js"];
/** The `.js` a TypeScript file is imported as, and the sources it may stand for. */
const JS_FOR_TS: Record<string, string[]> = { ".js": [".ts", ".tsx"], ".mjs": [".mts"] };
/** Bumped when the options below change, so older cache entries are not used. */
const CACHE_FORMAT = "1";
const CACHE_HEADER = "// trailblaze-scripting cache ";
/** Entries kept: each edit of a file leaves one behind, so the oldest go past this many. */
const CACHE_ENTRIES = 2000;

interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}

interface LoadResult {
  format: string;
  source?: string | ArrayBuffer | Uint8Array;
  shortCircuit?: boolean;
}

type NextResolve = (specifier: string, context: unknown) => Promise<ResolveResult>;
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

/** Whether `@trailblaze/scripting` means this SDK only when node resolves it to nothing else. */
let packageFallback = false;

export function initialize(data: { packageFallback?: boolean } | undefined): void {
  packageFallback = data?.packageFallback === true;
}

export async function resolve(specifier: string, context: unknown, next: NextResolve): Promise<ResolveResult> {
  const sdk: ResolveResult = { url: INDEX, format: "module", shortCircuit: true };
  if (specifier === PACKAGE && !packageFallback) return sdk;
  let resolved: ResolveResult;
  try {
    resolved = await next(specifier, context);
  } catch (error) {
    if (specifier === PACKAGE) return sdk;
    const alternative = isRelative(specifier) ? await resolveAlternative(specifier, context, next) : undefined;
    if (alternative === undefined) throw error;
    resolved = alternative;
  }
  return isToolSource(resolved.url) ? { ...resolved, format: "module" } : resolved;
}

export async function load(url: string, context: unknown, next: NextLoad): Promise<LoadResult> {
  if (!isToolSource(url) || !TYPESCRIPT.test(new URL(url).pathname)) return next(url, context);
  const path = fileURLToPath(url);
  return { format: "module", source: transpiled(path, readFileSync(path, "utf-8")), shortCircuit: true };
}

function isRelative(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../");
}

function isToolSource(url: string): boolean {
  return url.startsWith("file:") && !url.includes("/node_modules/") && SOURCE.test(new URL(url).pathname);
}

async function resolveAlternative(specifier: string, context: unknown, next: NextResolve): Promise<ResolveResult | undefined> {
  const extension = /\.m?js$/.exec(specifier)?.[0];
  const candidates = extension
    ? JS_FOR_TS[extension]!.map((suffix) => specifier.slice(0, -extension.length) + suffix)
    : TRY_SUFFIXES.map((suffix) => specifier + suffix);
  for (const candidate of candidates) {
    try {
      return await next(candidate, context);
    } catch {
      // not this one
    }
  }
  return undefined;
}

// -- TypeScript to JavaScript, cached ----------------------------------------------------------

let compiler: typeof TS | undefined;

function typescript(): typeof TS {
  compiler ??= createRequire(import.meta.url)("typescript") as typeof TS;
  return compiler;
}

/** `source` (the file at `path`) as JavaScript: from the cache when it was compiled before. */
export function transpiled(path: string, source: string): string {
  const folder = process.env.TRAILBLAZE_SCRIPTING_CACHE;
  const key = createHash("sha256").update(`${CACHE_FORMAT}\0${path}\0${source}`).digest("hex").slice(0, 40);
  const entry = folder ? join(folder, `${key}.js`) : undefined;
  const cached = entry === undefined ? undefined : readEntry(entry);
  if (cached !== undefined) return cached;
  const ts = typescript();
  const { outputText: output, diagnostics } = ts.transpileModule(source, {
    fileName: path,
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      jsx: ts.JsxEmit.ReactJSX,
      inlineSourceMap: true,
      inlineSources: false,
      isolatedModules: true,
      esModuleInterop: true,
    },
  });
  const problem = diagnostics?.find((d) => d.category === ts.DiagnosticCategory.Error);
  if (problem !== undefined) {
    const where = problem.file?.getLineAndCharacterOfPosition(problem.start ?? 0);
    const position = where === undefined ? "" : `:${where.line + 1}:${where.character + 1}`;
    throw new SyntaxError(`${path}${position}: ${ts.flattenDiagnosticMessageText(problem.messageText, "\n")}`);
  }
  if (folder !== undefined && entry !== undefined) writeEntry(folder, entry, output);
  return output;
}

/** A cache entry's JavaScript, or undefined when there is none or it is damaged (made again). */
function readEntry(entry: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(entry, "utf-8");
  } catch {
    return undefined;
  }
  const newline = text.indexOf("\n");
  if (newline < 0 || !text.startsWith(CACHE_HEADER)) return undefined;
  const body = text.slice(newline + 1);
  return text.slice(CACHE_HEADER.length, newline) === digest(body) ? body : undefined;
}

/** Write an entry whole or not at all (a temporary file renamed over it); a folder that cannot be
 * written only means the file is compiled again next time. */
function writeEntry(folder: string, entry: string, body: string): void {
  const temporary = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(temporary, `${CACHE_HEADER}${digest(body)}\n${body}`, { flag: "wx", mode: 0o644 });
    renameSync(temporary, entry);
    prune(folder);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing was written
    }
  }
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function prune(folder: string): void {
  const names = readdirSync(folder).filter((name) => name.endsWith(".js"));
  if (names.length <= CACHE_ENTRIES) return;
  const aged = names
    .map((name) => ({ name, time: statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => a.time - b.time);
  for (const { name } of aged.slice(0, names.length - CACHE_ENTRIES / 2)) rmSync(join(folder, name), { force: true });
}
