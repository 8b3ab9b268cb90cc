/**
 * Runs eval cases: each in its own memory store under --mock (a deterministic clock and run id,
 * no network, Retrace's own file tools confined to a temp copy of the workspace), concurrently
 * in this process — the work is almost all waiting on promises, so worker threads would add
 * start-up cost and buy nothing.
 */
import { availableParallelism } from "node:os";
import { NetworkGuard, runInScope, suiteScope, type CaseScope } from "../../sandbox/index.js";
import type { AttemptResult, CaseResult } from "../report/index.js";
import { mean, runAttempt, type Task } from "./attempt.js";
import { Deadlines } from "./deadlines.js";
import type { PlannedCase, RunCasesOptions } from "./options.js";
import { SuiteSetup, type EvalMode } from "./setup.js";
import { watchUncaught } from "./uncaught.js";

export { DEFAULT_TIMEOUT_MS, type PlannedCase, type RunCasesOptions } from "./options.js";


/** Attempts that may wait for their verdict before the cases in flight let the event loop turn. */
const FINAL_BATCH = 256;

/**
 * Cases in flight when --concurrency is not given. Under --live they wait on the network, and
 * the number of cores is the usual bound. Under --mock they are CPU work in this one thread, so
 * the setting only decides how they interleave — and interleaving at least 16 measured ~10%
 * faster than 2 on a 1,000-case suite (the same steps of many cases run back to back).
 */
function defaultConcurrency(mode: EvalMode): number {
  return mode === "mock" ? Math.max(16, availableParallelism()) : availableParallelism();
}

export async function runCases(cases: readonly PlannedCase[], options: RunCasesOptions): Promise<CaseResult[]> {
  const setup = new SuiteSetup(options.mode, options.env ?? process.env, options.cassettes ? { fetch: options.cassettes.fetch, keyless: options.cassettes.keyless } : {});
  const repeat = Math.max(1, options.repeat ?? 1);
  const threshold = options.threshold ?? 0;
  const attempts: AttemptResult[][] = cases.map(() => []);
  const results: (CaseResult | undefined)[] = [];
  const scope = options.scope ?? options.guard?.scope ?? suiteScope(options.mode === "mock");
  const ownGuard = options.mode === "mock" && !options.guard ? new NetworkGuard(scope) : undefined;
  const deadlines = new Deadlines();
  const origin = performance.now();
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
  // A full batch is made final at one turn shared by every waiting worker (woken one by one,
  // each would run alone, one case in flight, until the next full batch). The turn waits for
  // the timers phase after the drain: a timer a case in the batch left due (a setTimeout 0) runs
  // while its case is still open, as the suite's end lets it. A flush that throws (an onCaseDone
  // that throws) rejects the suite, as the final flush does.
  let turn: Promise<void> | undefined;
  const nextTurn = (): Promise<void> => {
    if (flushing) clearImmediate(flushing);
    flushing = undefined;
    return (turn ??= new Promise((resolve, reject) =>
      setImmediate(() =>
        setTimeout(() => {
          turn = undefined;
          try {
            flush();
            resolve();
          } catch (error) {
            reject(error);
          }
        }, 0),
      ),
    ));
  };
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
      const finished = await runAttempt(task, setup, options, scope, deadlines, origin);
      // --bail reacts at once; a late error can only add a failure.
      if (finished.attempt.status !== "passed") noteFailure(task.index);
      finishing.push({ task, ...finished });
      // A --mock suite can run from start to end on promises alone, never turning the event
      // loop: its verdicts, and the progress drawn from them, would all come at its end. A full
      // batch waits for the turn (every worker soon does), so it is made final and reported.
      if (finishing.length >= FINAL_BATCH) await nextTurn();
      else flushing ??= setImmediate(flush);
    }
  };
  try {
    // --bail under --mock runs the cases one at a time, in order: which cases ran and which
    // were skipped is then the same on every run, and none is left finishing after the stop.
    // (Under --live, cases already in flight when the stop comes finish and are reported.)
    const concurrency = options.mode === "mock" && options.bail ? 1 : Math.max(1, options.concurrency ?? defaultConcurrency(options.mode));
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

/** The attempt with what its scope caught (network attempts, unhandled errors): its final verdict. Ends the scope. */
function finalise(attempt: AttemptResult, scope: CaseScope | undefined): AttemptResult {
  if (!scope) return attempt;
  scope.ended = true;
  if (scope.attempts.length === 0 && scope.errors.length === 0) return attempt;
  return {
    ...attempt,
    status: attempt.status === "error" ? "error" : "failed",
    scored: false,
    errors: [
      ...attempt.errors,
      ...scope.attempts.map((target) => `network request under --mock: ${target}; mock runs never touch the network (mock the tool, or run with --live)`),
      ...scope.errors.map((error) => `the case's code left an error unhandled: ${error}`),
    ],
  };
}

