// The session's memory as a tool sees it: a snapshot taken when the call started, plus the
// tool's own writes. Writes go back to Trailblaze with the tool's result (its
// `_meta.trailblaze.memoryDelta` and `memoryDeletions`), and only when the tool succeeds: a
// tool that throws leaves the session's memory as it was.

export interface TrailblazeMemory {
  /** The value remembered under `key` (as text), or undefined. */
  get(key: string): string | undefined;
  /** Remember `value` under `key` (from this call on, and for the trail once the call succeeds). */
  set(key: string, value: string): void;
  has(key: string): boolean;
  /** The names remembered, in the order they were first remembered. */
  keys(): readonly string[];
  /** Forget `key`. */
  delete(key: string): void;
  /**
   * `template` with `{{name}}`, `{{memory.name}}` and `${name}` replaced by the remembered
   * values; a name that is not remembered stays as written.
   */
  interpolate(template: string): string;
}

/** The changes a call made, as Trailblaze applies them. */
export interface MemoryChanges {
  memoryDelta?: Record<string, string>;
  memoryDeletions?: string[];
}

const TOKEN = /\{\{\s*(?:memory\.)?([A-Za-z0-9_.-]+)\s*\}\}|\$\{(?:memory\.)?([A-Za-z0-9_.-]+)\}/g;

/** Memory over `snapshot` (any JSON values: text stays text, other values become their JSON). */
export function createMemory(snapshot?: Record<string, unknown>): TrailblazeMemory & { changes(): MemoryChanges } {
  const values = new Map<string, string>();
  for (const [key, value] of Object.entries(snapshot ?? {})) {
    if (value !== undefined && value !== null) values.set(key, typeof value === "string" ? value : JSON.stringify(value));
  }
  const written = new Map<string, string>();
  const deleted = new Set<string>();
  const memory = {
    get: (key: string) => values.get(key),
    has: (key: string) => values.has(key),
    keys: () => [...values.keys()],
    set(key: string, value: string) {
      if (typeof value !== "string") {
        throw new TypeError(`memory.set(${JSON.stringify(key)}, …): the value must be text, got ${typeof value}`);
      }
      values.set(key, value);
      written.set(key, value);
      deleted.delete(key);
    },
    delete(key: string) {
      values.delete(key);
      written.delete(key);
      deleted.add(key);
    },
    interpolate: (template: string) =>
      template.replace(TOKEN, (whole, braced: string | undefined, dollar: string | undefined) => {
        const found = values.get((braced ?? dollar) as string);
        return found === undefined ? whole : found;
      }),
    changes(): MemoryChanges {
      const changes: MemoryChanges = {};
      if (written.size > 0) changes.memoryDelta = Object.fromEntries(written);
      if (deleted.size > 0) changes.memoryDeletions = [...deleted];
      return changes;
    },
  };
  return memory;
}
