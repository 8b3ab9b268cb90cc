/**
 * Runs eval cases: each in its own memory store under --mock (a deterministic clock and run id,
 * no network, no writes outside a temp dir), concurrently in this process — the work is almost
 * all waiting on promises, so worker threads would add start-up cost and buy nothing.
 */
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { availableParallelism } from "node:os";
import { dirname, isAbsolute, relative } from "node:path";
import { AgentRun, type AgentDefinition } from "../agent/index.js";
import { createRunContext, manualClock, type RunContext } from "../context/index.js";
import { describePlace, errorMessage, RetraceError } from "../errors/index.js";
import { MemoryRunStore, type RunStore } from "../journal/index.js";
import { EvalContext, evaluateAssertions, type AssertionResult } from "./context.js";
import type { EvalCase } from "./define.js";
import { NetworkGuard, type NetworkSink } from "./network-guard.js";
import type { AttemptResult, CaseResult, RunDigest } from "./report/schema.js";
import type { RunView } from "./run-view.js";
import type { CaseInfo, JudgeAnswer, JudgeRequest, JudgeService } from "./scorer.js";
import { SuiteSetup, type EvalMode, type PreparedAgent } from "./setup.js";
import { originalPosition } from "./typescript.js";

/** A case picked to run, with the id reports know it by. */
export interface PlannedCase {
  /** `<file> > <name>`. */
  id: string;
  /** The eval file as reports show it (relative to the working directory). */
  file: string;
  case: EvalCase;
}

export interface RunCasesOptions {
  mode: EvalMode;
  /** Cases in flight at once. Default: see defaultConcurrency. */
  concurrency?: number;
  /** For cases that set no timeout. Default 30 s. */
  timeoutMs?: number;
  /** Runs of each case. Default 1. */
  repeat?: number;
  /** Stop starting cases after this many failed. 0 (default): never. */
  bail?: number;
  /** For cases that set no threshold. Default 0. */
  threshold?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** Where --live runs are kept (e.g. the SQLite store); --mock always uses a memory store per case. */
  store?: RunStore;
  /** The run context for --live runs (wall clock, random ids). Default: the system's. */
  liveContext?: () => RunContext;
  onCaseDone?: (result: CaseResult, done: number, total: number) => void;
  /** Under --mock: a guard already installed by the caller (the suite, which also guards loading). */
  guard?: NetworkGuard;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Cases in flight when --concurrency is not given. Under --live they wait on the network, and
 * the number of cores is the usual bound. Under --mock they are CPU work in this one thread, so
 * the setting only decides how they interleave — and interleaving at least 16 measured ~10%
 * faster than 2 on a 1,000-case suite (the same steps of many cases run back to back).
 */
export function defaultConcurrency(mode: EvalMode): number {
  return mode === "mock" ? Math.max(16, availableParallelism()) : availableParallelism();
}
const EVAL_EPOCH = Date.UTC(2026, 0, 1);
const OUTPUT_LIMIT = 2_000;

interface Task {
  planned: PlannedCase;
  index: number;
  attempt: number;
}

export async function runCases(cases: readonly PlannedCase[], options: RunCasesOptions): Promise<CaseResult[]> {
  const setup = new SuiteSetup(options.mode, options.env ?? process.env);
  const repeat = Math.max(1, options.repeat ?? 1);
  const threshold = options.threshold ?? 0;
  const attempts: AttemptResult[][] = cases.map(() => []);
  const results: (CaseResult | undefined)[] = [];
  const ownGuard = options.mode === "mock" && !options.guard ? new NetworkGuard() : undefined;
  const guard = options.mode === "mock" ? (options.guard ?? ownGuard) : undefined;
  const deadlines = new Deadlines();
  ownGuard?.install();
  const total = cases.length * repeat;
  let nextTask = 0;
  let failures = 0;
  let done = 0;
  let stopped = false;
  const take = (): Task | undefined => {
    if (stopped || nextTask >= total) return undefined;
    const index = Math.floor(nextTask / repeat);
    const attempt = (nextTask % repeat) + 1;
    nextTask++;
    return { planned: cases[index] as PlannedCase, index, attempt };
  };
  const finishCase = (index: number): void => {
    const planned = cases[index] as PlannedCase;
    const result = summariseCase(planned, attempts[index] as AttemptResult[], threshold);
    results[index] = result;
    if (result.status === "failed" || result.status === "error") failures++;
    if (options.bail && failures >= options.bail) stopped = true;
    options.onCaseDone?.(result, ++done, cases.length);
  };
  const worker = async (): Promise<void> => {
    for (let task = take(); task; task = take()) {
      const attempt = await runAttempt(task, setup, options, guard, deadlines);
      const list = attempts[task.index] as AttemptResult[];
      list.push(attempt);
      if (list.length === repeat) finishCase(task.index);
    }
  };
  try {
    const concurrency = Math.max(1, options.concurrency ?? defaultConcurrency(options.mode));
    await Promise.all(Array.from({ length: Math.min(concurrency, total || 1) }, worker));
  } finally {
    ownGuard?.uninstall();
  }
  return cases.map((planned, index) => {
    const result = results[index];
    if (result) return result;
    const ran = attempts[index] as AttemptResult[];
    // Bailed out: a case with some attempts keeps them; one that never started is skipped.
    if (ran.length > 0) return summariseCase(planned, ran, threshold);
    return {
      id: planned.id,
      file: planned.file,
      name: planned.case.name,
      tags: [...(planned.case.tags ?? [])],
      status: "skipped",
      score: null,
      threshold: planned.case.threshold ?? threshold,
      passRate: null,
      flaky: false,
      attempts: [],
    };
  });
}

function summariseCase(planned: PlannedCase, attempts: AttemptResult[], defaultThreshold: number): CaseResult {
  const sorted = [...attempts].sort((a, b) => a.attempt - b.attempt);
  const passedCount = sorted.filter((attempt) => attempt.status === "passed").length;
  const scores = sorted.map((attempt) => attempt.score).filter((score): score is number => score !== null);
  const status = sorted.some((attempt) => attempt.status === "error") ? "error" : passedCount === sorted.length ? "passed" : "failed";
  return {
    id: planned.id,
    file: planned.file,
    name: planned.case.name,
    tags: [...(planned.case.tags ?? [])],
    status,
    score: scores.length ? mean(scores) : null,
    threshold: planned.case.threshold ?? defaultThreshold,
    passRate: sorted.length ? passedCount / sorted.length : null,
    flaky: passedCount > 0 && passedCount < sorted.length,
    attempts: sorted,
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

async function runAttempt(
  task: Task,
  setup: SuiteSetup,
  options: RunCasesOptions,
  guard: NetworkGuard | undefined,
  deadlines: Deadlines,
): Promise<AttemptResult> {
  const spec = task.planned.case;
  const started = performance.now();
  const threshold = spec.threshold ?? options.threshold ?? 0;
  const runId =
    options.mode === "mock" ? `eval_${caseHash(task.planned.id)}${task.attempt > 1 ? `_${task.attempt}` : ""}` : undefined;
  let prepared: PreparedAgent;
  try {
    prepared = await setup.prepare(spec);
  } catch (error) {
    return {
      attempt: task.attempt,
      runId: null,
      status: "error",
      score: null,
      durationMs: performance.now() - started,
      assertions: [],
      errors: [describeSetupError(error)],
      notes: [],
      run: null,
      judgeRuns: [],
    };
  }
  const store = options.mode === "mock" ? new MemoryRunStore() : (options.store ?? new MemoryRunStore());
  const context =
    options.mode === "mock"
      ? createRunContext({ clock: manualClock(EVAL_EPOCH, 1), seed: prepared.config.config.llm.seed ?? 0 })
      : (options.liveContext?.() ?? createRunContext({ seed: prepared.config.config.llm.seed ?? 0 }));
  const errors: string[] = [];
  const notes: string[] = [];
  const judgeRuns: string[] = [];
  const controller = new AbortController();
  const sink: NetworkSink = { attempts: [] };
  const caseInfo: CaseInfo = { name: spec.name, file: task.planned.file, tags: spec.tags ?? [] };
  try {
    const run = AgentRun.start(prepared.agent, { store, context, ...(runId ? { runId } : {}) });
    const judge = judgeService(run, prepared.agent, spec, setup, store, context, controller.signal, judgeRuns);
    const t = new EvalContext({
      run,
      store,
      signal: controller.signal,
      caseInfo,
      judge,
      workspace: prepared.tempDir ? `${prepared.tempDir}/workspace` : undefined,
      fail: (message) => errors.push(message),
    });
    const timeoutMs = spec.timeout ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const body = async (): Promise<void> => {
      const inputs = spec.input === undefined ? [] : typeof spec.input === "string" ? [spec.input] : spec.input;
      for (const input of inputs) await t.send(input);
      await spec.test(t);
    };
    const outcome = await withTimeout(guard ? guard.run(sink, body) : body(), timeoutMs, controller, deadlines);
    if (outcome.kind === "timeout") errors.push(`timed out after ${timeoutMs} ms (set "timeout" on the case or --timeout)`);
    else if (outcome.kind === "threw") errors.push(`the test body threw: ${describeThrow(outcome.error, spec.file)}`);
    let assertions: AssertionResult[] = [];
    // The view is taken after the body, so every assertion sees every turn.
    assertions = guard ? await guard.run(sink, () => evaluateAssertions(t)) : await evaluateAssertions(t);
    for (const target of sink.attempts) errors.push(`network request under --mock: ${target}; mock runs never touch the network (mock the tool, or run with --live)`);
    const exhausted = run.log.events.find((event) => event.type === "llm.failed" && event.error.code === "script_exhausted");
    if (exhausted?.type === "llm.failed") errors.push(`the mock script ran out: ${exhausted.error.message}`);
    if (assertions.length === 0 && outcome.kind === "done") errors.push("the case recorded no assertions (call t.completed(), t.calledTool(...), ... in its test)");
    if (prepared.script && prepared.script.unusedResponses > 0 && !exhausted) {
      notes.push(`the mock script has ${prepared.script.unusedResponses} unused response(s): the agent stopped before the script expected`);
    }
    const values = assertions.filter((assertion) => assertion.value !== null).map((assertion) => assertion.value as number);
    const score = values.length ? mean(values) : null;
    const gateFailed = assertions.some((assertion) => assertion.severity === "gate" && assertion.status === "failed");
    if (score !== null && score < threshold) errors.push(`score ${score.toFixed(2)} is below the threshold ${threshold}`);
    return {
      attempt: task.attempt,
      runId: run.runId,
      status: gateFailed || errors.length > 0 ? "failed" : "passed",
      score,
      durationMs: performance.now() - started,
      assertions,
      errors,
      notes,
      run: digest(t.run),
      judgeRuns,
    };
  } catch (error) {
    return {
      attempt: task.attempt,
      runId: runId ?? null,
      status: error instanceof RetraceError && error.code === "config_invalid" ? "error" : "failed",
      score: null,
      durationMs: performance.now() - started,
      assertions: [],
      errors: [...errors, `the case could not run: ${errorMessage(error)}`],
      notes,
      run: null,
      judgeRuns,
    };
  } finally {
    // Aborting costs a DOMException; the controller is aborted only by a timeout, which already did.
    if (prepared.tempDir) rmSync(prepared.tempDir, { recursive: true, force: true });
  }
}

type BodyOutcome = { kind: "done" } | { kind: "threw"; error: unknown } | { kind: "timeout" };

/**
 * Case timeouts on one timer, set for the earliest deadline: a thousand cases with the same
 * timeout cost one timer, not a thousand timer insertions and removals.
 */
class Deadlines {
  readonly #entries = new Set<{ at: number; fire: () => void }>();
  #timer: NodeJS.Timeout | undefined;
  #scheduledAt = Infinity;

  add(ms: number, fire: () => void): () => void {
    const entry = { at: performance.now() + ms, fire };
    this.#entries.add(entry);
    if (entry.at < this.#scheduledAt) this.#schedule(entry.at);
    return () => {
      this.#entries.delete(entry);
      if (this.#entries.size === 0) this.#clear();
    };
  }

  #schedule(at: number): void {
    this.#clear();
    this.#scheduledAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - performance.now()));
    this.#timer.unref();
  }

  #clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#scheduledAt = Infinity;
  }

  #expire(): void {
    this.#timer = undefined;
    this.#scheduledAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const entry of this.#entries) {
      if (entry.at <= now) {
        this.#entries.delete(entry);
        entry.fire();
      } else next = Math.min(next, entry.at);
    }
    if (next < Infinity) this.#schedule(next);
  }
}

function withTimeout(body: Promise<void>, timeoutMs: number, controller: AbortController, deadlines: Deadlines): Promise<BodyOutcome> {
  let cancel: () => void = () => {};
  const timeout = new Promise<BodyOutcome>((resolve) => {
    cancel = deadlines.add(timeoutMs, () => {
      controller.abort();
      resolve({ kind: "timeout" });
    });
  });
  const settled = body.then(
    (): BodyOutcome => ({ kind: "done" }),
    (error: unknown): BodyOutcome => ({ kind: "threw", error }),
  );
  return Promise.race([settled, timeout]).finally(cancel);
}

function judgeService(
  run: AgentRun,
  agent: AgentDefinition,
  spec: EvalCase,
  setup: SuiteSetup,
  store: RunStore,
  context: RunContext,
  signal: AbortSignal,
  judgeRuns: string[],
): JudgeService {
  let count = 0;
  return {
    async ask(request: JudgeRequest): Promise<JudgeAnswer> {
      const model = await setup.judgeModel(request, spec, agent.model);
      count++;
      // The judge is a run of its own, linked to the case's run: recorded, replayable, and out
      // of the case's log (whose fold would otherwise count the judge's steps as the agent's).
      const judgeRun = AgentRun.start(
        {
          name: `judge:${request.label}`,
          system: request.system,
          maxSteps: 1,
          model,
          tools: [],
          ...(agent.maxRetries !== undefined ? { maxRetries: agent.maxRetries } : {}),
          ...(agent.cost ? { cost: agent.cost } : {}),
        },
        { store, context, runId: `${run.runId}.judge${count}`, parent: { runId: run.runId, callId: `judge_${count}` } },
      );
      judgeRuns.push(judgeRun.runId);
      const outcome = await judgeRun.send(request.prompt, { signal });
      return {
        runId: judgeRun.runId,
        status: outcome.status === "completed" ? "completed" : "failed",
        text: outcome.output,
        error: outcome.error,
      };
    },
  };
}

/**
 * A stable 12-hex-digit id for a case: two 32-bit FNV-1a hashes with different seeds. Not a
 * security hash — it only has to tell a suite's cases apart and be the same on every run.
 */
export function caseHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 13);
  }
  return ((a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0")).slice(0, 12);
}

function digest(view: RunView): RunDigest {
  return {
    status: view.status,
    turns: view.turns.length,
    steps: view.steps,
    toolCalls: view.toolCalls.length,
    usage: view.usage,
    cost: view.cost,
    output: view.output.length > OUTPUT_LIMIT ? `${view.output.slice(0, OUTPUT_LIMIT - 1)}…` : view.output,
    ...(view.error ? { error: view.error } : {}),
  };
}

function describeSetupError(error: unknown): string {
  if (error instanceof RetraceError && error.place.file && isAbsolute(error.place.file)) {
    const shown = relative(process.cwd(), error.place.file);
    if (!shown.startsWith("..")) return describePlace({ ...error.place, file: shown }) + `: ${error.message}`;
  }
  return errorMessage(error);
}

/** The error's message and, when the stack shows it, the line of the eval file it came from. */
function describeThrow(error: unknown, file: string | undefined): string {
  const message = errorMessage(error);
  if (!file || !(error instanceof Error) || !error.stack) return message;
  for (const frame of error.stack.split("\n").slice(1)) {
    const found = /\(?((?:file:\/\/)?[^()\s]+):(\d+):(\d+)\)?\s*$/.exec(frame);
    if (!found) continue;
    const [, where, line, column] = found as unknown as [string, string, string, string];
    const path = where.startsWith("file:") ? fileURLToPath(where) : where;
    // A TypeScript eval file runs compiled: map the frame back to the file's own line.
    const original = originalPosition(path, Number(line), Number(column)) ?? { file: path, line: Number(line), column: Number(column) };
    if (original.file === file) return `${message} (at ${relative(dirname(file), file)}:${original.line}:${original.column})`;
  }
  return message;
}
