// `trailblaze.run()`: the declared tools as a standard MCP server over stdio — or, started with
// `--transport http --port N` (what Trailblaze appends for `multi_device: http`), over Streamable
// HTTP at http://127.0.0.1:N/mcp, one server for every session of a run. Each call gets its
// context from the request's `_meta`, its arguments checked against the tool's schema, and its
// result shaped for Trailblaze:
//
// * a string is the text of the result; another value its JSON (objects also as structured
//   content); an MCP result (`{ content: [...] }`) is passed on as it is;
// * memory the tool changed rides along in `_meta.trailblaze.memoryDelta`/`memoryDeletions`;
// * a tool that throws answers `isError` with the error's message and where in the tool's own
//   files it was thrown, and `_meta.trailblaze.exitCode`: 1 when a check failed (any Error the
//   tool throws, a failed check of a tool it ran), 2 when the tool broke (TypeError,
//   ReferenceError… — a bug — or an error of Trailblaze itself), 3 for misuse (bad arguments,
//   an unknown tool). That is the exit code the trail's run ends with.

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { normalizeObjectSchema, safeParse, getParseErrorMessage } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

import { TrailblazeClient, TrailblazeToolError } from "./client.js";
import { fromMeta, record, type TrackedMemory, type TrailblazeContext } from "./context.js";
import { createLogger } from "./logger.js";
import { takePendingTools, type PendingTool, type TrailblazeToolResult } from "./tool.js";

export interface RunOptions {
  /** The server's name in `initialize` (default `trailblaze-scripting`). */
  name?: string;
  version?: string;
  /**
   * `stdio` (the default), or `http`: Streamable HTTP on 127.0.0.1, path `/mcp`, each client its
   * own MCP session. Default: `--transport http` in the process's arguments, else stdio.
   */
  transport?: "stdio" | "http";
  /** The port for `http` (default: `--port N` in the process's arguments). */
  port?: number;
}

/** Where the HTTP transport answers MCP (as the Python SDK's default). */
export const HTTP_PATH = "/mcp";

/** A tool as the server serves it. */
export interface ServedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  meta?: Record<string, unknown>;
  /** Check (and complete, with defaults) the arguments: what is wrong with them, or undefined. */
  check(args: Record<string, unknown>): string | undefined;
  call(args: Record<string, unknown>, ctx: TrailblazeContext | undefined, client: TrailblazeClient): Promise<unknown>;
}

const CONTEXT_ARG = "_trailblazeContext";
const SDK_FILES = fileURLToPath(new URL(".", import.meta.url)); // frames of the SDK itself are noise
const STACK_FRAMES = 6;
const BUG_ERRORS = new Set(["TypeError", "ReferenceError", "SyntaxError", "RangeError", "EvalError", "URIError"]);

let started: Promise<void> | undefined;
/** Set while `trailblaze-scripting serve` loads files: their `run()` calls wait for it. */
let held: RunOptions | undefined;

/**
 * Serve the tools declared with `trailblaze.tool(name, spec, handler)` over stdio (or, with
 * `--transport http --port N` or `options.transport`, over Streamable HTTP). Resolves once
 * the server is connected (listening); over stdio it then answers until stdin closes. Under `trailblaze-scripting
 * serve`, which starts the server itself once every file is loaded, it only notes the options.
 */
export async function run(options: RunOptions = {}): Promise<void> {
  if (held !== undefined) {
    held = { ...held, ...options };
    return;
  }
  return start(options, []);
}

/** For `serve`: hold `run()` calls while loading files; returns the options they gave. */
export function holdRun(): () => RunOptions {
  held = {};
  return () => {
    const options = held ?? {};
    held = undefined;
    return options;
  };
}

/** Start the server with the imperative tools declared so far and `more`. */
export function start(options: RunOptions, more: ServedTool[]): Promise<void> {
  if (started !== undefined) return started;
  const tools = new Map<string, ServedTool>();
  for (const served of [...takePendingTools().map(imperative), ...more]) {
    if (tools.has(served.name)) throw new Error(`two tools are named ${JSON.stringify(served.name)}`);
    tools.set(served.name, served);
  }
  const chosen = { ...transportFromArgs(process.argv.slice(2)), ...definedOnly(options) };
  if (chosen.transport === "http") {
    started = serveHttp(() => mcpServer(options, tools), chosen.port);
  } else {
    keepStdoutForMcp();
    started = mcpServer(options, tools).connect(new StdioServerTransport());
  }
  return started;
}

/** One MCP server over the tools (over HTTP, one for each client's session). */
function mcpServer(options: RunOptions, tools: Map<string, ServedTool>): Server {
  const server = new Server(
    { name: options.name ?? "trailblaze-scripting", version: options.version ?? "0.1.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.inputSchema as { type: "object" },
      ...(t.meta ? { _meta: t.meta } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const served = tools.get(request.params.name);
    if (served === undefined) {
      throw new McpError(McpErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name)}`);
    }
    return (await dispatch(served, request.params.arguments, extra._meta)) as Record<string, unknown> & {
      content: [];
    };
  });
  return server;
}

/** `--transport stdio|http` and `--port N` (also `--name=value`) among a process's arguments. */
export function transportFromArgs(args: readonly string[]): Pick<RunOptions, "transport" | "port"> {
  const found: Pick<RunOptions, "transport" | "port"> = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split("=", 2) as [string, string | undefined];
    if (flag !== "--transport" && flag !== "--port") continue;
    const value = inline ?? args[++i];
    if (flag === "--transport") {
      if (value !== "stdio" && value !== "http") throw new Error(`--transport must be stdio or http, not ${value}`);
      found.transport = value;
    } else {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not ${value}`);
      found.port = port;
    }
  }
  return found;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Streamable HTTP on 127.0.0.1:`port`: each client's `initialize` opens an MCP session of its
 * own (a server over the same tools), later requests name it in `mcp-session-id`. Calls carry
 * their session and device in `_meta`, so one process serves every session of a run. Resolves
 * once it listens; SIGTERM closes it.
 */
function serveHttp(newServer: () => Server, port: number | undefined): Promise<void> {
  if (port === undefined) return Promise.reject(new Error("--transport http needs --port N"));
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`trailblaze-scripting: ${req.method} ${req.url}: ${describeThrown(error)}`);
      if (!res.headersSent) reply(res, 500, McpErrorCode.InternalError, "internal error");
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== HTTP_PATH) {
      res.writeHead(404).end();
      return;
    }
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known !== undefined) return known.handleRequest(req, res, body);
    if (typeof id === "string" || req.method !== "POST" || !isInitializeRequest(body)) {
      reply(res, 404, -32001, "Session not found: start with initialize");
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  process.once("SIGTERM", () => {
    for (const transport of sessions.values()) void transport.close();
    http.close(() => process.exit(0));
    http.closeAllConnections();
  });
  return new Promise((resolveListening, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => {
      console.error(`trailblaze-scripting: MCP over Streamable HTTP at http://127.0.0.1:${port}${HTTP_PATH}`);
      resolveListening();
    });
  });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined; // the transport answers a parse error itself
  }
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** One call: context, checks, the handler, and its result or failure shaped for Trailblaze. */
export async function dispatch(served: ServedTool, rawArgs: unknown, meta: unknown): Promise<TrailblazeToolResult> {
  const args: Record<string, unknown> = { ...(record(rawArgs) ?? {}) };
  const declares = record(record(served.inputSchema["properties"])?.[CONTEXT_ARG]) !== undefined;
  const envelope = record(args[CONTEXT_ARG]);
  if (!declares) delete args[CONTEXT_ARG];
  try {
    const problems = served.check(args);
    if (problems !== undefined) return failure(`invalid arguments: ${problems}`, 3);
    const ctx = fromMeta(meta, createLogger(served.name), record(envelope?.["memory"]));
    const output = await served.call(args, ctx, TrailblazeClient.of(ctx));
    return withMemoryChanges(asResult(output), ctx);
  } catch (error) {
    return failure(describeThrown(error), exitCodeOfThrown(error));
  }
}

function imperative(declared: PendingTool): ServedTool {
  const { name, spec, handler } = declared;
  const zod = normalizeObjectSchema(spec.inputSchema as Parameters<typeof normalizeObjectSchema>[0]);
  if (zod !== undefined) {
    return {
      name,
      description: spec.description,
      inputSchema: jsonSchemaOf(toJsonSchemaCompat(zod)),
      meta: spec._meta,
      check(args) {
        const parsed = safeParse(zod, args);
        if (!parsed.success) return getParseErrorMessage(parsed.error).replaceAll("\n", "; ");
        Object.assign(args, parsed.data);
        return undefined;
      },
      call: async (args, ctx, client) => handler(args, ctx, client),
    };
  }
  const schema = record(spec.inputSchema) ?? { type: "object", properties: {} };
  return {
    name,
    description: spec.description,
    inputSchema: schema,
    meta: spec._meta,
    check: jsonSchemaCheck(schema),
    call: async (args, ctx, client) => handler(args, ctx, client),
  };
}

const ajv = new AjvJsonSchemaValidator();

/** A check against a JSON Schema, filling in the top-level properties' defaults first. */
export function jsonSchemaCheck(schema: Record<string, unknown>): ServedTool["check"] {
  const validate = ajv.getValidator(schema);
  const properties = record(schema["properties"]) ?? {};
  return (args) => {
    for (const [key, property] of Object.entries(properties)) {
      const fallback = record(property)?.["default"];
      if (args[key] === undefined && fallback !== undefined) args[key] = structuredClone(fallback);
    }
    const result = validate(args);
    return result.valid ? undefined : result.errorMessage;
  };
}

function jsonSchemaOf(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema; // Trailblaze reads the schema with its own dialect
  return rest;
}

function asResult(output: unknown): TrailblazeToolResult {
  const given = record(output);
  if (given !== undefined && Array.isArray(given["content"])) return given as unknown as TrailblazeToolResult;
  if (output === undefined || output === null) return { content: [] };
  if (typeof output === "string") return { content: [{ type: "text", text: output }] };
  const text = JSON.stringify(output) ?? String(output);
  return given !== undefined
    ? { content: [{ type: "text", text }], structuredContent: given }
    : { content: [{ type: "text", text }] };
}

function withMemoryChanges(result: TrailblazeToolResult, ctx: TrailblazeContext | undefined): TrailblazeToolResult {
  const changes = (ctx?.memory as TrackedMemory | undefined)?.changes?.();
  if (changes === undefined || result.isError || Object.keys(changes).length === 0) return result;
  const meta = record(result._meta) ?? {};
  return { ...result, _meta: { ...meta, trailblaze: { ...(record(meta["trailblaze"]) ?? {}), ...changes } } };
}

function failure(text: string, exitCode: 1 | 2 | 3): TrailblazeToolResult {
  return { isError: true, content: [{ type: "text", text }], _meta: { trailblaze: { exitCode } } };
}

function exitCodeOfThrown(error: unknown): 1 | 2 | 3 {
  if (error instanceof TrailblazeToolError) return error.exitCode;
  if (error instanceof Error && BUG_ERRORS.has(error.name)) return 2;
  return 1;
}

/** The error's message (with its kind, unless a plain Error) and the frames of the tool's own files. */
export function describeThrown(error: unknown): string {
  if (!(error instanceof Error)) return `threw ${typeof error === "string" ? error : safeString(error)}`;
  const plain = error.name === "Error" || error instanceof TrailblazeToolError;
  const head = plain ? error.message || error.name : `${error.name}: ${error.message}`;
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .filter((line) => !/node:|\/node_modules\//.test(line) && !line.includes(SDK_FILES))
    .slice(0, STACK_FRAMES)
    .map((line) => `    ${line.trim()}`);
  return [head, ...frames].join("\n");
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Stdout carries MCP messages: a stray `console.log` would break the connection, so it goes to stderr. */
function keepStdoutForMcp(): void {
  console.log = (...args: unknown[]) => console.error(...args);
  console.info = console.log;
  console.debug = console.log;
}
