// `node --import <this file> server.js`: how Trailblaze runs a `script:` MCP server in JavaScript or
// TypeScript with the SDK it carries. The module hooks (hooks.ts) compile TypeScript, and an
// import of `@trailblaze/scripting` that node cannot resolve (no `npm install` next to the server)
// gets this SDK; a copy the server's folder installed itself is used as it is.

import { register } from "node:module";

process.setSourceMapsEnabled(true); // stack traces name the lines of the `.ts` files
register(new URL("./hooks.js", import.meta.url), { data: { packageFallback: true } });
