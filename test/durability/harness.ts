/**
 * The crash harness: real processes, real SIGKILLs, invariants after each trial. Shared by
 * test/durability/crash.test.ts (a few dozen trials in `npm test`) and bench/crash.main.ts
 * (`npm run bench:crash -- --trials N`).
 *
 * A trial drives one run of the fixture agent (scripted model; idempotent `lookup`,
 * non-idempotent `charge` and `refund` that append to a ledger file outside the store; a
 * retried fault, an approval and a sub-agent) the way a user would from the CLI: a child
 * `retrace run`, then `retrace approve` and a child `retrace resume`. One of the two children
 * gets SIGKILL at a random instant. This process then finishes the run as a person would:
 * `retrace resume` (and `run` again if the kill came before the message was logged),
 * approving what waits for approval and deciding unknown outcomes by looking at the ledger —
 * `--skip` when the effect is there, `--rerun` when it is not.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/io.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { resumeEquivalent } from "./equivalence.js";

export const root = resolve(import.meta.dirname, "../..");
export const fixture = join(root, "test/durability/fixtures/crash");
const bin = join(root, "bin/retrace.js");
const NON_IDEMPOTENT = new Set(["charge", "refund"]);

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI in this process, from an unrelated working directory (resume works from anywhere). */
export async function cli(args: string[], cwd: string): Promise<CliOutcome> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env: process.env, cwd, isTTY: false };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

export interface Child {
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  kill(): void;
  spawnedAt: number;
}

export function child(args: string[], env: Record<string, string>, cwd: string): Child {
  const proc = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TMPDIR: tmpdir(), NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolveDone) =>
    proc.on("close", (code, signal) => resolveDone({ code, signal, stdout, stderr })),
  );
  return { done, kill: () => proc.kill("SIGKILL"), spawnedAt: performance.now() };
}

export interface Workspace {
  dir: string;
  ledgerDir: string;
  env: Record<string, string>;
}

/** A fresh folder for a batch of trials; the ledger folder is shared, one file per run. */
export function workspace(name: string): Workspace {
  const dir = join(tmpdir(), `retrace-crash-${name}-${process.pid}-${Date.now()}`);
  const ledgerDir = join(dir, "ledgers");
  mkdirSync(ledgerDir, { recursive: true });
  process.env.RETRACE_CRASH_LEDGER_DIR = ledgerDir;
  return { dir, ledgerDir, env: { RETRACE_CRASH_LEDGER_DIR: ledgerDir } };
}

const runArgs = (db: string, runId: string) => ["run", join(fixture, "agent.yaml"), "-m", "go", "--db", db, "--run-id", runId, "--json"];

function lastSeq(db: string, runId: string): number {
  if (!existsSync(db)) return 0;
  try {
    const store = new SqliteRunStore(db, { readonly: true });
    try {
      return store.lastSeq(runId);
    } finally {
      store.close();
    }
  } catch {
    // Not a store yet (the child is creating it).
    return 0;
  }
}

/** Every run of the family (the run and its sub-agent runs), as stored bytes. */
export function snapshot(db: string, runId: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  if (!existsSync(db)) return found;
  const store = new SqliteRunStore(db, { readonly: true });
  try {
    for (const member of store.family(runId)) found.set(member, store.readRaw(member));
  } finally {
    store.close();
  }
  return found;
}

export function ledger(ws: Workspace, runId: string): string[] {
  const file = join(ws.ledgerDir, `${runId}.ledger`);
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

interface Pending {
  callId: string;
  tool: string;
  roles: string[];
  runId?: string;
  unknownOutcome?: true;
}

/**
 * Finishes a run as a person would, in this process: resume it; approve what waits for
 * approval; decide unknown outcomes from the ledger. Returns the ms of the first resume.
 */
export async function settle(ws: Workspace, db: string, runId: string): Promise<{ firstResumeMs: number | undefined; decisions: string[] }> {
  const decisions: string[] = [];
  let firstResumeMs: number | undefined;
  for (let round = 0; round < 20; round++) {
    const state = snapshot(db, runId).get(runId) ?? [];
    const started = state.length > 0;
    const hasTurn = state.some((body) => (JSON.parse(body) as RunEvent).type === "message");
    const began = performance.now();
    const outcome = !started || !hasTurn ? await cli(runArgs(db, runId), ws.dir) : await cli(["resume", runId, "--db", db, "--json"], ws.dir);
    if (started && hasTurn) firstResumeMs ??= performance.now() - began;
    if (outcome.code === 0) return { firstResumeMs, decisions };
    if (outcome.code !== 3) throw new Error(`resume exited ${outcome.code}: ${outcome.stderr}`);
    const { pending } = JSON.parse(outcome.stdout) as { pending: Pending[] };
    for (const item of pending) {
      const holder = item.runId ?? runId;
      let args: string[];
      if (item.unknownOutcome) {
        const happened = ledger(ws, runId).some((line) => line.endsWith(` ${holder} ${item.callId}`));
        args = [happened ? "--skip" : "--rerun"];
        decisions.push(`${item.callId}:${happened ? "skip" : "rerun"}`);
      } else args = [];
      const decided = await cli(["approve", holder, item.callId, "--db", db, ...args], ws.dir);
      if (decided.code !== 0) throw new Error(`approve exited ${decided.code}: ${decided.stderr}`);
    }
  }
  throw new Error("the run did not finish after 20 rounds");
}

const MARKERS = new Set(["run.resumed", "tool.unknown_outcome", "tool.decided"]);

/**
 * A log as the comparison sees it: the shared resume equivalence (interrupted model attempts
 * and their `llm.interrupted` taken out, later attempts renumbered; ./equivalence.ts), then
 * without the rest of the resume markers (run.resumed, unknown outcomes,
 * decisions and the pauses they caused, the second start marker of a re-run call), without
 * what differs between any two runs (at, durations), without what a skipped call's unknown
 * result changes (the requests the model is sent afterwards, and the call's own result).
 */
export function normalize(bodies: readonly string[], skipped: ReadonlySet<string>): unknown[] {
  const seenStarts = new Set<string>();
  const out: unknown[] = [];
  let lastKept: RunEvent | undefined;
  for (const body of resumeEquivalent(bodies)) {
    const event = JSON.parse(body) as RunEvent & Record<string, unknown>;
    if (MARKERS.has(event.type)) continue;
    if (event.type === "run.paused" && event.pending.every((item) => item.unknownOutcome === true)) continue;
    // A resume that found nothing decided yet pauses again: the same pause, twice.
    if (event.type === "run.paused" && lastKept?.type === "run.paused" && JSON.stringify(lastKept.pending) === JSON.stringify(event.pending)) continue;
    lastKept = event;
    if (event.type === "tool.started") {
      if (seenStarts.has(event.callId)) continue;
      seenStarts.add(event.callId);
    }
    if ((event.type === "tool.finished" || event.type === "tool.failed") && skipped.has(event.callId)) continue;
    const { v: _v, seq: _seq, at: _at, durationMs: _d, request: _r, requestKey: _k, ...rest } = event;
    // A skipped call's result text differs, so the usage the scripted model counts from requests does too.
    if (skipped.size > 0) {
      if (rest.type === "llm.finished") rest.response = { ...rest.response, usage: undefined } as never;
      if (rest.type === "run.finished") rest.usage = undefined as never;
    }
    out.push(rest);
  }
  return out;
}

export interface Reference {
  logs: Map<string, string[]>;
  /** ms each child stage ran, uninterrupted. */
  spans: { run: number; resume: number };
}

/** Drives a run through the child stages without a kill. */
export async function drive(ws: Workspace, db: string, runId: string, kill?: { stage: "run" | "resume"; afterMs: number }): Promise<{ spans: { run: number; resume: number }; killed: boolean; before?: Map<string, string[]> }> {
  const spans = { run: 0, resume: 0 };
  // A stage's span starts when its child writes its first event (not at spawn: most of a
  // short child's life is start-up), so a kill lands while the run is really being driven.
  const stage = async (name: "run" | "resume", args: string[]) => {
    const baseline = lastSeq(db, runId);
    const proc = child(args, ws.env, ws.dir);
    let exited = false;
    let active: number | undefined;
    const watch = (async () => {
      while (!exited) {
        if (lastSeq(db, runId) > baseline) {
          active = performance.now();
          if (kill?.stage === name) {
            await new Promise((resolveWait) => setTimeout(resolveWait, kill.afterMs));
            if (!exited) proc.kill();
          }
          return;
        }
        await new Promise((resolveWait) => setTimeout(resolveWait, 2));
      }
    })();
    const result = await proc.done;
    exited = true;
    await watch;
    spans[name] = performance.now() - (active ?? proc.spawnedAt);
    return result;
  };
  const first = await stage("run", runArgs(db, runId));
  if (first.signal === "SIGKILL") return { spans, killed: true, before: snapshot(db, runId) };
  if (first.code !== 3) throw new Error(`run exited ${first.code}: ${first.stderr}`);
  const { pending } = JSON.parse(first.stdout) as { pending: Pending[] };
  for (const item of pending) {
    const decided = await cli(["approve", item.runId ?? runId, item.callId, "--db", db], ws.dir);
    if (decided.code !== 0) throw new Error(`approve exited ${decided.code}: ${decided.stderr}`);
  }
  const second = await stage("resume", ["resume", runId, "--db", db, "--json"]);
  if (second.signal === "SIGKILL") return { spans, killed: true, before: snapshot(db, runId) };
  if (second.code !== 0) throw new Error(`resume exited ${second.code}: ${second.stderr}`);
  return { spans, killed: false };
}

export async function reference(ws: Workspace): Promise<Reference> {
  const db = join(ws.dir, "reference.db");
  const { spans } = await drive(ws, db, "ref");
  return { logs: snapshot(db, "ref"), spans };
}

export interface TrialResult {
  runId: string;
  killed: boolean;
  /** The type of the last event written before the kill ("none": killed before the run began). */
  killedAfter: string;
  failures: string[];
  firstResumeMs: number | undefined;
  decisions: string[];
}

/** The run's family renamed to another root id, to compare it with the reference. */
function renamed(logs: Map<string, string[]>, from: string, to: string): Map<string, string[]> {
  const swap = (body: string) => body.split(`"${from}"`).join(`"${to}"`).split(`"${from}.`).join(`"${to}.`);
  return new Map([...logs].map(([id, bodies]) => [to + id.slice(from.length), bodies.map(swap)]));
}

export async function trial(ws: Workspace, ref: Reference, index: number, random: () => number): Promise<TrialResult> {
  const runId = `t${index}`;
  const db = join(ws.dir, `${runId}.db`);
  const stage = random() < 0.5 ? "run" : "resume";
  const afterMs = random() * ref.spans[stage] * 0.97;
  const failures: string[] = [];
  const driven = await drive(ws, db, runId, { stage, afterMs });
  const before = driven.before ?? new Map<string, string[]>();
  const lastBefore = [...before.values()].flat().map((body) => JSON.parse(body) as RunEvent).sort((a, b) => a.at.localeCompare(b.at)).at(-1);
  let settled: Awaited<ReturnType<typeof settle>> = { firstResumeMs: undefined, decisions: [] };
  try {
    if (driven.killed) settled = await settle(ws, db, runId);
  } catch (error) {
    failures.push(`did not finish: ${(error as Error).message}`);
  }
  const after = snapshot(db, runId);
  // Every event written before the kill is still there, byte for byte.
  for (const [id, bodies] of before) {
    const now = after.get(id) ?? [];
    if (!bodies.every((body, at) => now[at] === body)) failures.push(`prefix: run ${id} lost or changed events written before the kill`);
  }
  // seq without gaps, a chain that holds, every run of the family completed.
  const store = new SqliteRunStore(db, { readonly: true });
  try {
    for (const [id, bodies] of after) {
      if (!bodies.every((body, at) => (JSON.parse(body) as RunEvent).seq === at + 1)) failures.push(`seq: run ${id} has a gap`);
      const chain = store.verify(id);
      if (!chain.ok) failures.push(`chain: run ${id} seq ${chain.seq}: ${chain.problem}`);
      const last = bodies.at(-1);
      const status = last ? (JSON.parse(last) as RunEvent) : undefined;
      if (status?.type !== "run.finished" || status.status !== "completed") failures.push(`state: run ${id} ended ${status?.type === "run.finished" ? status.status : (status?.type ?? "empty")}`);
    }
  } finally {
    store.close();
  }
  // No non-idempotent effect twice; every recorded non-idempotent call had its effect once.
  const lines = ledger(ws, runId);
  const counts = new Map<string, number>();
  for (const line of lines) {
    const [kind, run, call] = line.split(" ");
    if (NON_IDEMPOTENT.has(kind ?? "")) counts.set(`${run} ${call}`, (counts.get(`${run} ${call}`) ?? 0) + 1);
  }
  for (const [call, count] of counts) if (count > 1) failures.push(`double effect: ${call} ran ${count} times`);
  for (const [id, bodies] of after) {
    for (const body of bodies) {
      const event = JSON.parse(body) as RunEvent;
      if (event.type === "tool.finished" && NON_IDEMPOTENT.has(event.name) && counts.get(`${id} ${event.callId}`) !== 1) failures.push(`lost effect: ${id} ${event.callId}`);
    }
  }
  // An interrupted model call is closed and asked again as the next attempt, never under its old marker.
  for (const [id, bodies] of after) {
    const events = bodies.map((body) => JSON.parse(body) as RunEvent);
    events.forEach((event, at) => {
      if (event.type !== "llm.interrupted") return;
      const closed = events.slice(0, at).findLast((earlier) => earlier.type === "llm.started");
      const next = events.slice(at + 1).find((later) => later.type === "llm.started");
      if (closed?.type !== "llm.started" || closed.attempt !== event.attempt) failures.push(`interrupted: run ${id} seq ${event.seq} closes no started attempt`);
      if (next?.type !== "llm.started" || next.step !== event.step || next.attempt !== event.attempt + 1) failures.push(`interrupted: run ${id} seq ${event.seq} is not asked again as attempt ${event.attempt + 1}`);
    });
    const pending = events.at(-1);
    if (pending?.type === "llm.started") failures.push(`interrupted: run ${id} ends on an open model call`);
  }
  // The final log equals the uninterrupted run's log, apart from the resume markers.
  const skipped = new Set(settled.decisions.filter((decision) => decision.endsWith(":skip")).map((decision) => decision.split(":")[0] as string));
  const expected = renamed(ref.logs, "ref", runId);
  if ([...expected.keys()].sort().join() !== [...after.keys()].sort().join()) failures.push(`runs: expected ${[...expected.keys()].join(", ")}, got ${[...after.keys()].join(", ")}`);
  for (const [id, bodies] of expected) {
    const got = normalize(after.get(id) ?? [], skipped);
    const want = normalize(bodies, skipped);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      const at = want.findIndex((event, n) => JSON.stringify(event) !== JSON.stringify(got[n]));
      failures.push(`log: run ${id} differs from the uninterrupted run at event ${at}: want ${JSON.stringify(want[at])}, got ${JSON.stringify(got[at])}`);
    }
  }
  return { runId, killed: driven.killed, killedAfter: lastBefore?.type ?? "none", failures, firstResumeMs: settled.firstResumeMs, decisions: settled.decisions };
}

/** Runs `count` trials, `concurrency` at a time. */
export async function trials(ws: Workspace, ref: Reference, count: number, concurrency: number, random: () => number): Promise<TrialResult[]> {
  const results: TrialResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await trial(ws, ref, index, random);
      }
    }),
  );
  return results;
}

/** Two `retrace resume` processes at once on a run with slow work left: exactly one may proceed. */
export async function race(ws: Workspace, index: number): Promise<{ proceeded: number; busy: number; nothingLeft: number; failures: string[] }> {
  const runId = `race${index}`;
  const db = join(ws.dir, `${runId}.db`);
  const failures: string[] = [];
  const slow = { ...ws.env, RETRACE_CRASH_PAUSE_SCALE: "6" };
  const first = await child(runArgs(db, runId), ws.env, ws.dir).done;
  if (first.code !== 3) throw new Error(`run exited ${first.code}: ${first.stderr}`);
  const decided = await cli(["approve", runId, "c4", "--db", db], ws.dir);
  if (decided.code !== 0) throw new Error(`approve exited ${decided.code}: ${decided.stderr}`);
  const both = await Promise.all([0, 1].map(() => child(["resume", runId, "--db", db, "--json"], slow, ws.dir).done));
  let proceeded = 0;
  let busy = 0;
  let nothingLeft = 0;
  for (const result of both) {
    if (result.code === 4 && /is being executed by process \d+ on .+ since \d{4}-/.test(result.stderr)) busy++;
    else if (result.code === 0 && result.stderr.includes("nothing was left to do")) nothingLeft++;
    else if (result.code === 0) proceeded++;
    else failures.push(`resumer exited ${result.code}: ${result.stderr.trim()}`);
  }
  if (proceeded !== 1) failures.push(`${proceeded} resumers proceeded`);
  const counts = new Map<string, number>();
  for (const line of ledger(ws, runId)) {
    const [kind, run, call] = line.split(" ");
    if (NON_IDEMPOTENT.has(kind ?? "")) counts.set(`${run} ${call}`, (counts.get(`${run} ${call}`) ?? 0) + 1);
  }
  for (const [call, count] of counts) if (count > 1) failures.push(`double effect: ${call} ran ${count} times`);
  return { proceeded, busy, nothingLeft, failures };
}
