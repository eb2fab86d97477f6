// @trailblaze/scripting: write Trailblaze tools in TypeScript.
//
//   import { trailblaze } from "@trailblaze/scripting";
//
//   /** Sign in with the given user. */
//   export const myapp_signIn = trailblaze.tool<{ user: string }>(
//     { supportedPlatforms: ["web"] },
//     async ({ user }, ctx) => {
//       await ctx.tools.web_type({ ref: "css=#user", text: user });
//       await ctx.tools.web_click({ ref: "css=#sign-in" });
//       return `signed in as ${user}`;
//     },
//   );

import { run } from "./server.js";
import { tool } from "./tool.js";

/** `trailblaze.tool(…)` declares a tool, `trailblaze.run()` serves the declared tools. */
export const trailblaze = { tool, run };
export { run, tool };

export { z } from "zod";
export {
  ErrorCode,
  fromContext,
  TrailblazeClient,
  TrailblazeToolError,
  type TrailblazeClientOptions,
  type TrailblazeNodeSelector,
  type TrailblazeScreen,
  type TrailblazeToolMap,
  type TrailblazeToolMethods,
  type TrailblazeToolOutput,
  type TrailblazeViewNode,
  type WebEvaluate,
} from "./client.js";
export {
  fromMeta,
  type TrailblazeContext,
  type TrailblazeDevice,
  type TrailblazeLogger,
  type TrailblazeLogLevel,
  type TrailblazeMemory,
  type TrailblazeTarget,
} from "./context.js";
export type { RunOptions } from "./server.js";
export type {
  EmptyInput,
  ToolContext,
  TrailblazeToolHandler,
  TrailblazeToolResult,
  TrailblazeToolSpec,
  TrailblazeTypedToolSpec,
  TypedToolDefinition,
} from "./tool.js";
