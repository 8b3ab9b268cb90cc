import { canonicalJson } from "../canonical/index.js";
import type { RunContext } from "../context/index.js";
import { RetraceError } from "../errors/index.js";
import type { EventOf, EventPayload, RetrievedChunk, ToolErrorKind } from "../contracts/index.js";
import type { PendingCall } from "../journal/index.js";
import { RunLog, type LogPayload } from "../store/index.js";
import type { AnyTool, ToolContext } from "../tools/index.js";
import { parseArguments } from "./arguments.js";
import type { AgentDefinition, TurnOutcome } from "./definition.js";
import type { CallVerdict, PreparedCall } from "./gate.js";
import { isSubAgent, type SubAgentTool } from "./sub-agent.js";

/**
 * Runs a sub-agent call as its child run. The agent loop supplies it, so this module never
 * imports the loop: the structure stays one-way (agent-run → tool-batch → sub-agent).
 */
export type ChildRunner = (tool: SubAgentTool, task: string, callId: string) => Promise<TurnOutcome>;

export type PendingDecision = EventOf<"run.paused">["pending"][number];

export type BatchOutcome =
  | { paused: false }
  | { paused: true; reason: "approval" | "unknown_outcome"; pending: PendingDecision[] }
  | { paused: true; reason: "child_waiting"; childRunId: string; pending: PendingDecision[] };

interface Failure {
  kind: ToolErrorKind;
  message: string;
}

/** Finds the tool and validates the arguments; a problem here means the call never runs. */
function prepare(call: PendingCall, tools: ReadonlyMap<string, AnyTool>): PreparedCall | Failure {
  const tool = tools.get(call.name);
  if (!tool) {
    const known = [...tools.keys()];
    return { kind: "unknown_tool", message: `no tool named "${call.name}"; available: ${known.length ? known.join(", ") : "(none)"}` };
  }
  if (call.rawArgs !== undefined) {
    const parsed = parseArguments(call.rawArgs);
    const problem = parsed.ok ? "arguments could not be read" : parsed.problem;
    return { kind: "invalid_arguments", message: `${problem}: ${truncate(call.rawArgs, 200)}` };
  }
  const parsed = tool.input.safeParse(call.args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join(".") ?? "";
    return { kind: "invalid_arguments", message: `${path ? `${path}: ` : ""}${issue?.message ?? "invalid arguments"}` };
  }
  return { callId: call.callId, name: call.name, tool, args: parsed.data };
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

type Outcome =
  | { kind: "finished"; result: unknown }
  | { kind: "failed"; error: Failure }
  | { kind: "waiting"; childRunId: string; pending: PendingDecision[] };

interface Executed {
  retrievals: EventPayload<"retrieval">[];
  outcome: Outcome;
}

function describeThrown(error: unknown): string {
  if (error instanceof RetraceError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.name !== "Error" ? `${error.name}: ${error.message}` : error.message;
  return String(error);
}

async function execute(call: PreparedCall, log: RunLog, context: RunContext, signal: AbortSignal, runChild: ChildRunner): Promise<Executed> {
  const retrievals: EventPayload<"retrieval">[] = [];
  if (isSubAgent(call.tool)) {
    const child = await runChild(call.tool, (call.args as { task: string }).task, call.callId);
    if (child.status === "completed") return { retrievals, outcome: { kind: "finished", result: { runId: child.runId, output: child.output } } };
    if (child.status === "waiting") return { retrievals, outcome: { kind: "waiting", childRunId: child.runId, pending: child.pending } };
    const reason = child.error ? `${child.error.code}: ${child.error.message}` : "it failed";
    return { retrievals, outcome: { kind: "failed", error: { kind: "child_failed", message: `child run ${child.runId} failed: ${reason}` } } };
  }
  // The call's time is the logged start of the call: a resumed re-run sees the same time.
  const started = log.events.findLast((event) => event.type === "tool.started" && event.callId === call.callId);
  const startedAt = started ? RunLog.timeOf(started) : (log.latestTime() ?? 0);
  // The call's own signal: aborted with the run, or when the call times out.
  const own = new AbortController();
  // Once the call has an outcome, nothing it does later reaches the log.
  let sealed = false;
  const toolContext: ToolContext = {
    runId: log.runId,
    callId: call.callId,
    signal: call.tool.timeoutMs === undefined ? signal : AbortSignal.any([signal, own.signal]),
    now: () => startedAt,
    recordRetrieval(query: string, chunks: RetrievedChunk[]) {
      if (!sealed) retrievals.push({ type: "retrieval", callId: call.callId, tool: call.name, mode: "tool", turn: log.state.turns, query, chunks });
    },
  };
  // No clock reads around the call: tools finish in any order, and the log must not show it.
  try {
    const value = await withTimeout(call.tool.run(call.args, toolContext), call.tool.timeoutMs, own);
    sealed = true;
    if (value === TIMED_OUT) {
      return { retrievals, outcome: { kind: "failed", error: { kind: "timeout", message: `${call.name} did not finish within ${call.tool.timeoutMs} ms; it was aborted` } } };
    }
    const result = value === undefined ? null : value;
    try {
      // The result must survive the log unchanged; refuse what canonical JSON would alter.
      canonicalJson(result);
    } catch (error) {
      return { retrievals, outcome: { kind: "failed", error: { kind: "invalid_result", message: (error as Error).message } } };
    }
    return { retrievals, outcome: { kind: "finished", result } };
  } catch (error) {
    sealed = true;
    return { retrievals, outcome: { kind: "failed", error: { kind: "threw", message: describeThrown(error) } } };
  }
}

const TIMED_OUT: unique symbol = Symbol("timed out");

/**
 * The call's value, or TIMED_OUT once `ms` passed (and the call's signal is aborted). A call
 * that settles after its timeout — resolving, or rejecting — is swallowed here: it can neither
 * change the outcome already taken nor surface as an unhandled rejection.
 */
function withTimeout<T>(running: Promise<T> | T, ms: number | undefined, own: AbortController): Promise<T | typeof TIMED_OUT> {
  const promise = Promise.resolve(running);
  if (ms === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      own.abort(new Error("timeout"));
      resolve(TIMED_OUT);
    }, ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * Runs calls concurrently and writes their outcomes in call order. Each call settles on its
 * own: one that rejects (a child run that threw) becomes that call's failure, never the loss of
 * its siblings' outcomes. An outcome the log cannot store (a NaN retrieval score, a value
 * canonical JSON would change) becomes a `tool.failed` saying why, so the run never stops at
 * `tool.started` with an exception.
 */
async function executeAll(calls: readonly PreparedCall[], log: RunLog, context: RunContext, signal: AbortSignal, runChild: ChildRunner): Promise<BatchOutcome> {
  const settled = await Promise.allSettled(calls.map((call) => execute(call, log, context, signal, runChild)));
  const outcomes: LogPayload[] = [];
  const waiting: Extract<Outcome, { kind: "waiting" }>[] = [];
  calls.forEach((call, index) => {
    const result = settled[index] as PromiseSettledResult<Executed>;
    if (result.status === "rejected") {
      outcomes.push({ type: "tool.failed", callId: call.callId, name: call.name, error: { kind: isSubAgent(call.tool) ? "child_failed" : "threw", message: describeThrown(result.reason) } });
      return;
    }
    const { retrievals, outcome } = result.value;
    if (outcome.kind === "waiting") {
      waiting.push(outcome);
      return;
    }
    const events: LogPayload[] = [
      ...retrievals,
      outcome.kind === "finished"
        ? { type: "tool.finished", callId: call.callId, name: call.name, result: outcome.result }
        : { type: "tool.failed", callId: call.callId, name: call.name, error: outcome.error },
    ];
    const refused = log.refusal(events);
    if (refused === undefined) outcomes.push(...events);
    else {
      outcomes.push({
        type: "tool.failed",
        callId: call.callId,
        name: call.name,
        error: { kind: "invalid_result", message: `the outcome of ${call.name} cannot be stored in the run log: ${refused}` },
      });
    }
  });
  if (outcomes.length) log.appendAll(outcomes);
  const first = waiting[0];
  if (!first) return { paused: false };
  // Every waiting child's decisions, each named with the run that holds it.
  const pending = waiting.flatMap((child) => child.pending.map((item) => ({ ...item, runId: item.runId ?? child.childRunId })));
  return { paused: true, reason: "child_waiting", childRunId: first.childRunId, pending };
}

/**
 * Calls whose start marker is in the log but whose outcome is not: the run paused on a child,
 * or the process stopped. A child run is continued; an idempotent tool runs again; anything
 * else may have had its effect, so it gets `tool.unknown_outcome` and the run pauses until a
 * person decides (`tool.decided`): run it again, or tell the model its outcome is unknown.
 */
async function settleStarted(tools: ReadonlyMap<string, AnyTool>, log: RunLog, context: RunContext, signal: AbortSignal, runChild: ChildRunner): Promise<BatchOutcome> {
  const started = log.state.pendingCalls.filter((call) => call.phase === "started");
  const rerun: PreparedCall[] = [];
  const unknown: LogPayload[] = [];
  for (const call of started) {
    const prepared = prepare(call, tools);
    if (!("kind" in prepared) && (isSubAgent(prepared.tool) || prepared.tool.idempotent)) rerun.push(prepared);
    else {
      unknown.push({
        type: "tool.unknown_outcome",
        callId: call.callId,
        name: call.name,
        detail: `${call.name} started but its outcome was never recorded; it is not idempotent, so it is not run again without a decision`,
      });
    }
  }
  if (unknown.length) log.appendAll(unknown);
  // Decided by a person: run again, under a new start marker.
  const decided: PreparedCall[] = [];
  const failures: LogPayload[] = [];
  for (const call of log.state.pendingCalls.filter((pending) => pending.phase === "rerun")) {
    const prepared = prepare(call, tools);
    if ("kind" in prepared) failures.push({ type: "tool.failed", callId: call.callId, name: call.name, error: prepared });
    else decided.push(prepared);
  }
  if (failures.length) log.appendAll(failures);
  if (decided.length) log.appendAll(decided.map((call): LogPayload => ({ type: "tool.started", callId: call.callId, name: call.name })));
  const again = [...rerun, ...decided];
  if (again.length) {
    const outcome = await executeAll(again, log, context, signal, runChild);
    if (outcome.paused) return outcome;
  }
  const undecided = log.state.pendingCalls.filter((call) => call.phase === "unknown");
  if (undecided.length === 0) return { paused: false };
  return { paused: true, reason: "unknown_outcome", pending: undecided.map((call) => ({ callId: call.callId, tool: call.name, roles: [], unknownOutcome: true as const })) };
}

/**
 * Settles every call the log says is still pending. Calls of one batch run concurrently, but
 * their events are written in call order, so the log never depends on which finished first.
 */
export async function runPendingCalls(
  agent: AgentDefinition,
  log: RunLog,
  context: RunContext,
  signal: AbortSignal,
  runChild: ChildRunner,
): Promise<BatchOutcome> {
  const tools = new Map(agent.tools.map((tool) => [tool.name, tool]));
  const resumed = await settleStarted(tools, log, context, signal, runChild);
  if (resumed.paused) return resumed;
  const pending = log.state.pendingCalls.filter((call) => call.phase === "requested");
  if (pending.length === 0) return { paused: false };

  const prepared: PreparedCall[] = [];
  const failures: LogPayload[] = [];
  for (const call of pending) {
    const result = prepare(call, tools);
    if ("kind" in result) failures.push({ type: "tool.failed", callId: call.callId, name: call.name, error: result });
    else prepared.push(result);
  }
  if (failures.length) log.appendAll(failures);

  const verdicts: CallVerdict[] = agent.gate ? await agent.gate.review(prepared, log) : prepared.map(() => ({ action: "run" }));
  const waiting = prepared.flatMap((call, index) => {
    const verdict = verdicts[index];
    return verdict?.action === "wait" ? [{ callId: call.callId, tool: call.name, roles: verdict.roles }] : [];
  });
  // One undecided call holds the whole batch: nothing runs until every call is decided.
  if (waiting.length > 0) return { paused: true, reason: "approval", pending: waiting };

  const blocked: LogPayload[] = [];
  const toRun: PreparedCall[] = [];
  prepared.forEach((call, index) => {
    const verdict = verdicts[index] ?? { action: "run" };
    if (verdict.action === "block") {
      blocked.push(...(verdict.events ?? []), { type: "tool.blocked", callId: call.callId, name: call.name, reason: verdict.reason, detail: verdict.detail });
    } else toRun.push(call);
  });
  if (blocked.length) log.appendAll(blocked);
  if (toRun.length === 0) return { paused: false };

  // The start markers land before anything runs: after a crash, the log tells which calls may have had effects.
  log.appendAll(toRun.map((call): LogPayload => ({ type: "tool.started", callId: call.callId, name: call.name })));
  return executeAll(toRun, log, context, signal, runChild);
}
