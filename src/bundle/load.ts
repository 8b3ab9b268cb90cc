import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { z } from "zod";
import { sha256 } from "../canonical/index.js";
import type { EventOf, RunEvent } from "../contracts/index.js";
import { parseCassette } from "../cassette/index.js";
import { BundleError, EventFormatError, RetraceError, type BundleErrorCode } from "../errors/index.js";
import { StoredLineChecker } from "../journal/index.js";
import { readTarGz } from "./archive.js";
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  CASSETTE_ENTRY,
  DEFAULT_LIMITS,
  EVENTS_ENTRY,
  FILES_PREFIX,
  INPUT_ENTRY,
  jsonDepthExceeds,
  valueDepthExceeds,
  MANIFEST_ENTRY,
  ManifestSchema,
  type BundleLimits,
  type BundleRun,
  type Manifest,
} from "./format.js";

export interface BundledRun extends Omit<BundleRun, "events"> {
  /** The stored canonical bytes of each event, in seq order. */
  lines: string[];
  events: RunEvent[];
  started: EventOf<"run.started">;
}

/** A loaded bundle: every checksum verified, every event valid, the manifest in agreement with the content. */
export interface Bundle {
  manifest: Manifest;
  /** The captured run first, then its child runs. */
  runs: BundledRun[];
  root: BundledRun;
  input: { turns: string[] };
  /** The agent's files by entry name (`files/...`). */
  files: ReadonlyMap<string, Uint8Array>;
  cassette: Uint8Array | undefined;
  /** sha256 of events.jsonl: the log's fingerprint, which `replay` prints when the run comes back identical. */
  logSha256: string;
  /** Bytes of the bundle file. */
  size: number;
}

const InputSchema = z.strictObject({ turns: z.array(z.string()) });

/**
 * Reads and verifies a bundle file (or its bytes); a FIFO, a device or a folder is refused
 * before anything is read. Errors name the file as `label` (default: the path given).
 */
export async function loadBundle(source: string | Uint8Array, limits: Partial<BundleLimits> = {}, label?: string): Promise<Bundle> {
  const settings = { ...DEFAULT_LIMITS, ...limits };
  const shown = label ?? (typeof source === "string" ? source : undefined);
  try {
    const bytes = typeof source === "string" ? readBundleFile(source, settings) : Buffer.isBuffer(source) ? source : Buffer.from(source);
    return await parseBundle(bytes, settings);
  } catch (error) {
    if (error instanceof BundleError && shown !== undefined) throw new BundleError(error.code as BundleErrorCode, error.message, { ...error.place, file: shown });
    throw error;
  }
}

/** Why a bundle file would not open, in words (the code stays for what the words do not cover). */
function openProblem(error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return "no such file";
  if (error.code === "EACCES" || error.code === "EPERM") return "permission denied";
  if (error.code === "ENOTDIR") return "a part of its path is not a folder";
  return error.code ? `${error.code} (${error.message})` : error.message;
}

function readBundleFile(file: string, limits: BundleLimits): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before the check below refuses it.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new BundleError("bundle_unreadable", `cannot open the bundle: ${openProblem(error as NodeJS.ErrnoException)}`, { file });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new BundleError("bundle_entry_type", "is not a regular file (a folder, a device or a FIFO); a bundle is a .tgz file", { file });
    if (stat.size > limits.maxFileBytes) throw new BundleError("bundle_too_large", `the file is ${stat.size} bytes; the limit is ${limits.maxFileBytes}`, { file });
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function text(entry: string, data: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    throw new BundleError("bundle_content", "is not valid UTF-8", { entry });
  }
}

function json(entry: string, data: Buffer, limits: BundleLimits): unknown {
  const body = text(entry, data);
  if (jsonDepthExceeds(body, limits.maxJsonDepth)) throw new BundleError("bundle_content", `JSON nested deeper than ${limits.maxJsonDepth} levels`, { entry });
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new BundleError("bundle_content", `not valid JSON: ${(error as Error).message}`, { entry });
  }
}

function schemaProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.join(".") ?? "";
  return `${path ? `${path}: ` : ""}${issue?.message ?? "invalid"}`;
}

function readManifest(entries: ReadonlyMap<string, Buffer>, limits: BundleLimits): Manifest {
  const data = entries.get(MANIFEST_ENTRY);
  if (!data) throw new BundleError("bundle_mismatch", "the bundle has no manifest.json", { entry: MANIFEST_ENTRY });
  const value = json(MANIFEST_ENTRY, data, limits) as { format?: unknown; version?: unknown } | null;
  if (value === null || typeof value !== "object" || value.format !== BUNDLE_FORMAT) {
    throw new BundleError("bundle_content", `not a Retrace bundle manifest (format is not "${BUNDLE_FORMAT}")`, { entry: MANIFEST_ENTRY });
  }
  if (typeof value.version === "number" && value.version !== BUNDLE_FORMAT_VERSION) {
    throw new BundleError(
      "bundle_version",
      `bundle format version ${value.version}; this Retrace reads version ${BUNDLE_FORMAT_VERSION}${value.version > BUNDLE_FORMAT_VERSION ? " (upgrade Retrace)" : ""}`,
      { entry: MANIFEST_ENTRY },
    );
  }
  const parsed = ManifestSchema.safeParse(value);
  if (!parsed.success) throw new BundleError("bundle_content", `invalid manifest: ${schemaProblem(parsed.error)}`, { entry: MANIFEST_ENTRY });
  return parsed.data;
}

/** Checks every entry against the manifest; gives back the events entry's sha256 (the log's fingerprint), hashed once. */
function checkEntries(manifest: Manifest, entries: ReadonlyMap<string, Buffer>): string {
  let logSha256 = "";
  for (const [name, data] of entries) {
    if (name === MANIFEST_ENTRY) continue;
    const known = name === EVENTS_ENTRY || name === INPUT_ENTRY || name === CASSETTE_ENTRY || name.startsWith(FILES_PREFIX);
    if (!known) throw new BundleError("bundle_content", "an entry this format does not have", { entry: name });
    const listed = Object.hasOwn(manifest.entries, name) ? manifest.entries[name] : undefined;
    if (!listed) throw new BundleError("bundle_mismatch", "the entry is not in the manifest", { entry: name });
    if (listed.size !== data.length) throw new BundleError("bundle_mismatch", `the manifest says ${listed.size} bytes, the entry has ${data.length}`, { entry: name });
    const checksum = sha256(data);
    if (listed.sha256 !== checksum) throw new BundleError("bundle_mismatch", "the checksum does not match the manifest (the entry was changed)", { entry: name });
    if (name === EVENTS_ENTRY) logSha256 = checksum;
  }
  for (const name of Object.keys(manifest.entries)) {
    if (!entries.has(name)) throw new BundleError("bundle_mismatch", "the manifest lists it, but the bundle does not hold it", { entry: name });
  }
  for (const [what, name] of [["config", manifest.agent.config], ["mock", manifest.agent.mock]] as const) {
    if (name !== undefined && (!name.startsWith(FILES_PREFIX) || !entries.has(name))) {
      throw new BundleError("bundle_mismatch", `the manifest's agent ${what} is not one of the bundle's files`, { entry: name });
    }
  }
  if (manifest.cassette !== entries.has(CASSETTE_ENTRY)) {
    throw new BundleError("bundle_mismatch", manifest.cassette ? "the manifest says the run has a cassette, but there is none" : "a cassette the manifest does not declare", { entry: CASSETTE_ENTRY });
  }
  if (!entries.has(EVENTS_ENTRY)) throw new BundleError("bundle_mismatch", "the bundle has no events", { entry: EVENTS_ENTRY });
  if (!entries.has(INPUT_ENTRY)) throw new BundleError("bundle_mismatch", "the bundle has no input", { entry: INPUT_ENTRY });
  return logSha256;
}

function readRuns(manifest: Manifest, data: Buffer, limits: BundleLimits): BundledRun[] {
  const body = text(EVENTS_ENTRY, data);
  if (body.length === 0 || !body.endsWith("\n")) throw new BundleError("bundle_content", "events.jsonl must be one event per line, each ending in a newline", { entry: EVENTS_ENTRY });
  const lines = body.slice(0, -1).split("\n");
  const runs: BundledRun[] = [];
  const byId = new Map<string, BundledRun>();
  let index = 0;
  for (const declared of manifest.runs) {
    if (byId.has(declared.runId)) throw new BundleError("bundle_mismatch", `run ${declared.runId} is listed twice`, { entry: MANIFEST_ENTRY });
    const run: BundledRun = { runId: declared.runId, ...(declared.parent ? { parent: declared.parent } : {}), lines: [], events: [], started: undefined as never };
    // One pass over the run's lines: each model call's conversation is read once, not once per later call.
    const checker = new StoredLineChecker();
    for (let seq = 1; seq <= declared.events; seq++, index++) {
      const line = lines[index];
      const place = { entry: EVENTS_ENTRY, path: `line ${index + 1}` };
      if (line === undefined) throw new BundleError("bundle_mismatch", `the manifest says run ${declared.runId} has ${declared.events} events; the log ends first`, place);
      let checked: { event: RunEvent; fresh: RunEvent };
      try {
        // Checked before its depth: parsing and the event schema hold up against any nesting
        // (no schema of an event recurses), and what was parsed anew holds what the line nests
        // (the rest was walked in an earlier line, at the same place).
        checked = checker.check(line);
      } catch (error) {
        if (error instanceof EventFormatError) throw new BundleError("bundle_content", `a malformed event: ${error.message}`, { ...place, ...error.place, entry: EVENTS_ENTRY });
        throw error;
      }
      const event = checked.event;
      if (valueDepthExceeds(checked.fresh, limits.maxJsonDepth)) throw new BundleError("bundle_content", `an event nested deeper than ${limits.maxJsonDepth} levels`, place);
      if (event.runId !== declared.runId || event.seq !== seq) {
        throw new BundleError("bundle_mismatch", `expected run ${declared.runId} seq ${seq}, found run ${event.runId} seq ${event.seq}`, place);
      }
      run.lines.push(line);
      run.events.push(event);
    }
    const first = run.events[0];
    if (first?.type !== "run.started") throw new BundleError("bundle_content", `run ${declared.runId} does not begin with run.started`, { entry: EVENTS_ENTRY });
    run.started = first;
    const parent = first.parent;
    const same = parent?.runId === declared.parent?.runId && parent?.callId === declared.parent?.callId;
    if (!same) throw new BundleError("bundle_mismatch", `run ${declared.runId}'s parent differs between the manifest and its run.started`, { entry: EVENTS_ENTRY });
    if (declared.parent && !byId.has(declared.parent.runId)) {
      throw new BundleError("bundle_mismatch", `run ${declared.runId}'s parent ${declared.parent.runId} comes after it or is not in the bundle`, { entry: MANIFEST_ENTRY });
    }
    runs.push(run);
    byId.set(run.runId, run);
  }
  if (index !== lines.length) throw new BundleError("bundle_mismatch", `events.jsonl holds ${lines.length - index} event(s) more than the manifest lists`, { entry: EVENTS_ENTRY });
  return runs;
}

async function parseBundle(bytes: Buffer, limits: BundleLimits): Promise<Bundle> {
  const entries = await readTarGz(bytes, limits);
  const manifest = readManifest(entries, limits);
  const logSha256 = checkEntries(manifest, entries);
  const runs = readRuns(manifest, entries.get(EVENTS_ENTRY) as Buffer, limits);
  const root = runs[0] as BundledRun;
  if (root.runId !== manifest.runId || root.parent) throw new BundleError("bundle_mismatch", `the manifest's run ${manifest.runId} is not the first, top-level run of the log`, { entry: MANIFEST_ENTRY });
  if (manifest.createdAt !== root.started.at) throw new BundleError("bundle_mismatch", "the manifest's createdAt is not the run's start", { entry: MANIFEST_ENTRY });
  const input = InputSchema.safeParse(json(INPUT_ENTRY, entries.get(INPUT_ENTRY) as Buffer, limits));
  if (!input.success) throw new BundleError("bundle_content", `invalid input: ${schemaProblem(input.error)}`, { entry: INPUT_ENTRY });
  const turns = root.events.flatMap((event) => (event.type === "message" ? [event.content] : []));
  if (JSON.stringify(turns) !== JSON.stringify(input.data.turns)) throw new BundleError("bundle_mismatch", "the input disagrees with the messages in the log", { entry: INPUT_ENTRY });
  const files = new Map([...entries].filter(([name]) => name.startsWith(FILES_PREFIX)));
  const cassette = entries.get(CASSETTE_ENTRY);
  if (cassette) {
    if (jsonDepthExceeds(text(CASSETTE_ENTRY, cassette), limits.maxJsonDepth)) throw new BundleError("bundle_content", `JSON nested deeper than ${limits.maxJsonDepth} levels`, { entry: CASSETTE_ENTRY });
    try {
      parseCassette(text(CASSETTE_ENTRY, cassette), CASSETTE_ENTRY);
    } catch (error) {
      if (error instanceof RetraceError) throw new BundleError("bundle_content", `an invalid cassette: ${error.message}`, { entry: CASSETTE_ENTRY });
      throw error;
    }
  }
  return {
    manifest,
    runs,
    root,
    input: input.data,
    files,
    cassette,
    logSha256,
    size: bytes.length,
  };
}
