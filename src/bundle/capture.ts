import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { childRunId, judgeLink } from "../agent/index.js";
import { sha256 } from "../canonical/index.js";
import { loadConfig } from "../config/index.js";
import type { RunEvent, RunStore } from "../contracts/index.js";
import { BundleError, RunError } from "../errors/index.js";
import { parseEvent } from "../journal/index.js";
import { globBase, globToRegExp, hasGlob } from "../patterns/index.js";
import { ownPackage } from "../package-info.js";
import { createRedactor, PROVIDER_KEY_VARIABLES, searchable, secretValues } from "../redaction/index.js";
import { writeTarGz } from "./archive.js";
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  CASSETTE_ENTRY,
  entryNameProblem,
  EVENTS_ENTRY,
  FILES_PREFIX,
  INPUT_ENTRY,
  MANIFEST_ENTRY,
  type BundleRun,
  type Manifest,
} from "./format.js";

export interface CaptureOptions {
  store: RunStore;
  runId: string;
  /** The agent's config file (absolute), with the files it names: sub-agent configs, mock scripts, documents. */
  config?: string;
  /** The mock script the run answered from (absolute), when it ran under --mock. */
  mock?: string;
  /** Where `${VAR}` values were read from: the values of key variables are secrets that must not enter the bundle. */
  env?: Readonly<Record<string, string | undefined>>;
  /** More values that must never enter the bundle. */
  secrets?: readonly string[];
  /** The run's cassette (its bytes), when its model calls went through one. */
  cassette?: Uint8Array;
}

export interface CapturedBundle {
  /** The .tgz (a Buffer under Node). */
  bytes: Uint8Array;
  manifest: Manifest;
}

export interface RunLines {
  run: BundleRun;
  lines: string[];
  /** The events the lines hold, parsed (and validated) when first read. */
  readonly events: RunEvent[];
}

/** `"type":"<type>","v":<n>}` ending a line: its top-level type, since only `v` sorts after `type` there. */
const TYPE_AT_END = /"type":"([a-z_.]+)","v":\d+\}$/;

/**
 * The event type a stored line holds, read from its end: canonical JSON sorts keys, so the
 * top-level `type` is followed only by `v` (and, in run.finished, `usage`). An unescaped
 * `"type":"` cannot sit inside a string, so a match ending the line is the event's own type.
 * A line that does not end so (run.finished, bytes from elsewhere) is parsed to find out.
 */
function typeOfLine(line: string, seq: number): string {
  const at = line.lastIndexOf('"type":"');
  const match = at < 0 ? null : TYPE_AT_END.exec(line.slice(at));
  return match ? (match[1] as string) : parseEvent(line, { seq }).type;
}

/**
 * Lines of the given types, in log order, each parsed; the others are not parsed (a long run's
 * model events are most of its bytes), nor read beyond their last few bytes.
 */
export function linesOfTypes(lines: readonly string[], types: readonly string[]): { index: number; event: RunEvent }[] {
  const wanted = new Set(types);
  const found: { index: number; event: RunEvent }[] = [];
  lines.forEach((line, index) => {
    if (!wanted.has(typeOfLine(line, index + 1))) return;
    const event = parseEvent(line, { seq: index + 1 });
    if (wanted.has(event.type)) found.push({ index, event });
  });
  return found;
}

/** Lines of one type (see linesOfTypes). */
export function linesOfType(lines: readonly string[], type: string): { index: number; event: RunEvent }[] {
  return linesOfTypes(lines, [type]);
}

function lazyRun(run: BundleRun, lines: string[]): RunLines {
  let events: RunEvent[] | undefined;
  return {
    run,
    lines,
    get events() {
      events ??= lines.map((line, index) => parseEvent(line, { runId: run.runId, seq: index + 1 }));
      return events;
    },
  };
}

/**
 * The run and every child run it links to (sub-agents), then its judge runs: depth first, each
 * child right after its parent, children in the order their calls started, judges in the order
 * they were asked. The order of events.jsonl.
 */
export function runFamily(store: RunStore, runId: string): RunLines[] {
  const out: RunLines[] = [];
  const visit = (id: string, parent: BundleRun["parent"], depth: number): void => {
    const lines = store.readRaw(id);
    if (lines.length === 0) throw new RunError("run_not_found", "no such run in this store", { runId: id });
    const first = parseEvent(lines[0] as string, { runId: id, seq: 1 });
    if (first.type !== "run.started") throw new RunError("run_corrupt", `the run's first event is ${first.type}, not run.started`, { runId: id, seq: 1 });
    out.push(lazyRun({ runId: id, ...(parent ? { parent } : {}), events: lines.length }, lines));
    if (depth > 8) return;
    const seen = new Set<string>();
    for (const { event } of linesOfType(lines, "tool.started")) {
      if (event.type !== "tool.started" || seen.has(event.callId)) continue;
      seen.add(event.callId);
      const child = childRunId(id, event.callId);
      if (store.lastSeq(child) > 0) visit(child, { runId: id, callId: event.callId }, depth + 1);
    }
    // Its judge runs, which its log cannot name (they were asked after it), found by id and
    // taken only when they name this run as their parent.
    for (let n = 1; ; n++) {
      const judge = judgeLink(id, n);
      const first = store.lastSeq(judge.runId) > 0 ? store.readRaw(judge.runId, 1, 1)[0] : undefined;
      if (first === undefined) break;
      const started = parseEvent(first, { runId: judge.runId, seq: 1 });
      if (started.type !== "run.started" || started.parent?.runId !== id || started.parent.callId !== judge.callId) break;
      visit(judge.runId, { runId: id, callId: judge.callId }, depth + 1);
    }
  };
  visit(runId, undefined, 0);
  return out;
}

/** The files the agent was built from, found by walking the config the way buildAgent does. */
function agentFiles(config: string, env: Readonly<Record<string, string | undefined>>): { files: Set<string>; secrets: string[] } {
  const files = new Set<string>();
  const secrets: string[] = [];
  const walk = (file: string, depth: number): void => {
    if (files.has(file) || depth > 6) return;
    files.add(file);
    const loaded = loadConfig(file, env);
    secrets.push(...secretValues(loaded.config), ...(loaded.secrets ?? []));
    const { config, baseDir } = loaded;
    if (config.llm.script) files.add(resolve(baseDir, config.llm.script));
    const documentsDir = resolve(baseDir, config.retrieval?.root ?? ".");
    for (const document of config.documents) {
      const pattern = typeof document === "string" ? document : document.path;
      for (const file of documentFiles(pattern, documentsDir)) files.add(file);
    }
    for (const entry of Object.values(config.agents)) {
      if (entry.mock) files.add(resolve(baseDir, entry.mock));
      walk(resolve(baseDir, entry.config), depth + 1);
    }
  };
  walk(config, 0);
  return { files, secrets };
}

/** The files a documents entry names: itself, or what its glob matches (as the retrieval loader expands it). */
function documentFiles(pattern: string, baseDir: string): string[] {
  if (!hasGlob(pattern)) return [resolve(baseDir, pattern)];
  const posixPattern = pattern.split(sep).join("/");
  const base = globBase(posixPattern);
  const matcher = globToRegExp(posixPattern);
  const root = resolve(baseDir, base);
  let names: string[];
  try {
    names = readdirSync(root, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return names
    .map((name) => name.split(sep).join("/"))
    .filter((name) => matcher.test(base === "" ? name : `${base.replace(/\/$/, "")}/${name}`))
    .map((name) => join(root, name))
    .filter((file) => {
      try {
        return statSync(file).isFile();
      } catch {
        return false;
      }
    });
}

function commonFolder(paths: readonly string[]): string {
  let common = dirname(paths[0] as string);
  for (const path of paths) {
    while (relative(common, path).startsWith("..")) {
      const up = dirname(common);
      if (up === common) break;
      common = up;
    }
  }
  return common;
}

/**
 * Packs a run into a bundle. The events are the stored bytes, never re-serialised; the config
 * files are their text with known secret values and credential-looking text removed (a
 * `${VAR}` template stays, since it holds no value). Capturing the same run twice gives the
 * same bytes: everything in it, the creation time included, is taken from the run.
 */
export function captureRun(options: CaptureOptions): CapturedBundle {
  const env = options.env ?? {};
  const runs = runFamily(options.store, options.runId);
  const root = runs[0] as RunLines;
  const entries = new Map<string, Buffer>();
  entries.set(EVENTS_ENTRY, Buffer.from(runs.flatMap((run) => run.lines.map((line) => `${line}\n`)).join(""), "utf8"));
  const turns = linesOfType(root.lines, "message").flatMap(({ event }) => (event.type === "message" ? [event.content] : []));
  entries.set(INPUT_ENTRY, Buffer.from(`${JSON.stringify({ turns }, null, 2)}\n`, "utf8"));

  const secrets = [...(options.secrets ?? []), ...PROVIDER_KEY_VARIABLES.flatMap((name) => (env[name] ? [env[name]] : []))];
  const agent: Manifest["agent"] = {};
  const sources = new Set<string>();
  if (options.config) {
    const found = agentFiles(options.config, env);
    for (const file of found.files) sources.add(file);
    secrets.push(...found.secrets);
  }
  if (options.mock) sources.add(options.mock);
  const redactor = createRedactor({ secrets });
  if (sources.size > 0) {
    const base = commonFolder([...sources]);
    const entryOf = (file: string) => FILES_PREFIX + relative(base, file).split(sep).join("/");
    for (const file of [...sources].sort()) {
      const entry = entryOf(file);
      const problem = entryNameProblem(entry);
      if (problem) throw new BundleError("bundle_path", `cannot bundle ${file}: ${problem}`, { entry });
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        throw new BundleError("bundle_content", `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { entry });
      }
      entries.set(entry, Buffer.from(redactor.text(text), "utf8"));
    }
    if (options.config) agent.config = entryOf(options.config);
    if (options.mock) agent.mock = entryOf(options.mock);
  }
  if (options.cassette) entries.set(CASSETTE_ENTRY, Buffer.from(redactor.text(Buffer.from(options.cassette).toString("utf8")), "utf8"));

  refuseSecrets(entries, secrets);
  const started = parseEvent(root.lines[0] as string);
  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_FORMAT_VERSION,
    retrace: ownPackage().version,
    runId: options.runId,
    createdAt: started.at,
    runs: runs.map((run) => run.run),
    agent,
    cassette: options.cassette !== undefined,
    entries: Object.fromEntries(
      [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, data]) => [name, { sha256: sha256(data), size: data.length }]),
    ),
  };
  entries.set(MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, "utf8"));
  return { bytes: writeTarGz(entries), manifest };
}

/**
 * The run log removed secrets when it wrote them, so a known value still in the events means a
 * log written with redaction off: the bundle is refused rather than its bytes rewritten.
 */
function refuseSecrets(entries: ReadonlyMap<string, Buffer>, secrets: readonly string[]): void {
  const needles = searchable(secrets);
  if (needles.length === 0) return;
  for (const [name, data] of entries) {
    const text = data.toString("utf8");
    if (needles.some((needle) => text.includes(needle))) {
      throw new BundleError("bundle_secret", "holds the value of a known secret (an API key); it was recorded with redaction off, so it is not bundled", { entry: name });
    }
  }
}
