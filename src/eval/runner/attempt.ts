/**
 * One attempt of one case: prepare its agent, run its body under its deadline and scope, score
 * what it recorded, and say what else went wrong (a mock that ran out, turns not awaited, no
 * assertions). The verdict is final once the pool has read the attempt's scope (`finalise`).
 */
import { rmSync } from "node:fs";
import { dirname, isAbsolute, relative } from "node:path";
import { AgentRun, childRunId, isSubAgent, LazyAbort, subAgentDefinition, type AgentDefinition } from "../../agent/index.js";
import { createRunContext, manualClock } from "../../context/index.js";
import { describePlace, errorMessage, RetraceError } from "../../errors/index.js";
import type { CaseInfo, LanguageModel, RunEvent, RunStore, RunView } from "../../contracts/index.js";
import { ScriptedModel } from "../../providers/scripted/index.js";
import { MemoryRunStore } from "../../store/index.js";
import { caseScope, runInScope, type CaseScope, type SuiteScope } from "../../sandbox/index.js";
import { closeContext, EvalContext, evaluateAssertions, sendsInFlight, unsettledAssertions, type AssertionResult } from "../dsl/index.js";
import { framePosition } from "../loader/index.js";
import type { AttemptResult, RunDigest } from "../report/index.js";
import { Deadline, settledNow, TIMEOUT, UNSETTLED, type Deadlines } from "./deadlines.js";
import { judgeService } from "./judge.js";
import { DEFAULT_TIMEOUT_MS, type PlannedCase, type RunCasesOptions } from "./options.js";
import type { PreparedAgent, SuiteSetup } from "./setup.js";
import { replayCase } from "./replay-case.js";

const EVAL_EPOCH = Date.UTC(2026, 0, 1);
const OUTPUT_LIMIT = 2_000;

export interface Task {
  planned: PlannedCase;
  index: number;
  attempt: number;
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}


/** One attempt of a case; its verdict is final once `finalise` has read the scope. */
export async function runAttempt(
  task: Task,
  setup: SuiteSetup,
  options: RunCasesOptions,
  suite: SuiteScope,
  deadlines: Deadlines,
  /** When the suite's cases began (performance.now()), so attempts say when they started. */
  origin = 0,
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
        startedMs: started - origin,
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
  const judgeModels: { runId: string; model: LanguageModel }[] = [];
  const abort = new LazyAbort();
  const scope = caseScope(suite, task.attempt > 1 ? `${task.planned.id} (run ${task.attempt})` : task.planned.id);
  const caseInfo: CaseInfo = { name: spec.name, file: task.planned.file, tags: spec.tags ?? [] };
  const timeoutMs = spec.timeout ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // One deadline for the whole case: its turns, its body and the scoring of its assertions.
  const deadline = new Deadline(deadlines, timeoutMs, abort);
  let t: EvalContext | undefined;
  let cassette: { finish(): { errors: string[]; notes: string[] } } | undefined;
  try {
    cassette = options.cassettes?.open(task.planned, scope);
    // A case that names a bundle starts from its replay; the assertions read the replayed log.
    const replayed = spec.replay !== undefined ? await replayCase(spec, prepared, store, runId) : undefined;
    if (replayed) {
      errors.push(...replayed.errors);
      notes.push(...replayed.notes);
    }
    const run = replayed ? AgentRun.open(prepared.agent, replayed.runId, { store, context }) : AgentRun.start(prepared.agent, { store, context, ...(runId ? { runId } : {}) });
    const judge = judgeService(run, prepared.agent, spec, setup, store, context, abort, judgeRuns, (message) => errors.push(message), judgeModels);
    const body = new EvalContext({
      run,
      store,
      cancellation: abort,
      caseInfo,
      judge,
      workspace: prepared.workspace,
      fail: (message) => errors.push(message),
    });
    t = body;
    const timedOut = `timed out after ${timeoutMs} ms (set "timeout" on the case or --timeout)`;
    const outcome = await deadline.race(
      runInScope(scope, async () => {
        const inputs = replayed || spec.input === undefined ? [] : typeof spec.input === "string" ? [spec.input] : spec.input;
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
    if (cassette) {
      const closed = cassette.finish();
      cassette = undefined;
      errors.push(...closed.errors);
      notes.push(...closed.notes);
    }
    if (options.mode === "mock" && options.keep) {
      const problem = keepRuns(store, options.keep);
      if (problem) errors.push(problem);
    }
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
    // A script with responses the run never reached says the agent stopped early: that fails
    // the case, unless the case or the script says the spares are on purpose.
    if (!exhausted && spec.allowUnused !== true) errors.push(...unusedScripts(prepared, judgeModels));
    const values = assertions.filter((assertion) => assertion.value !== null).map((assertion) => assertion.value as number);
    const score = values.length ? mean(values) : null;
    const gateFailed = assertions.some((assertion) => assertion.severity === "gate" && assertion.status === "failed");
    if (score === null && assertions.length > 0) errors.push("every assertion was skipped; nothing was checked");
    // Any error so far means the verdict did not come (only) from the assertions.
    const decided = score !== null && errors.length === 0;
    if (score !== null && score < threshold) errors.push(`score ${score.toFixed(2)} is below the threshold ${threshold}`);
    return {
      scope,
      attempt: {
        attempt: task.attempt,
        runId: run.runId,
        status: gateFailed || errors.length > 0 ? "failed" : "passed",
        score,
        durationMs: performance.now() - started,
        startedMs: started - origin,
        assertions,
        errors,
        scored: decided,
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
        startedMs: started - origin,
        assertions: [],
        errors: [...errors, `the case could not run: ${errorMessage(error)}`],
        notes,
        run: null,
        judgeRuns,
      },
    };
  } finally {
    // A case that failed before its scoring still closes its cassette (what it recorded is kept).
    try {
      cassette?.finish();
    } catch {
      // Already reported as the case's failure.
    }
    deadline.cancel();
    if (t) closeContext(t);
    // Aborting costs a DOMException; the controller is aborted only by a timeout, which already did.
    if (prepared.tempDir) rmSync(prepared.tempDir, { recursive: true, force: true });
  }
}

/** Copies every run of the case's memory store into the kept store; a problem, if one could not be kept. */
function keepRuns(from: RunStore, to: RunStore): string | undefined {
  for (const { runId } of from.list()) {
    try {
      if (to.lastSeq(runId) > 0) return `could not keep run ${runId}: the store already holds a run with that id (give --keep-runs a new file)`;
      to.append(from.read(runId));
    } catch (error) {
      return `could not keep run ${runId}: ${errorMessage(error)}`;
    }
  }
  return undefined;
}

/** Which responses a script left unused, and how to say they are spare on purpose; undefined when none or allowed. */
function unusedOf(model: ScriptedModel, what: string): string | undefined {
  const unused = model.unused();
  if (unused.length === 0 || model.allowsUnused) return undefined;
  const shown = unused.slice(0, 3).map((item) => `#${item.index + 1} ${item.preview}`);
  if (unused.length > shown.length) shown.push(`and ${unused.length - shown.length} more`);
  return (
    `${what}${model.source ? ` (${model.source})` : ""} left ${unused.length} response(s) unused: ${shown.join("; ")}; ` +
    `the agent stopped before the script expected (if they are spare on purpose: allow_unused: true in the script, or allowUnused: true on the case)`
  );
}

/**
 * What every script the runner gave this case left unused: the case's own, each sub-agent's
 * that was called (a sub-agent the run never delegated to is a question for notCalledTool, and
 * its script is often shared by a config's every case), and each judge's.
 */
function unusedScripts(prepared: PreparedAgent, judges: readonly { runId: string; model: LanguageModel }[]): string[] {
  const problems: string[] = [];
  const own = prepared.script && unusedOf(prepared.script, "the mock script");
  if (own) problems.push(own);
  const visit = (agent: AgentDefinition, path: string, seen: Set<AgentDefinition>): void => {
    for (const tool of agent.tools) {
      if (!isSubAgent(tool)) continue;
      const child = subAgentDefinition(tool);
      if (seen.has(child)) continue;
      seen.add(child);
      const where = path ? `${path} > ${tool.name}` : tool.name;
      if (child.model instanceof ScriptedModel && child.model.calls > 0) {
        const problem = unusedOf(child.model, `the mock script of sub-agent ${where}`);
        if (problem) problems.push(problem);
      }
      visit(child, where, seen);
    }
  };
  visit(prepared.agent, "", new Set());
  for (const { runId, model } of judges) {
    const problem = model instanceof ScriptedModel ? unusedOf(model, `the mock script of the judge run ${runId}`) : undefined;
    if (problem) problems.push(problem);
  }
  return problems;
}

type BodyOutcome = { kind: "done" } | { kind: "threw"; error: unknown };

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
