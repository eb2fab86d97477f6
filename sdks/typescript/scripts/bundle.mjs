// Make the package users get: `node scripts/bundle.mjs OUT` (after `tsc`, which writes dist/).
//
// OUT is @trailblaze/scripting as trailblaze's wheel carries it and as `npm publish` would publish
// it (run from OUT): the SDK's JavaScript and what it runs on — the MCP SDK, zod — bundled with
// esbuild into a few ES modules (no native code), its type declarations, and, in OUT/node_modules,
// what is not bundled: the TypeScript compiler (describe reads tools' types with it, the module
// hooks turn TypeScript into JavaScript with it), without its command lines and translations,
// and zod's declarations, which `export { z } from "zod"` needs in an editor. npm installs
// neither from the package's files: it takes `dependencies` instead.
//
// OUT is written whole or not at all: into a folder beside it, renamed over it at the end.
// OUT/build-info.json holds the hash of the sources it was made from (trailblaze's build backend
// makes it again only when they change) and the versions inside.

import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPOSITORY = resolve(HERE, "..", "..");
/** What the bundle is made from: a change to any of these makes it again. */
export const SOURCES = ["src", "scripts", "package.json", "package-lock.json", "tsconfig.json", "README.md"];
/** The declarations users compile against; the others are the command line's own. */
const INTERNAL_DECLARATIONS = new Set(["cli.d.ts", "hooks.d.ts", "loader.d.ts", "register.d.ts", "serve.d.ts"]);
/** The TypeScript compiler's standard library files describe and the hooks may ask for. */
const TYPESCRIPT_LIBS = /^lib\.(es5|es20\d\d(\.[a-z.]+)?|esnext(\.[a-z.]+)?|decorators(\.legacy)?)\.d\.ts$/;

function packageJson(folder) {
  return JSON.parse(readFileSync(join(folder, "package.json"), "utf-8"));
}

/** trailblaze's version (trailblaze/__init__.py), which the SDK shares. */
function trailblazeVersion() {
  const init = readFileSync(join(REPOSITORY, "trailblaze", "__init__.py"), "utf-8");
  const found = /^__version__ = "([^"]+)"$/m.exec(init);
  if (!found) throw new Error("trailblaze/__init__.py has no __version__");
  return found[1];
}

/** Every file under `path`, relative to HERE, sorted. */
function filesUnder(path) {
  const full = join(HERE, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

export function sourcesHash() {
  const hash = createHash("sha256");
  for (const file of SOURCES.flatMap(filesUnder)) {
    hash.update(`${file.split(sep).join("/")}\0`);
    hash.update(readFileSync(join(HERE, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

async function bundle(out) {
  const result = await build({
    absWorkingDir: HERE,
    entryPoints: ["dist/cli.js", "dist/index.js", "dist/hooks.js", "dist/register.js", "dist/describe.js"],
    outdir: join(out, "dist"),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // the chunks sit beside the entry points: the server tells its own stack frames by their folder
    entryNames: "[name]",
    chunkNames: "[name]-[hash]",
    external: ["typescript"],
    legalComments: "none", // the licences are in THIRD-PARTY-NOTICES.md, whole
    metafile: true,
    logLevel: "warning",
  });
  return Object.keys(result.metafile.inputs);
}

/** The packages the bundle holds code of, from esbuild's inputs. */
function bundledPackages(inputs) {
  const folders = new Set();
  for (const input of inputs) {
    const parts = input.split("/");
    const at = parts.lastIndexOf("node_modules");
    if (at < 0) continue;
    const scoped = parts[at + 1].startsWith("@");
    folders.add(parts.slice(0, at + (scoped ? 3 : 2)).join("/"));
  }
  return [...folders].sort().map((folder) => join(HERE, folder));
}

function licenceText(folder) {
  const name = readdirSync(folder).find((file) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(file));
  return name === undefined ? undefined : readFileSync(join(folder, name), "utf-8").trim();
}

function notices(packages) {
  const lines = [
    "# Third-party software in @trailblaze/scripting",
    "",
    "The bundled JavaScript in dist/ holds code of these packages, under their licences.",
    "",
  ];
  for (const folder of packages) {
    const meta = packageJson(folder);
    lines.push(`## ${meta.name} ${meta.version} (${meta.license ?? "see below"})`, "");
    const text = licenceText(folder);
    lines.push(text === undefined ? `Licence: ${meta.license}` : ["```", text, "```"].join("\n"), "");
  }
  return lines.join("\n");
}

/** The TypeScript compiler as describe and the hooks use it: no command lines, no translations. */
function vendorTypeScript(out) {
  const from = join(HERE, "node_modules", "typescript");
  const to = join(out, "node_modules", "typescript");
  mkdirSync(join(to, "lib"), { recursive: true });
  for (const file of ["package.json", "LICENSE.txt", "ThirdPartyNoticeText.txt"]) cpSync(join(from, file), join(to, file));
  cpSync(join(from, "lib", "typescript.js"), join(to, "lib", "typescript.js"));
  for (const file of readdirSync(join(from, "lib")).filter((name) => TYPESCRIPT_LIBS.test(name))) {
    cpSync(join(from, "lib", file), join(to, "lib", file));
  }
}

/** zod's declarations (and its package.json, whose `exports` name them), for editors. */
function vendorZodTypes(out) {
  const from = join(HERE, "node_modules", "zod");
  const to = join(out, "node_modules", "zod");
  for (const file of filesUnder(relative(HERE, from))) {
    const name = basename(file);
    if (name === "package.json" || name === "LICENSE" || name.endsWith(".d.ts") || name.endsWith(".d.cts")) {
      const target = join(to, relative(relative(HERE, from), file));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(HERE, file), target);
    }
  }
}

function publishedPackageJson(version) {
  const source = packageJson(HERE);
  const exact = (name) => packageJson(join(HERE, "node_modules", name)).version;
  return {
    name: source.name,
    version,
    description: source.description,
    license: source.license,
    type: "module",
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    exports: {
      ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
      "./package.json": "./package.json",
    },
    bin: { "trailblaze-scripting": "./dist/cli.js" },
    files: ["dist", "README.md", "LICENSE", "THIRD-PARTY-NOTICES.md"],
    engines: source.engines,
    // what is not bundled: the compiler at run time, zod's declarations for editors
    dependencies: { typescript: exact("typescript"), zod: exact("zod") },
    keywords: source.keywords,
  };
}

export async function main(outArgument) {
  const out = resolve(outArgument);
  const staging = `${out}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const inputs = await bundle(staging);
    for (const name of readdirSync(join(HERE, "dist")).filter((n) => n.endsWith(".d.ts") && !INTERNAL_DECLARATIONS.has(n))) {
      cpSync(join(HERE, "dist", name), join(staging, "dist", name));
    }
    vendorTypeScript(staging);
    vendorZodTypes(staging);
    const version = trailblazeVersion();
    writeFileSync(join(staging, "package.json"), `${JSON.stringify(publishedPackageJson(version), null, 2)}\n`);
    cpSync(join(HERE, "README.md"), join(staging, "README.md"));
    cpSync(join(REPOSITORY, "LICENSE"), join(staging, "LICENSE"));
    writeFileSync(join(staging, "THIRD-PARTY-NOTICES.md"), notices(bundledPackages(inputs)));
    const info = {
      sources: sourcesHash(),
      version,
      typescript: packageJson(join(HERE, "node_modules", "typescript")).version,
    };
    writeFileSync(join(staging, "build-info.json"), `${JSON.stringify(info, null, 2)}\n`);
    rmSync(out, { recursive: true, force: true });
    renameSync(staging, out);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.length !== 3) {
    process.stderr.write("usage: node scripts/bundle.mjs OUT\n");
    process.exit(3);
  }
  await main(process.argv[2]);
}
