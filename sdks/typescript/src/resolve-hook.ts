// Module resolution hooks (node's `module.register`) for tool files:
//
// * `@trailblaze/scripting` means this copy of the SDK, wherever the importing tool file is, so a
//   trailmap's tools run without an `npm install` of their own — and share one SDK, whose
//   registrations the server reads;
// * a source file (`.ts`, `.tsx`, `.mts`, `.js`, `.mjs`; not `.cts`, `.cjs`) outside
//   node_modules is an ES module, as bun takes it, whatever the nearest package.json says: tool
//   files use `import` and may `await` at the top, and a trailmap's folder has no package.json
//   to say so.

const INDEX = new URL("./index.js", import.meta.url).href;
const PACKAGE = "@trailblaze/scripting";
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;

interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}

export async function resolve(
  specifier: string,
  context: unknown,
  next: (specifier: string, context: unknown) => Promise<ResolveResult>,
): Promise<ResolveResult> {
  if (specifier === PACKAGE) return { url: INDEX, format: "module", shortCircuit: true };
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith("file:") && !resolved.url.includes("/node_modules/") && SOURCE.test(new URL(resolved.url).pathname)) {
    return { ...resolved, format: "module" };
  }
  return resolved;
}
