// The callback API from TypeScript: a tool call's handle on its session. While Trailblaze waits
// for a tool call, the tool may drive the call's device (`tap`, `fill`, `evaluateJs`…) and run
// any tool of the session by name (`callTool`, or `tools.<name>(args)`). The methods are those
// of ../callback-api.openrpc.json, the description the Python client is held to as well.
//
// Wire: JSON-RPC 2.0 over HTTP POST to the session's callback URL, with the session's token,
// each request naming the tool call (and so the device) it belongs to.

import { fromMeta, metaOf, type TrailblazeContext, type TrailblazeDevice } from "./context.js";

/** A `nodeSelector` as trails write it, e.g. `{ web: { cssSelector: "#name" } }`. */
export type TrailblazeNodeSelector = Record<string, unknown>;

/** An element of the screen model (`viewHierarchy`): text, id, class name, bounds, children… */
export interface TrailblazeViewNode {
  text?: string;
  id?: string;
  class_name?: string;
  description?: string;
  hint?: string;
  ref?: string;
  bounds?: [number, number, number, number];
  children?: TrailblazeViewNode[];
  [flag: string]: unknown;
}

/** `captureScreen`: a screenshot (base64) and the hierarchy it shows. */
export interface TrailblazeScreen {
  screenshot: string | null;
  image_format: string;
  width: number;
  height: number;
  url: string | null;
  hierarchy: TrailblazeViewNode;
}

/**
 * Tools that a tool may run by name, with their argument and result types: augment it to type
 * your own (`declare module "@trailblaze/scripting" { interface TrailblazeToolMap { … } }`).
 * Tools not listed can still be called; their arguments are not checked by the compiler.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface TrailblazeToolMap {}

/** What `tools.<name>(args)` resolves to when the tool is not in the map: the tool's output. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TrailblazeToolOutput = any;

type KnownTools = {
  [K in keyof TrailblazeToolMap]: TrailblazeToolMap[K] extends { args: infer A; result: infer R }
    ? (args: A) => Promise<R>
    : (args?: Record<string, unknown>) => Promise<TrailblazeToolOutput>;
};

/** `web_evaluate` also takes a function and its arguments, evaluated in the page. */
export interface WebEvaluate {
  <TArgs extends unknown[], TResult>(fn: (...args: TArgs) => TResult, ...args: TArgs): Promise<TrailblazeToolOutput>;
  (script: string): Promise<TrailblazeToolOutput>;
  (args: { script: string }): Promise<TrailblazeToolOutput>;
}

/** `ctx.tools` / `client.tools`: each property runs the tool of that name. */
export type TrailblazeToolMethods = KnownTools & { web_evaluate: WebEvaluate } & {
  [name: string]: (args?: Record<string, unknown>) => Promise<TrailblazeToolOutput>;
};

/** JSON-RPC error codes of the callback API (-326xx are JSON-RPC's own). */
export const ErrorCode = {
  InvalidParams: -32602,
  MethodNotFound: -32601,
  Internal: -32603,
  Unauthorized: -32001,
  CommandFailed: -32010,
  ActionRefused: -32011,
  Unsupported: -32012,
} as const;

/**
 * A command or tool the callback API refused or that failed. `exitCode` is what the failure
 * would make of a run, and what the calling tool's own failure becomes if it lets this error
 * through: 1 a check did not hold, 2 something broke, 3 misuse (an unknown tool, bad arguments).
 */
export class TrailblazeToolError extends Error {
  override name = "TrailblazeToolError";
  constructor(
    message: string,
    readonly code: number,
    readonly exitCode: 1 | 2 | 3,
  ) {
    super(message);
  }
}

export interface TrailblazeClientOptions {
  /** The callback URL; default: `TRAILBLAZE_CALLBACK_URL`. */
  baseUrl?: string;
  /** The session's token; default: `TRAILBLAZE_CALLBACK_TOKEN`. */
  token?: string;
  /** The tool call the requests belong to (needed when several calls of a session are in flight). */
  invocationId?: string;
  sessionId?: string;
  device?: TrailblazeDevice;
  /** How long one request may take; default `TRAILBLAZE_CALLBACK_TIMEOUT_MS`, else 300 000. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 300_000;
let nextId = 0;

export class TrailblazeClient {
  readonly baseUrl?: string;
  readonly token?: string;
  readonly invocationId?: string;
  readonly sessionId?: string;
  readonly device?: TrailblazeDevice;
  readonly timeoutMs: number;
  /** `await client.tools.web_click({ ref: "css=#go" })`: {@link callTool} by property. */
  readonly tools: TrailblazeToolMethods;

  constructor(options: TrailblazeClientOptions = {}) {
    const env = process.env;
    this.baseUrl = options.baseUrl ?? (env["TRAILBLAZE_CALLBACK_URL"] || undefined);
    this.token = options.token ?? (env["TRAILBLAZE_CALLBACK_TOKEN"] || undefined);
    this.invocationId = options.invocationId;
    this.sessionId = options.sessionId;
    this.device = options.device;
    const fromEnv = Number.parseInt(env["TRAILBLAZE_CALLBACK_TIMEOUT_MS"] ?? "", 10);
    this.timeoutMs = options.timeoutMs ?? (fromEnv > 0 ? fromEnv : DEFAULT_TIMEOUT_MS);
    this.tools = toolMethods(this);
  }

  /** The client of the tool call a context belongs to. */
  static of(ctx: TrailblazeContext | undefined): TrailblazeClient {
    if (ctx === undefined) return new TrailblazeClient();
    const { baseUrl, token, invocationId, sessionId, device } = ctx;
    return new TrailblazeClient({ baseUrl, token, invocationId, sessionId, device });
  }

  /** Run one command by name with its parameters; the typed methods below use this. */
  async call(method: string, params: object = {}): Promise<unknown> {
    if (this.baseUrl === undefined) {
      throw new TrailblazeToolError(
        `${method}: not in a Trailblaze session (no _meta.trailblaze.baseUrl in the call and no ` +
          "TRAILBLAZE_CALLBACK_URL): the callback API is there only while Trailblaze waits for a tool call",
        ErrorCode.Unsupported,
        3,
      );
    }
    const sent: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(params)) if (value !== undefined) sent[key] = value;
    if (this.invocationId !== undefined) sent["_meta"] = { trailblazeInvocationId: this.invocationId };
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.token !== undefined) headers["Authorization"] = `Bearer ${this.token}`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params: sent });
    let response: Response;
    try {
      response = await fetch(this.baseUrl, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause : error) : error;
      const why = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      throw new TrailblazeToolError(`${method}: the callback to ${this.baseUrl} failed (${why})`, ErrorCode.Internal, 2);
    }
    const answer = await response.text();
    let message: { result?: unknown; error?: { code?: number; message?: string; data?: { exitCode?: number } } };
    try {
      message = JSON.parse(answer);
    } catch {
      throw new TrailblazeToolError(
        `${method}: the callback API answered HTTP ${response.status} with no JSON: ${answer.slice(0, 200)}`,
        ErrorCode.Internal,
        2,
      );
    }
    if (message.error) throw rpcError(method, message.error);
    return message.result ?? null;
  }

  // -- tools by name --------------------------------------------------------------------------

  /**
   * Run a tool of the session (built-in, plugin, YAML, MCP, scripted) as a trail's call would,
   * and resolve to what it returned; throws {@link TrailblazeToolError} when it fails.
   */
  async callTool(name: string, args: Record<string, unknown> = {}): Promise<TrailblazeToolOutput> {
    return this.call("callTool", { name, arguments: args });
  }

  // -- actions --------------------------------------------------------------------------------

  async tap(params: { text?: string; id?: string; index?: number; selector?: TrailblazeNodeSelector }): Promise<void> {
    await this.call("tap", params);
  }

  async inputText(params: { text: string }): Promise<void> {
    await this.call("inputText", params);
  }

  async launchApp(params: { appId: string; mode?: string }): Promise<void> {
    await this.call("launchApp", params);
  }

  async stopApp(params: { appId: string }): Promise<void> {
    await this.call("stopApp", params);
  }

  async clearAppData(params: { appId: string }): Promise<void> {
    await this.call("clearAppData", params);
  }

  async pressBack(): Promise<void> {
    await this.call("pressBack");
  }

  async pressKey(params: { key: string }): Promise<void> {
    await this.call("pressKey", params);
  }

  async swipe(params: { direction?: string; durationMs?: number } = {}): Promise<void> {
    await this.call("swipe", params);
  }

  async scroll(params: { direction?: string; amount?: number } = {}): Promise<void> {
    await this.call("scroll", params);
  }

  async navigate(params: { url: string }): Promise<void> {
    await this.call("navigate", params);
  }

  /** Replace a field's content (web: a Playwright selector such as `#email`). */
  async fill(params: { selector: string; value: string; timeoutMs?: number }): Promise<void> {
    await this.call("fill", params);
  }

  /** Run JavaScript in the page: an expression, or a function called with `arg`; its JSON result. */
  async evaluateJs(params: { script: string; arg?: unknown }): Promise<unknown> {
    return this.call("evaluateJs", params);
  }

  /** Two fingers around the centre: apart for `scale` > 1 (zoom in), together below 1. */
  async pinch(params: { scale: number; durationMs?: number }): Promise<void> {
    await this.call("pinch", params);
  }

  // -- queries (never throw for "not found") --------------------------------------------------

  async viewHierarchy(): Promise<TrailblazeViewNode> {
    return (await this.call("viewHierarchy")) as TrailblazeViewNode;
  }

  async captureScreen(): Promise<TrailblazeScreen> {
    return (await this.call("captureScreen")) as TrailblazeScreen;
  }

  async isVisible(params: {
    text?: string;
    id?: string;
    selector?: TrailblazeNodeSelector;
    timeoutMs?: number;
  }): Promise<boolean> {
    return Boolean(await this.call("isVisible", params));
  }

  async hasText(params: { text: string }): Promise<boolean> {
    return Boolean(await this.call("hasText", params));
  }

  async getElementCount(params: { text?: string; id?: string; selector?: TrailblazeNodeSelector }): Promise<number> {
    return Number((await this.call("getElementCount", params)) ?? 0);
  }

  async getElementText(params: { id?: string; selector?: TrailblazeNodeSelector }): Promise<string | null> {
    const found = await this.call("getElementText", params);
    return found === null ? null : String(found);
  }

  async selectorForRef(params: { ref: string }): Promise<TrailblazeNodeSelector | null> {
    return (await this.call("selectorForRef", params)) as TrailblazeNodeSelector | null;
  }

  // -- assertions (throw TrailblazeToolError with exit code 1) --------------------------------

  async assertVisible(params: {
    text?: string;
    id?: string;
    selector?: TrailblazeNodeSelector;
    timeoutMs?: number;
  }): Promise<void> {
    await this.call("assertVisible", params);
  }

  async waitUntilVisible(params: {
    text?: string;
    id?: string;
    selector?: TrailblazeNodeSelector;
    timeoutMs?: number;
  }): Promise<void> {
    await this.call("waitUntilVisible", params);
  }

  /** Wait until a Playwright selector's element is `visible` (or `hidden`, `attached`, `detached`). */
  async waitForSelector(params: { selector: string; timeoutMs?: number; state?: string }): Promise<void> {
    await this.call("waitForSelector", params);
  }
}

/**
 * The client of a tool call, for servers written with the MCP SDK directly: pass the handler's
 * `extra` (or the request, or its `_meta`).
 */
export function fromContext(extra: unknown): TrailblazeClient {
  return TrailblazeClient.of(fromMeta(metaOf(extra)));
}

function rpcError(method: string, error: { code?: number; message?: string; data?: { exitCode?: number } }) {
  const code = typeof error.code === "number" ? error.code : ErrorCode.Internal;
  const text = error.message ?? "the callback API gave no message";
  const given = error.data?.exitCode;
  const exitCode = given === 1 || given === 2 || given === 3 ? given : exitCodeOf(code);
  // a tool's failure already names the tool ("web_click: …"); a command's does not
  return new TrailblazeToolError(method === "callTool" ? text : `${method}: ${text}`, code, exitCode);
}

function exitCodeOf(code: number): 1 | 2 | 3 {
  switch (code) {
    case ErrorCode.CommandFailed:
      return 1;
    case ErrorCode.InvalidParams:
    case ErrorCode.MethodNotFound:
    case ErrorCode.Unsupported:
      return 3;
    default:
      return 2;
  }
}

/** Property names that must not look like tools: promise checks, conversions, inspection. */
const NOT_TOOLS = new Set(["then", "catch", "finally", "toJSON", "toString", "valueOf", "constructor", "inspect"]);

function toolMethods(client: TrailblazeClient): TrailblazeToolMethods {
  return new Proxy({} as TrailblazeToolMethods, {
    get(_target, name) {
      if (typeof name !== "string" || NOT_TOOLS.has(name)) return undefined;
      if (name === "web_evaluate") return (...args: unknown[]) => client.callTool(name, evaluateArgs(args));
      return (args: Record<string, unknown> = {}) => client.callTool(name, args);
    },
  });
}

/** `web_evaluate(fn, ...args)`, `web_evaluate(script)` or `web_evaluate({ script })`. */
function evaluateArgs(args: unknown[]): Record<string, unknown> {
  const [first, ...rest] = args;
  if (typeof first === "function") {
    return { script: `(${first.toString()}).apply(null, ${JSON.stringify(rest)})` };
  }
  if (typeof first === "string") return { script: first };
  if (typeof first === "object" && first !== null && typeof (first as { script?: unknown }).script === "string") {
    return first as Record<string, unknown>;
  }
  throw new TypeError("web_evaluate takes a function and its arguments, a script, or { script }");
}
