/**
 * The bundle format, version 1: a gzip tarball of regular files whose bytes depend only on
 * their content. `manifest.json` names the run and the sha256 and size of every other entry.
 */
import { z } from "zod";

export const BUNDLE_FORMAT = "retrace-bundle";
export const BUNDLE_FORMAT_VERSION = 1;

export const MANIFEST_ENTRY = "manifest.json";
/** Every run of the bundle, the captured run first, then its child runs; each run's events in seq order. */
export const EVENTS_ENTRY = "events.jsonl";
export const INPUT_ENTRY = "input.json";
/** Files the agent was built from (configs, mock scripts, documents), under their common folder. */
export const FILES_PREFIX = "files/";
/** The HTTP exchanges of a run recorded through a cassette. */
export const CASSETTE_ENTRY = "cassette.json";

export interface BundleLimits {
  /** Bytes of any one entry once decompressed. */
  maxEntryBytes: number;
  /** Bytes of all entries together once decompressed (headers included). */
  maxTotalBytes: number;
  maxEntries: number;
  /** Bytes of the compressed file. */
  maxFileBytes: number;
  /** Nesting of arrays and objects in any JSON entry or event. */
  maxJsonDepth: number;
}

export const DEFAULT_LIMITS: BundleLimits = {
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntries: 4096,
  maxFileBytes: 64 * 1024 * 1024,
  maxJsonDepth: 128,
};

const EntryInfoSchema = z.strictObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() });

export const BundleRunSchema = z.strictObject({
  runId: z.string().min(1),
  parent: z.strictObject({ runId: z.string(), callId: z.string() }).optional(),
  events: z.number().int().positive(),
});
export type BundleRun = z.infer<typeof BundleRunSchema>;

export const ManifestSchema = z.strictObject({
  format: z.literal(BUNDLE_FORMAT),
  version: z.number().int().positive(),
  /** The Retrace version that captured it. */
  retrace: z.string(),
  runId: z.string().min(1),
  /** The `at` of the run's run.started: taken from the run, so capturing twice gives the same bytes. */
  createdAt: z.string(),
  runs: z.array(BundleRunSchema).min(1),
  /** Where the agent's config and mock script are among the entries (absent: the run recorded none). */
  agent: z.strictObject({ config: z.string().optional(), mock: z.string().optional() }),
  /** Whether the models were reached through a cassette, which is then the cassette entry. */
  cassette: z.boolean(),
  entries: z.record(z.string(), EntryInfoSchema),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/**
 * A safe entry name: relative, forward slashes, no `.` or `..` segments, no drive letter, a
 * plain character set, short enough for a ustar header. Anything else is refused on load and
 * never written on capture.
 */
export function entryNameProblem(name: string): string | undefined {
  if (name.length === 0) return "the name is empty";
  if (name.length > 100) return "the name is longer than 100 characters";
  if (name.startsWith("/") || name.startsWith("\\")) return "the path is absolute";
  if (/^[A-Za-z]:/.test(name)) return "the path names a drive";
  if (name.includes("\\")) return "the path holds a backslash";
  if (name.includes("\0")) return "the path holds a NUL byte";
  const segments = name.split("/");
  if (segments.some((segment) => segment === "..")) return "the path climbs out with ..";
  if (segments.some((segment) => segment === "" || segment === ".")) return "the path has an empty or . segment";
  if (!/^[A-Za-z0-9._\-/]+$/.test(name)) return "the path holds characters outside A-Z a-z 0-9 . _ - /";
  if (segments.length > 16) return "the path is nested deeper than 16 folders";
  return undefined;
}

/**
 * Whether parsed JSON nests arrays and objects deeper than `limit` (as `jsonDepthExceeds`
 * counts it in the text). For values already parsed: V8's JSON.parse keeps its own stack, so
 * parsing a hostile document first is safe, and a walk of the value is cheaper than reading
 * the text again. It looks no deeper than `limit`, so its own recursion is bounded.
 */
export function valueDepthExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (valueDepthExceeds(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (valueDepthExceeds((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

/**
 * The deepest nesting of arrays and objects in JSON text, read without parsing it, so a
 * hostile document cannot exhaust the stack of a parser or a validator first. Stops early
 * once `limit` is passed.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      // A string's contents hold no nesting: jump to its closing quote (one not escaped, that
      // is, after an even run of backslashes) instead of reading it a character at a time.
      let end = text.indexOf('"', index + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return false;
      index = end;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}
