/**
 * Runs eval cases: each in its own memory store under --mock (a deterministic clock and run id,
 * no network, Retrace's own file tools confined to a temp copy of the workspace), concurrently
 * in this process — the work is almost all waiting on promises, so worker threads would add
 * start-up cost and buy nothing.
 */
import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, isAbsolute, relative } from "node:path";
import { AgentRun, childRunId, type AgentDefinition } from "../agent/index.js";
import { createRunContext, manualClock, type RunContext } from "../context/index.js";
import { describePlace, errorMessage, EvalDefinitionError, RetraceError } from "../errors/index.js";
import type { LanguageModel, RunEvent, RunView, CaseInfo, JudgeAnswer, JudgeRequest, JudgeService } from "../contracts/index.js";
import { MemoryRunStore } from "../store/index.js";
import { type RunStore } from "../contracts/index.js";
import { closeContext, EvalContext, evaluateAssertions, sendsInFlight, unsettledAssertions, type AssertionResult } from "./context.js";
import type { EvalCase } from "./define.js";
import { NetworkGuard } from "./network-guard.js";
import { caseScope, runInScope, suiteScope, watchUncaught, type CaseScope, type SuiteScope } from "./scope.js";
import type { AttemptResult, CaseResult, RunDigest } from "./report/schema.js";
import { SuiteSetup, type EvalMode, type PreparedAgent } from "./setup.js";
import { framePosition } from "./typescript.js";

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
  /**
   * The suite's scope, where what happens outside every case is recorded (network attempts,
   * uncaught errors). Default: the guard's, or a new one.
   */
  scope?: SuiteScope;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Cases in flight when --concurrency is not given. Under --live they wait on the network, and
 * the number of cores is the usual bound. Under --mock they are CPU work in this one thread, so
 * the setting only decides how they interleave — and interleaving at least 16 measured ~10%
 * faster than 2 on a 1,000-case suite (the same steps of many cases run back to back).
 */
function defaultConcurrency(mode: EvalMode): number {
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
  const scope = options.scope ?? options.guard?.scope ?? suiteScope(options.mode === "mock");
  const ownGuard = options.mode === "mock" && !options.guard ? new NetworkGuard(scope) : undefined;
  const deadlines = new Deadlines();
  ownGuard?.install();
  // An error a case's code throws (or a promise it rejects) and never handles fails that case,
  // instead of ending the process with a code the report does not show.
  const unwatch = watchUncaught(scope);
  const total = cases.length * repeat;
  let nextTask = 0;
  let done = 0;
  let stopped = false;
  const failedCases = new Set<number>();
  const take = (): Task | undefined => {
    if (stopped || nextTask >= total) return undefined;
    const index = Math.floor(nextTask / repeat);
    const attempt = (nextTask % repeat) + 1;
    nextTask++;
    return { planned: cases[index] as PlannedCase, index, attempt };
  };
  const noteFailure = (index: number): void => {
    if (failedCases.has(index)) return;
    failedCases.add(index);
    if (options.bail && failedCases.size >= options.bail) stopped = true;
  };
  const finishCase = (index: number): void => {
    const planned = cases[index] as PlannedCase;
    const result = summariseCase(planned, attempts[index] as AttemptResult[], threshold);
    results[index] = result;
    options.onCaseDone?.(result, ++done, cases.length);
  };
  // A finished attempt's verdict is made final a turn of the event loop later, in a batch: Node
  // reports an unhandled rejection only once the microtask queue drains (and a --mock suite
  // can run start to end without draining it), so a rejection a case's code left unhandled
  // still fails that case. One timer per batch, not per case.
  const finishing: { task: Task; attempt: AttemptResult; scope: CaseScope | undefined }[] = [];
  let flushing: NodeJS.Immediate | undefined;
  const flush = (): void => {
    flushing = undefined;
    for (const { task, attempt, scope } of finishing.splice(0)) {
      const final = finalise(attempt, scope);
      if (final.status !== "passed") noteFailure(task.index);
      const list = attempts[task.index] as AttemptResult[];
      list.push(final);
      if (list.length === repeat) finishCase(task.index);
    }
  };
  const worker = async (): Promise<void> => {
    for (let task = take(); task; task = take()) {
      const finished = await runAttempt(task, setup, options, scope, deadlines);
      // --bail reacts at once; a late error can only add a failure.
      if (finished.attempt.status !== "passed") noteFailure(task.index);
      finishing.push({ task, ...finished });
      flushing ??= setImmediate(flush);
    }
  };
  try {
    const concurrency = Math.max(1, options.concurrency ?? defaultConcurrency(options.mode));
    await runInScope(scope, () => Promise.all(Array.from({ length: Math.min(concurrency, total || 1) }, worker)));
    // Timers already due (a case's setTimeout(..., 0), an eval file's top-level one) run before
    // the verdict, so what they throw or try is in the report rather than after it.
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    if (flushing) clearImmediate(flushing);
    flush();
  } finally {
    unwatch();
    ownGuard?.uninstall();
  }
  return cases.map((planned, index) => {
    const result = results[index];
    if (result) return result;
    const ran = attempts[index] as AttemptResult[];
    // Bailed out: a case with some attempts keeps them; one that never started is skipped.
    if (ran.length > 0) {
      const partial = summariseCase(planned, ran, threshold);
      if (partial.status !== "passed") return partial;
      // Fewer runs than --repeat asked for, all passed: not a pass, since not every run was made.
      const last = partial.attempts[partial.attempts.length - 1] as AttemptResult;
      const note = `stopped by --bail after ${ran.length} of ${repeat} runs; the case is reported skipped, not passed`;
      return { ...partial, status: "skipped", attempts: [...partial.attempts.slice(0, -1), { ...last, notes: [...last.notes, note] }] };
    }
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

/** The attempt with what its scope caught (network attempts, unhandled errors): its final verdict. Ends the scope. */
function finalise(attempt: AttemptResult, scope: CaseScope | undefined): AttemptResult {
  if (!scope) return attempt;
  scope.ended = true;
  if (scope.attempts.length === 0 && scope.errors.length === 0) return attempt;
  return {
    ...attempt,
    status: attempt.status === "error" ? "error" : "failed",
    errors: [
      ...attempt.errors,
      ...scope.attempts.map((target) => `network request under --mock: ${target}; mock runs never touch the network (mock the tool, or run with --live)`),
      ...scope.errors.map((error) => `the case's code left an error unhandled: ${error}`),
    ],
  };
}

/** One attempt of a case; its verdict is final once `finalise` has read the scope. */
async function runAttempt(
  task: Task,
  setup: SuiteSetup,
  options: RunCasesOptions,
  suite: SuiteScope,
  deadlines: Deadlines,
): Promise<{ attempt: AttemptResult; scope: CaseScope | undefined }> {
  const spec = task.planned.case;
  const started = performance.now();
  const threshold = spec.threshold ?? options.threshold ?? 0;
  const runId =
    options.mode === "mock" ? `eval_${caseHash(task.planned.id)}${task.attempt > 1 ? `_${task.attempt}` : ""}` : undefined;
  const errors: string[] = [];
  let prepared: PreparedAgent;
  try {
    prepared = await setup.prepare(spec, { fail: (message) => errors.push(message) });
  } catch (error) {
    return {
      scope: undefined,
      attempt: {
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
      },
    };
  }
  const store = options.mode === "mock" ? new MemoryRunStore() : (options.store ?? new MemoryRunStore());
  const context =
    options.mode === "mock"
      ? createRunContext({ clock: manualClock(EVAL_EPOCH, 1), seed: prepared.config.config.llm.seed ?? 0 })
      : (options.liveContext?.() ?? createRunContext({ seed: prepared.config.config.llm.seed ?? 0 }));
  const notes: string[] = [];
  const judgeRuns: string[] = [];
  const controller = new AbortController();
  const scope = caseScope(suite, task.attempt > 1 ? `${task.planned.id} (run ${task.attempt})` : task.planned.id);
  const caseInfo: CaseInfo = { name: spec.name, file: task.planned.file, tags: spec.tags ?? [] };
  const timeoutMs = spec.timeout ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // One deadline for the whole case: its turns, its body and the scoring of its assertions.
  const deadline = new Deadline(deadlines, timeoutMs, controller);
  let t: EvalContext | undefined;
  try {
    const run = AgentRun.start(prepared.agent, { store, context, ...(runId ? { runId } : {}) });
    const judge = judgeService(run, prepared.agent, spec, setup, store, context, controller.signal, judgeRuns, (message) => errors.push(message));
    const body = new EvalContext({
      run,
      store,
      signal: controller.signal,
      caseInfo,
      judge,
      workspace: prepared.workspace,
      fail: (message) => errors.push(message),
    });
    t = body;
    const timedOut = `timed out after ${timeoutMs} ms (set "timeout" on the case or --timeout)`;
    const outcome = await deadline.race(
      runInScope(scope, async () => {
        const inputs = spec.input === undefined ? [] : typeof spec.input === "string" ? [spec.input] : spec.input;
        for (const input of inputs) await body.send(input);
        await spec.test(body);
      }).then(
        (): BodyOutcome => ({ kind: "done" }),
        (error: unknown): BodyOutcome => ({ kind: "threw", error }),
      ),
    );
    if (outcome === TIMEOUT) errors.push(timedOut);
    else if (outcome.kind === "threw") errors.push(`the test body threw: ${describeThrow(outcome.error, spec.file)}`);
    if (outcome !== TIMEOUT) {
      const turns = sendsInFlight(body);
      if (turns.length > 0) {
        // Scoring now would read a run mid-turn. Let the turns finish (within the deadline), then fail.
        errors.push(`t.send was not awaited: the body returned while ${turns.length === 1 ? "a turn was" : `${turns.length} turns were`} still running; await every t.send(...)`);
        if ((await deadline.race(Promise.all(turns))) === TIMEOUT) errors.push(timedOut);
      }
    }
    // The view is taken after the body, so every assertion sees every turn.
    const assertions: AssertionResult[] = [];
    const evaluation = runInScope(scope, () => evaluateAssertions(body, assertions));
    // After the deadline, assertions still get the scoring that settles at once; none may hang the run.
    const scored = deadline.expired ? await settledNow(evaluation) : await deadline.race(evaluation);
    if (scored === TIMEOUT || scored === UNSETTLED) {
      if (!errors.includes(timedOut)) errors.push(timedOut);
      assertions.push(...unsettledAssertions(body, assertions.length, "did not settle before the case's deadline"));
    }
    closeContext(body);
    const exhausted = scriptExhausted(run.log.events);
    if (exhausted) errors.push(`the mock script ran out: ${exhausted}`);
    // Sub-agents and judges are runs of their own: a script of theirs that runs out fails the case too.
    for (const [id, events, kind] of relatedRuns(store, run.runId, run.log.events, judgeRuns)) {
      const ranOut = scriptExhausted(events);
      if (ranOut) errors.push(`the mock script of ${kind} run ${id} ran out: ${ranOut}`);
    }
    if (assertions.length === 0 && outcome !== TIMEOUT && outcome.kind === "done") {
      errors.push("the case recorded no assertions (call t.completed(), t.calledTool(...), ... in its test)");
    }
    if (prepared.script && prepared.script.unusedResponses > 0 && !exhausted) {
      notes.push(`the mock script has ${prepared.script.unusedResponses} unused response(s): the agent stopped before the script expected`);
    }
    const values = assertions.filter((assertion) => assertion.value !== null).map((assertion) => assertion.value as number);
    const score = values.length ? mean(values) : null;
    const gateFailed = assertions.some((assertion) => assertion.severity === "gate" && assertion.status === "failed");
    if (score === null && assertions.length > 0) errors.push("every assertion was skipped; nothing was checked");
    if (score !== null && score < threshold) errors.push(`score ${score.toFixed(2)} is below the threshold ${threshold}`);
    return {
      scope,
      attempt: {
        attempt: task.attempt,
        runId: run.runId,
        status: gateFailed || errors.length > 0 ? "failed" : "passed",
        score,
        durationMs: performance.now() - started,
        assertions,
        errors,
        notes,
        run: digest(body.run),
        judgeRuns,
      },
    };
  } catch (error) {
    return {
      scope,
      attempt: {
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
      },
    };
  } finally {
    deadline.cancel();
    if (t) closeContext(t);
    // Aborting costs a DOMException; the controller is aborted only by a timeout, which already did.
    if (prepared.tempDir) rmSync(prepared.tempDir, { recursive: true, force: true });
  }
}

type BodyOutcome = { kind: "done" } | { kind: "threw"; error: unknown };
const TIMEOUT = Symbol("timeout");
const UNSETTLED = Symbol("unsettled");

/** The error message of a run's script_exhausted failure, if it has one. */
function scriptExhausted(events: readonly RunEvent[]): string | undefined {
  for (const event of events) {
    if (event.type === "llm.failed" && event.error.code === "script_exhausted") return event.error.message;
  }
  return undefined;
}

/**
 * The case's other runs: its judges, and the sub-agent runs of its run (and of theirs), found
 * from the calls in each log — the ids are derived from the calls, so no store scan is needed.
 */
function* relatedRuns(store: RunStore, rootId: string, rootEvents: readonly RunEvent[], judgeRuns: readonly string[]): Generator<[string, readonly RunEvent[], string]> {
  const queue: [string, readonly RunEvent[], string][] = [[rootId, rootEvents, "root"]];
  for (const id of judgeRuns) queue.push([id, store.read(id), "the judge"]);
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [id, events, kind] = next;
    if (kind !== "root") yield next;
    for (const event of events) {
      if (event.type !== "tool.requested") continue;
      const child = childRunId(id, event.callId);
      if (store.lastSeq(child) > 0) queue.push([child, store.read(child), "the sub-agent"]);
    }
  }
}

/** `promise`'s value if it settles in this turn of the event loop, else UNSETTLED. */
function settledNow<T>(promise: Promise<T>): Promise<T | typeof UNSETTLED> {
  return Promise.race([promise, new Promise<typeof UNSETTLED>((resolve) => setImmediate(() => resolve(UNSETTLED)))]);
}

/** A case's deadline: aborts the case's run when it passes, and races anything against it. */
class Deadline {
  expired = false;
  readonly #timeout: Promise<typeof TIMEOUT>;
  readonly cancel: () => void;

  constructor(deadlines: Deadlines, ms: number, controller: AbortController) {
    let expire!: () => void;
    this.#timeout = new Promise((resolve) => (expire = () => resolve(TIMEOUT)));
    this.cancel = deadlines.add(ms, () => {
      this.expired = true;
      controller.abort();
      expire();
    });
  }

  race<T>(promise: Promise<T>): Promise<T | typeof TIMEOUT> {
    return Promise.race([promise, this.#timeout]);
  }
}

/**
 * Case timeouts on one timer, set for the earliest deadline: a thousand cases with the same
 * timeout cost one timer, not a thousand timer insertions and removals. The timer keeps the
 * process alive while any case has a deadline, so a case that hangs on a promise that never
 * settles times out instead of letting the process exit with nothing left to run.
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
    // setTimeout takes at most 2^31 - 1 ms; a later deadline is re-armed when that fires.
    this.#timer = setTimeout(() => this.#expire(), Math.min(MAX_TIMER_MS, Math.max(0, at - performance.now())));
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

const MAX_TIMER_MS = 2 ** 31 - 1;

function judgeService(
  run: AgentRun,
  agent: AgentDefinition,
  spec: EvalCase,
  setup: SuiteSetup,
  store: RunStore,
  context: RunContext,
  signal: AbortSignal,
  judgeRuns: string[],
  fail: (message: string) => void,
): JudgeService {
  let count = 0;
  return {
    async ask(request: JudgeRequest): Promise<JudgeAnswer> {
      let model: LanguageModel;
      try {
        model = await setup.judgeModel(request, spec, agent.model);
      } catch (error) {
        // A judge that cannot be set up (no script under --mock, an invalid one) is a broken
        // case, not a low score: even a soft judge's case fails.
        if (error instanceof EvalDefinitionError) fail(`the judge could not be set up: ${errorMessage(error)}`);
        throw error;
      }
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
function caseHash(text: string): string {
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
    // A TypeScript eval file runs compiled: the frame is mapped back to the file's own line.
    const original = framePosition(frame);
    if (original?.file === file) return `${message} (at ${relative(dirname(file), file)}:${original.line}:${original.column})`;
  }
  return message;
}
