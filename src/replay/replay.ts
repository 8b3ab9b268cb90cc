import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { AgentRun, type AgentDefinition } from "../agent/index.js";
import { Cassette, cassetteFetch, ignoreBodyField, parseCassette } from "../cassette/index.js";
import { CASSETTE_ENTRY, type Bundle } from "../bundle/index.js";
import { buildAgent, loadConfig, type LoadedConfig } from "../config/index.js";
import { createRunContext, type Clock } from "../context/index.js";
import type { GenerateOptions, LanguageModel, LlmRequest, Message, RunEvent, RunStore } from "../contracts/index.js";
import { errorMessage, UsageError } from "../errors/index.js";
import { ScriptedModel } from "../providers/scripted/index.js";
import { MemoryRunStore, RunLog } from "../store/index.js";
import { replayApprover } from "./approver.js";
import { replayClock } from "./clock.js";
import { familyLog, firstDivergence, outcomeOf, type EventDivergence, type OutcomeSummary } from "./compare.js";
import { describeChanges, structuralDiff, type Change } from "./diff.js";
import { replayModel, type Continuation, type RequestDivergence, type ReplaySession } from "./model.js";
import { readRecording, type RecordedRun } from "./recording.js";
import { replayTool } from "./tools.js";

export interface ReplayOptions {
  /** A changed agent config to replay with (its own path); default: the config in the bundle. */
  config?: string;
  /** "live": tools marked idempotent run again for real (to test them); default: every result from the recording. */
  tools?: "recorded" | "live";
  /**
   * What if: after the first divergent model request, go on against a mock script or the live
   * provider instead of stopping, and run tools the recording does not hold.
   */
  continue?: { mock: string | ScriptedModel } | { live: true };
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the replayed runs are written (default: memory). A "what if" run gets its own run id. */
  store?: RunStore;
  /** The run id of the replay; default the recorded one. */
  runId?: string;
  /**
   * "wire" (default when the bundle holds a cassette): the real provider SDK parses the recorded
   * HTTP bytes, served by the cassette in strict replay. "run": the recorded responses are served
   * as the log holds them. A "what if" always continues at the run level.
   */
  level?: "wire" | "run";
}

export interface RequestDiff {
  runId: string;
  /** 1-based model call of that run. */
  call: number;
  expectedKey: string | undefined;
  actualKey: string;
  changes: Change[];
  /** The changes, one readable line each. */
  lines: string[];
}

interface VerdictBase {
  runId: string;
  replayRunId: string;
  /** sha256 of the replayed log (all its runs, as events.jsonl of a bundle of it). */
  sha256: string;
  recordedSha256: string;
  events: number;
  recorded: OutcomeSummary;
  replayed: OutcomeSummary;
}

export type ReplayVerdict =
  | (VerdictBase & { status: "identical" })
  | (VerdictBase & {
      status: "diverged";
      divergence: EventDivergence & { changes: string[] };
      /** The first model request that left the recording, with what changed in it. */
      request: RequestDiff | undefined;
      /** The replay stopped with an error the run could not record (rare: a config that no longer builds a run). */
      error?: string;
      continued: boolean;
    });

/** Writes the bundle's files into a temp folder this replay owns; never outside it. */
function extractFiles(bundle: Bundle, root: string): void {
  for (const [name, data] of bundle.files) {
    const target = resolve(root, ...name.split("/"));
    if (!target.startsWith(root + sep)) throw new UsageError(`bundle entry ${name} would be written outside the replay's folder`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
}

/**
 * The conversation a continuation script sees: the recorded answers before the divergence are
 * left out, so the script's first response answers the first call that diverged.
 */
function sinceDivergence(request: LlmRequest, at: RequestDivergence): LlmRequest {
  const before = at.actual.messages.length;
  const kept: Message[] = request.messages.slice(0, before).filter((message) => message.role === "user" || message.role === "system");
  return { ...request, messages: [...kept, ...request.messages.slice(before)] };
}

function continuationOf(options: ReplayOptions): Continuation | undefined {
  const chosen = options.continue;
  if (!chosen) return undefined;
  if ("mock" in chosen) {
    const script = typeof chosen.mock === "string" ? ScriptedModel.fromFile(chosen.mock) : chosen.mock;
    return {
      generate: (request, generateOptions, index, at) =>
        script.generate(sinceDivergence(request, at), { ...generateOptions, callIndex: index } satisfies GenerateOptions),
    };
  }
  return { generate: (request, generateOptions, _index, _at, configured) => configured.generate(request, generateOptions) };
}

/**
 * Replays a bundle at the run level: the agent (from the bundle's config, or a changed one)
 * runs again with model answers, tool results and approvals served from the recording, and
 * clock, ids and seed from the recording; then its log is compared with the recorded one.
 */
export async function replayBundle(bundle: Bundle, options: ReplayOptions = {}): Promise<ReplayVerdict> {
  const env = options.env ?? {};
  const work = mkdtempSync(join(tmpdir(), "retrace-replay-"));
  try {
    extractFiles(bundle, work);
    const recordedRoot = bundle.root.runId;
    const whatIf = options.continue !== undefined;
    const store = options.store ?? new MemoryRunStore();
    const newRoot = options.runId ?? (whatIf ? freeRunId(store, `${recordedRoot}-whatif`) : recordedRoot);
    const toRecorded = (runId: string) => (runId.startsWith(newRoot) ? recordedRoot + runId.slice(newRoot.length) : runId);
    const recordings = new Map<string, RecordedRun>(bundle.runs.map((run) => [run.runId, readRecording(run.runId, run.events, run.lines)]));
    const recordedRun = (runId: string) => recordings.get(toRecorded(runId));
    const session: ReplaySession = { recordedRun, divergences: [] };
    const continuation = continuationOf(options);
    if (continuation) session.continuation = continuation;

    const configFile = options.config ?? (bundle.manifest.agent.config ? join(work, ...bundle.manifest.agent.config.split("/")) : undefined);
    if (!configFile) throw new UsageError(`bundle of run ${recordedRoot} holds no agent config (it was captured without one); pass --config <agent.yaml>`);
    const mock = bundle.manifest.agent.mock ? join(work, ...bundle.manifest.agent.mock.split("/")) : undefined;
    const loaded = loadConfig(configFile, env);
    const wire = bundle.cassette !== undefined && !whatIf && (options.level ?? "wire") === "wire";
    const cassette = wire ? openBundledCassette(bundle.cassette as Uint8Array, loaded) : undefined;
    let workspaces = 0;
    const agent: AgentDefinition = await buildAgent(loaded, {
      env,
      ...(mock ? { mock } : {}),
      // The replay model answers every request; only a live continuation needs the key.
      keyless: !(options.continue && "live" in options.continue),
      ...(cassette
        ? { fetch: cassetteFetch(cassette, refuseNetwork) }
        : {
            modelFor: (configured: LanguageModel) => replayModel(configured, session),
          }),
      toolFor: (tool) =>
        replayTool(tool, {
          recordedRun,
          mode: options.tools ?? "recorded",
          unrecorded: whatIf ? "run" : "fail",
          diverged: (runId) => session.divergences.some((at) => at.runId === runId),
        }),
      approver: replayApprover(recordedRun),
      // Tools that run for real (--tools live, or after a "what if" divergence) touch only a folder of this replay.
      workspaceFor: () => {
        const folder = join(work, `workspace-${++workspaces}`);
        mkdirSync(folder, { recursive: true });
        return folder;
      },
    });

    const clocks = new Map<string, ReturnType<typeof replayClock>>();
    const clockFor = (runId: string): ReturnType<typeof replayClock> => {
      let clock = clocks.get(runId);
      if (!clock) {
        clock = replayClock(recordedRun(runId)?.times ?? [Date.parse(bundle.root.started.at)]);
        clocks.set(runId, clock);
      }
      return clock;
    };
    const context = createRunContext({ seed: bundle.root.started.seed, clock: clockFor(newRoot), clockFor });
    const error = await drive(agent, bundle, { store, context, newRoot, recordedRun, clockFor });
    cassette?.close();

    const replayed = familyLog(store, newRoot);
    const rename = newRoot === recordedRoot ? (line: string) => line : (line: string) => line.split(`"runId":"${newRoot}`).join(`"runId":"${recordedRoot}`);
    const divergence = firstDivergence(
      bundle.runs.map((run) => ({ run: { runId: run.runId, ...(run.parent ? { parent: run.parent } : {}), events: run.lines.length }, lines: run.lines, events: run.events })),
      replayed.runs,
      rename,
    );
    const base: VerdictBase = {
      runId: recordedRoot,
      replayRunId: newRoot,
      sha256: replayed.sha256,
      recordedSha256: bundle.logSha256,
      events: replayed.events,
      recorded: outcomeOf(bundle.runs.map((run) => ({ run: { runId: run.runId, events: run.lines.length }, lines: run.lines, events: run.events }))),
      replayed: outcomeOf(replayed.runs),
    };
    if (!divergence && error === undefined) return { ...base, status: "identical" };
    const first = divergence ?? { runId: recordedRoot, seq: 0, expected: undefined, actual: undefined, expectedLine: undefined, actualLine: undefined };
    const eventChanges =
      first.expected && first.actual ? describeChanges(structuralDiff(strip(first.expected), strip(JSON.parse(rename(first.actualLine ?? "{}"))))) : [];
    return {
      ...base,
      status: "diverged",
      divergence: { ...first, changes: eventChanges },
      request: requestDiff(session.divergences[0], toRecorded) ?? requestDiffAt(first, rename),
      ...(error !== undefined ? { error } : {}),
      continued: whatIf,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A strict-replay cassette over the bundled exchanges (in memory), keyed as the config keys them. */
function openBundledCassette(bytes: Uint8Array, loaded: LoadedConfig): Cassette {
  const document = parseCassette(Buffer.from(bytes).toString("utf8"), CASSETTE_ENTRY);
  const configured = loaded.config.cassette;
  const ignored = configured !== undefined && typeof configured !== "string" ? configured.ignore_body_fields : [];
  return Cassette.fromDocument(CASSETTE_ENTRY, document, { mode: "replay", ...(ignored.length ? { normalise: ignored.map(ignoreBodyField) } : {}) });
}

/** Strict replay never forwards; should a cassette try, the request fails instead of reaching the network. */
const refuseNetwork: typeof fetch = () => Promise.reject(new Error("replay: the network is never used"));

function strip(event: object): object {
  const { v: _v, runId: _runId, ...rest } = event as Record<string, unknown>;
  return rest;
}

function requestDiff(at: RequestDivergence | undefined, toRecorded: (runId: string) => string): RequestDiff | undefined {
  if (!at) return undefined;
  const changes = structuralDiff(at.expected ?? null, at.actual);
  return {
    runId: toRecorded(at.runId),
    call: at.callIndex + 1,
    expectedKey: at.expectedKey,
    actualKey: at.actualKey,
    changes,
    lines: at.expected ? describeChanges(changes) : [`the recording holds no model call #${at.callIndex + 1} for this run`],
  };
}

/** At wire level the cassette, not the replay model, sees a changed request: diff the two llm.started events. */
function requestDiffAt(at: EventDivergence, rename: (line: string) => string): RequestDiff | undefined {
  if (at.expected?.type !== "llm.started" || at.actualLine === undefined) return undefined;
  const actual = JSON.parse(rename(at.actualLine)) as RunEvent;
  if (actual.type !== "llm.started") return undefined;
  const changes = structuralDiff(at.expected.request, actual.request);
  return {
    runId: at.runId,
    call: at.expected.step,
    expectedKey: at.expected.requestKey,
    actualKey: actual.requestKey,
    changes,
    lines: describeChanges(changes),
  };
}

function freeRunId(store: RunStore, base: string): string {
  if (store.lastSeq(base) === 0) return base;
  for (let n = 2; ; n++) if (store.lastSeq(`${base}-${n}`) === 0) return `${base}-${n}`;
}

interface DriveSettings {
  store: RunStore;
  context: ReturnType<typeof createRunContext>;
  newRoot: string;
  recordedRun: (runId: string) => RecordedRun | undefined;
  clockFor: (runId: string) => ReturnType<typeof replayClock>;
}

/** The replay of a kill: the append that would have written past what the killed process wrote. */
class ReplayedKill extends Error {}

/**
 * Where the recorded process was killed, and how the next one took over: a `run.resumed` that
 * follows no `run.paused` (a run waiting for a person is resumed too, but nothing was killed)
 * was written by a new process after the last event the killed one wrote; so was an
 * `llm.interrupted` with no such marker before it (a library resume that did not ask for one).
 */
function killPoints(events: readonly RunEvent[]): { points: number[]; unmarked: Set<number> } {
  const points: number[] = [];
  const unmarked = new Set<number>();
  let paused = false;
  let previous: RunEvent | undefined;
  for (const event of events) {
    if (event.type === "run.paused") paused = true;
    else if (event.type === "run.resumed") {
      if (!paused) points.push(event.seq - 1);
      paused = false;
    } else if (event.type === "llm.interrupted" && previous?.type !== "run.resumed") {
      points.push(event.seq - 1);
      unmarked.add(event.seq);
    }
    previous = event;
  }
  return { points, unmarked };
}

/**
 * The replay's store, killed where the recording was: the run's append that would write past a
 * kill point is refused (nothing of it is written, as nothing of it was), and the clock gives
 * back the reads of its events, so the resume that follows gets the recorded times. Only the
 * root run's kills are replayed; a sub-agent's shows as a divergence.
 */
function killedAt(store: RunStore, runId: string, points: number[], clock: ReturnType<typeof replayClock>): RunStore {
  if (points.length === 0) return store;
  const ours = `"runId":${JSON.stringify(runId)}`;
  const appendRaw = (bodies: readonly string[]): RunEvent[] => {
    const next = points[0];
    // At the kill point exactly: the recorded prefix ends where an append began.
    if (next !== undefined && bodies.length > 0 && (bodies[0] as string).includes(ours) && store.lastSeq(runId) === next) {
      points.shift();
      clock.rewind(bodies.length);
      throw new ReplayedKill(`replayed kill after seq ${next}`);
    }
    return store.appendRaw(bodies);
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === "appendRaw") return appendRaw;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Gives the new run what came from outside in the recording, in the same order: each user
 * message, and at each resume the decisions `retrace approve` added while a run was paused.
 * Returns the message of an error that stopped driving, if any.
 */
async function drive(agent: AgentDefinition, bundle: Bundle, settings: DriveSettings): Promise<string | undefined> {
  const { context, newRoot } = settings;
  const kills = killPoints(bundle.root.events);
  const store = killedAt(settings.store, newRoot, kills.points, settings.clockFor(newRoot));
  const started = bundle.root.started;
  const applied = new Map<string, number>();
  // A replayed kill ends what the killed process was doing; the recording's next `run.resumed` goes on from there.
  const survive = (work: Promise<unknown>) => work.catch((error: unknown) => {
    if (!(error instanceof ReplayedKill)) throw error;
  });
  try {
    let run = AgentRun.start(agent, { store, context, runId: newRoot, ...(started.source ? { source: started.source } : {}) });
    for (const event of bundle.root.events) {
      if (event.type === "message") {
        await survive(run.send(event.content));
      } else if (event.type === "run.resumed") {
        applyPausedDecisions(bundle, { ...settings, store }, applied);
        run = AgentRun.open(agent, newRoot, { store, context });
        await survive(run.resume({ mark: true }));
      } else if (event.type === "llm.interrupted" && kills.unmarked.has(event.seq)) {
        run = AgentRun.open(agent, newRoot, { store, context });
        await survive(run.resume());
      }
    }
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** For every run now paused in the replay, the decisions the recording received during that pause. */
function applyPausedDecisions(bundle: Bundle, settings: DriveSettings, applied: Map<string, number>): void {
  const { store, newRoot } = settings;
  for (const recorded of bundle.runs) {
    const runId = newRoot + recorded.runId.slice(bundle.root.runId.length);
    if (store.lastSeq(runId) === 0) continue;
    const pauses = store.read(runId).filter((event) => event.type === "run.paused").length;
    const done = applied.get(runId) ?? 0;
    if (pauses <= done) continue;
    const batch = settings.recordedRun(runId)?.pausedBatches[pauses - 1] ?? [];
    applied.set(runId, pauses);
    if (batch.length === 0) continue;
    RunLog.open(runId, store, settings.clockFor(runId)).appendAll(batch);
  }
}
