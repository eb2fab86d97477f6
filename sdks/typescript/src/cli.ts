#!/usr/bin/env node
// trailblaze-scripting: what Trailblaze (or you) runs to read and serve tool files.
//
//   trailblaze-scripting describe <file>…   the typed tools of the files, as JSON on stdout
//                                           (exit 1 when a file has problems: see "errors")
//   trailblaze-scripting serve <file>…      their tools as an MCP server on stdin/stdout
//
// Exit codes: 0 fine, 1 the files have problems (describe), 2 an unexpected error, 3 misuse
// (a bad command line, a file that cannot be loaded or described).

import { readFileSync } from "node:fs";

import type { Description } from "./describe.js";
import { LoadError } from "./loader.js";

const USAGE = `usage: trailblaze-scripting describe <file>...
       trailblaze-scripting serve [--description <describe's JSON file>] <file>...`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "describe" && rest.length > 0) {
    const { describe } = await import("./describe.js");
    const described = describe(rest);
    process.stdout.write(`${JSON.stringify(described, null, 2)}\n`);
    return described.errors.length > 0 ? 1 : 0;
  }
  if (command === "serve") {
    let description: Description | undefined;
    if (rest[0] === "--description" && rest[1] !== undefined) {
      description = JSON.parse(readFileSync(rest[1], "utf-8")) as Description;
      rest.splice(0, 2);
    }
    if (rest.length > 0) {
      const { serve } = await import("./serve.js"); // the MCP SDK and zod, which describe does not need
      await serve(rest, { description });
      return 0;
    }
  }
  process.stderr.write(`${USAGE}\n`);
  return 3;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    const misuse = error instanceof LoadError || error instanceof SyntaxError;
    process.stderr.write(`trailblaze-scripting: ${error instanceof Error ? (misuse ? error.message : error.stack) : String(error)}\n`);
    process.exitCode = misuse ? 3 : 2;
  },
);
