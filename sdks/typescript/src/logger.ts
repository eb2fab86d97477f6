// A tool's log: lines on stderr, which Trailblaze keeps with the session's logs. Stdout is the
// MCP connection itself, so nothing else may be written there.

import { format } from "node:util";

export type TrailblazeLogLevel = "debug" | "info" | "warn" | "error";

export interface TrailblazeLogger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/** A logger whose lines start with `[tool] level:`. */
export function createLogger(tool: string, write: (line: string) => void = toStderr): TrailblazeLogger {
  const at =
    (level: TrailblazeLogLevel) =>
    (message: string, ...args: unknown[]): void =>
      write(`[${tool}] ${level}: ${format(message, ...args)}\n`);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function toStderr(line: string): void {
  process.stderr.write(line);
}
