// `trailblaze.tool(...)`: how a tool is declared. Three forms, as upstream's SDK has them:
//
//   trailblaze.tool("name", { description, inputSchema }, async (args, ctx, client) => …)
//       imperative: registered now, served by `trailblaze.run()`; the schema is zod or JSON Schema.
//   export const myTool = trailblaze.tool<Args>({ supportedPlatforms: ["web"] }, async (args, ctx) => …)
//   export const myTool = trailblaze.tool<Args>(async (args, ctx) => …)
//       typed: the tool's name is the export's, its description the doc comment above it (or
//       `spec.description`), its input schema the `Args` type — read from the source file by
//       `describe` (./describe.ts) and served by `trailblaze-scripting serve <file>`.
//
// A typed definition is a plain function `(args, ctx?, client?)`: `serve` calls it with the
// call's context and client, and a unit test can call it with stand-ins.

import { TrailblazeClient, type TrailblazeToolMethods } from "./client.js";
import type { TrailblazeContext, TrailblazeDevice, TrailblazeTarget } from "./context.js";
import { createLogger, type TrailblazeLogger } from "./logger.js";
import { createMemory, type TrailblazeMemory } from "./memory.js";

/** The spec of an imperative tool: what `tools/list` shows of it. */
export interface TrailblazeToolSpec {
  description?: string;
  /** A zod object or shape (`{ text: z.string() }`), or a JSON Schema object. */
  inputSchema?: unknown;
  /** `trailblaze/*` metadata: `{ "trailblaze/isDelegating": true, "trailblaze/supportedPlatforms": ["WEB"] }`. */
  _meta?: Record<string, unknown>;
}

/** An MCP tool result, for handlers that want to shape it themselves. */
export interface TrailblazeToolResult {
  content: Array<{ type: "text"; text: string } | Record<string, unknown>>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export type TrailblazeToolHandler = (
  args: Record<string, unknown>,
  ctx: TrailblazeContext | undefined,
  client: TrailblazeClient,
) => unknown;

/**
 * The spec of a typed tool. Trailblaze reads it from the source (write the values literally):
 * the flags become the tool's `trailblaze/*` metadata.
 */
export interface TrailblazeTypedToolSpec {
  /** What the tool does, for agents; default: the doc comment above the export. */
  description?: string;
  supportedPlatforms?: ReadonlyArray<"web" | "android" | "ios" | "desktop">;
  supportedDrivers?: readonly string[];
  requiresHost?: boolean;
  /** The tool needs a session (its memory, target, device): Trailblaze always sends them. */
  requiresContext?: boolean;
  /** Offer the tool to agents (default true). */
  surfaceToLlm?: boolean;
  /** Record calls of this tool in trails (default true). */
  isRecordable?: boolean;
  /** The tools it runs through `ctx.tools` are what gets recorded, not the tool itself. */
  isDelegating?: boolean;
  /** The tool only checks: it may be used in a `verify:` step. */
  isVerification?: boolean;
  /** The tool brings the app to a known state (upstream's trailhead metadata). */
  trailhead?: { to?: string; dynamic?: boolean };
}

/** What a typed tool's handler gets besides its arguments. */
export interface ToolContext {
  /** Run any tool of the session: `await ctx.tools.web_click({ ref: "css=#go" })`. */
  tools: TrailblazeToolMethods;
  memory: TrailblazeMemory;
  device?: TrailblazeDevice;
  target?: TrailblazeTarget;
  logger: TrailblazeLogger;
  sessionId?: string;
  invocationId?: string;
  /** The callback API's commands: `ctx.client.fill(…)`, `evaluateJs`, `pinch`, `isVisible`… */
  client: TrailblazeClient;
}

/** Marks an interface as "no arguments" (`trailblaze.tool<EmptyInput>(…)`). */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface EmptyInput {}

/** A typed tool: callable as `(args, ctx?, client?)`. */
export type TypedToolDefinition<TInput = EmptyInput, TResult = string> = (
  args: TInput,
  ctx?: TrailblazeContext,
  client?: TrailblazeClient,
) => Promise<TResult>;

/** An imperative tool waiting for `trailblaze.run()`. */
export interface PendingTool {
  name: string;
  spec: TrailblazeToolSpec;
  handler: TrailblazeToolHandler;
}

const pending: PendingTool[] = [];

export function tool<TInput = EmptyInput, TResult = string>(
  handler: (args: TInput, ctx: ToolContext) => TResult | Promise<TResult>,
): TypedToolDefinition<TInput, TResult>;
export function tool<TInput = EmptyInput, TResult = string>(
  spec: TrailblazeTypedToolSpec,
  handler: (args: TInput, ctx: ToolContext) => TResult | Promise<TResult>,
): TypedToolDefinition<TInput, TResult>;
export function tool(name: string, spec: TrailblazeToolSpec, handler: TrailblazeToolHandler): void;
export function tool(first: unknown, second?: unknown, third?: unknown): unknown {
  if (typeof first === "function" && second === undefined) {
    return defineTypedTool(first as TypedHandler);
  }
  if (isPlainObject(first) && typeof second === "function" && third === undefined) {
    // the spec is read from the source by `describe`, which is how Trailblaze learns it
    return defineTypedTool(second as TypedHandler);
  }
  if (typeof first === "string" && first.length > 0 && isPlainObject(second) && typeof third === "function") {
    if (pending.some((p) => p.name === first)) {
      throw new Error(`trailblaze.tool: a tool named ${JSON.stringify(first)} is already declared`);
    }
    pending.push({ name: first, spec: second as TrailblazeToolSpec, handler: third as TrailblazeToolHandler });
    return undefined;
  }
  throw new TypeError(
    "trailblaze.tool takes (name, spec, handler), (spec, handler) or (handler); got " +
      `(${[first, second, third].filter((a) => a !== undefined).map(describe).join(", ")})`,
  );
}

/** The imperative tools declared so far, in order, handed over to the server once. */
export function takePendingTools(): PendingTool[] {
  return pending.splice(0, pending.length);
}

type TypedHandler = (args: unknown, ctx: ToolContext) => unknown;

function defineTypedTool(handler: TypedHandler): TypedToolDefinition<unknown, unknown> {
  return async (args: unknown, ctx?: TrailblazeContext, client?: TrailblazeClient): Promise<unknown> =>
    handler(args ?? {}, toolContext(ctx, client));
}

/** The handler's context from a call's context, or from whatever a unit test passes. */
export function toolContext(ctx: TrailblazeContext | undefined, client?: TrailblazeClient): ToolContext {
  const handle = client ?? TrailblazeClient.of(ctx);
  const memory: unknown = ctx?.memory;
  return {
    tools: handle.tools,
    client: handle,
    // a test may hand a plain record of values rather than a memory
    memory: isMemory(memory) ? memory : createMemory(memory as Record<string, unknown> | undefined),
    device: ctx?.device,
    target: ctx?.target,
    logger: ctx?.logger ?? createLogger("trailblaze"),
    sessionId: ctx?.sessionId,
    invocationId: ctx?.invocationId,
  };
}

function isMemory(value: unknown): value is TrailblazeMemory {
  return typeof (value as TrailblazeMemory | undefined)?.interpolate === "function";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value) : `a ${typeof value}`;
}
