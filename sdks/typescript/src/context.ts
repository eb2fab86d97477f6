// What a tool call knows about its session, read from the call's `_meta.trailblaze` envelope:
// the device, the session and invocation ids, the memory, the app target, and where to call back.
// Trailblaze sends the device under its own names and upstream's (`driverType`, `widthPixels`…);
// both are read, so the same tool runs under either.

import { createLogger, type TrailblazeLogger } from "./logger.js";
import { createMemory, type MemoryChanges, type TrailblazeMemory } from "./memory.js";

export type { TrailblazeLogger, TrailblazeLogLevel } from "./logger.js";
export type { TrailblazeMemory } from "./memory.js";

export interface TrailblazeDevice {
  /** `"web"`, `"android"` or `"ios"`. */
  platform: "web" | "android" | "ios";
  widthPixels: number;
  heightPixels: number;
  /** The session's driver, e.g. `"playwright-native"` or `"android-uiautomator2"`. */
  driverType: string;
  /** The device's id (a browser name, an adb serial, a WebDriverAgent URL). */
  instanceId?: string;
}

/** The app the session was opened for (`target:` in trailblaze.yaml or a trailmap). */
export interface TrailblazeTarget {
  id: string;
  displayName?: string;
  /** The app ids declared for the device's platform, then the target's own. */
  appIds: string[];
  /** The app id Trailblaze chose, when it chose one. */
  appId?: string;
  baseUrls?: string[];
  resolvedBaseUrl?: string;
  /** `appId`, else the first of `appIds`, else `defaultAppId`. */
  resolveAppId(options?: { defaultAppId?: string }): string | undefined;
  /** `resolvedBaseUrl`, else the first of `baseUrls`, else `defaultBaseUrl`. */
  resolveBaseUrl(options?: { defaultBaseUrl?: string }): string | undefined;
}

export interface TrailblazeContext {
  sessionId: string;
  /** This tool call's id: callbacks carry it, so they reach this call's device. */
  invocationId: string;
  /** The callback API's URL (absent outside Trailblaze). */
  baseUrl?: string;
  /** The session's callback token (else `TRAILBLAZE_CALLBACK_TOKEN`). */
  token?: string;
  device: TrailblazeDevice;
  target?: TrailblazeTarget;
  memory: TrailblazeMemory;
  logger: TrailblazeLogger;
}

/** The memory of a context as built here: it also knows what the call changed. */
export type TrackedMemory = TrailblazeMemory & { changes(): MemoryChanges };

const PLATFORMS = new Set(["web", "android", "ios"]);

/**
 * The context of a tool call from its request `_meta` (`request.params._meta`), or undefined
 * when the call did not come from a Trailblaze session. `fallbackMemory` is used when the
 * envelope has no memory (seed 003's `_trailblazeContext` argument carries it too).
 */
export function fromMeta(
  meta: unknown,
  logger?: TrailblazeLogger,
  fallbackMemory?: Record<string, unknown>,
): TrailblazeContext | undefined {
  const bag = record(meta);
  const tb = record(bag?.["trailblaze"]);
  if (tb === undefined) return undefined;
  const sessionId = text(tb["sessionId"]);
  const invocationId = text(tb["invocationId"]) ?? text(bag?.["trailblazeInvocationId"]);
  const device = parseDevice(record(tb["device"]));
  if (sessionId === undefined || invocationId === undefined || device === undefined) return undefined;
  const memory = record(tb["memory"]) ?? fallbackMemory;
  return {
    sessionId,
    invocationId,
    baseUrl: text(tb["baseUrl"]),
    token: text(tb["token"]),
    device,
    target: parseTarget(tb["target"]),
    memory: createMemory(memory),
    logger: logger ?? createLogger("trailblaze"),
  };
}

/** `fromMeta` of an MCP SDK request handler's `extra` (or of a request, or of `_meta` itself). */
export function metaOf(source: unknown): unknown {
  const bag = record(source);
  if (bag === undefined) return undefined;
  if ("_meta" in bag) return bag["_meta"];
  const params = record(record(bag["request"])?.["params"]) ?? record(bag["params"]);
  if (params !== undefined) return params["_meta"];
  return bag;
}

function parseDevice(bag: Record<string, unknown> | undefined): TrailblazeDevice | undefined {
  if (bag === undefined) return undefined;
  const platform = text(bag["platform"])?.toLowerCase();
  const driverType = text(bag["driverType"]) ?? text(bag["driver"]);
  const width = number(bag["widthPixels"]) ?? number(bag["width"]);
  const height = number(bag["heightPixels"]) ?? number(bag["height"]);
  if (platform === undefined || !PLATFORMS.has(platform) || driverType === undefined) return undefined;
  const device: TrailblazeDevice = {
    platform: platform as TrailblazeDevice["platform"],
    widthPixels: width ?? 0,
    heightPixels: height ?? 0,
    driverType,
  };
  const id = text(bag["instanceId"]) ?? text(bag["id"]);
  if (id !== undefined) device.instanceId = id;
  return device;
}

function parseTarget(value: unknown): TrailblazeTarget | undefined {
  const bag = record(value);
  const id = text(bag?.["id"]);
  if (bag === undefined || id === undefined) return undefined;
  const appIds = texts(bag["appIds"]) ?? [];
  const baseUrls = texts(bag["baseUrls"]);
  const appId = text(bag["appId"]);
  const resolvedBaseUrl = text(bag["resolvedBaseUrl"]);
  // closures rather than methods using `this`: `const { resolveAppId } = ctx.target` works too
  return {
    id,
    displayName: text(bag["displayName"]),
    appIds,
    appId,
    baseUrls,
    resolvedBaseUrl,
    resolveAppId: (options) => appId ?? appIds[0] ?? options?.defaultAppId,
    resolveBaseUrl: (options) => resolvedBaseUrl ?? baseUrls?.[0] ?? options?.defaultBaseUrl,
  };
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function texts(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : undefined;
}
