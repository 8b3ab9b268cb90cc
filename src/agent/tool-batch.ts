import { canonicalJson } from "../canonical/index.js";
import { RetraceError } from "../errors/index.js";
import type { EventPayload, RetrievedChunk, ToolErrorKind } from "../events/index.js";
import type { PendingCall, RunLog } from "../journal/index.js";
import type { AnyTool, ToolContext } from "../tools/index.js";
import type { AgentDefinition } from "./definition.js";
import type { CallVerdict, PreparedCall } from "./gate.js";

export type BatchOutcome = { paused: false } | { paused: true; pending: { callId: string; tool: string; roles: string[] }[] };

interface Failure {
  kind: ToolErrorKind;
  message: string;
}

/** Finds the tool and validates the arguments; a problem here means the call never runs. */
function prepare(call: PendingCall, tools: ReadonlyMap<string, AnyTool>): PreparedCall | Failure {
  const tool = tools.get(call.name);
  if (!tool) {
    const known = [...tools.keys()];
    return {
      kind: "unknown_tool",
      message: `no tool named "${call.name}"; available: ${known.length ? known.join(", ") : "(none)"}`,
    };
  }
  if (call.rawArgs !== undefined) {
    return { kind: "invalid_arguments", message: `arguments are not valid JSON: ${truncate(call.rawArgs, 200)}` };
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

interface Executed {
  retrievals: EventPayload<"retrieval">[];
  outcome: { ok: true; result: unknown } | { ok: false; error: Failure };
}

async function execute(call: PreparedCall, log: RunLog, signal: AbortSignal): Promise<Executed> {
  const retrievals: EventPayload<"retrieval">[] = [];
  const context: ToolContext = {
    runId: log.runId,
    callId: call.callId,
    signal,
    now: () => log.now(),
    recordRetrieval(query: string, chunks: RetrievedChunk[]) {
      retrievals.push({ type: "retrieval", callId: call.callId, tool: call.name, query, chunks });
    },
  };
  // No clock reads around the call: tools finish in any order, and the log must not show it.
  try {
    const value = await call.tool.run(call.args, context);
    const result = value === undefined ? null : value;
    try {
      // The result must survive the log unchanged; refuse what canonical JSON would alter.
      canonicalJson(result);
    } catch (error) {
      return { retrievals, outcome: { ok: false, error: { kind: "invalid_result", message: (error as Error).message } } };
    }
    return { retrievals, outcome: { ok: true, result } };
  } catch (error) {
    const message = error instanceof RetraceError ? error.message : error instanceof Error ? error.message : String(error);
    const name = error instanceof RetraceError ? `${error.code}: ` : error instanceof Error && error.name !== "Error" ? `${error.name}: ` : "";
    return { retrievals, outcome: { ok: false, error: { kind: "threw", message: `${name}${message}` } } };
  }
}

/**
 * Settles every call the log says is still pending. Calls of one batch run concurrently, but
 * their events are written in call order, so the log never depends on which finished first.
 */
export async function runPendingCalls(agent: AgentDefinition, log: RunLog, signal: AbortSignal): Promise<BatchOutcome> {
  const pending = log.state.pendingCalls.filter((call) => call.phase === "requested");
  if (pending.length === 0) return { paused: false };
  const tools = new Map(agent.tools.map((tool) => [tool.name, tool]));

  const prepared: (PreparedCall | undefined)[] = [];
  const failures: EventPayload[] = [];
  for (const call of pending) {
    const result = prepare(call, tools);
    if ("kind" in result) {
      failures.push({ type: "tool.failed", callId: call.callId, name: call.name, error: result});
      prepared.push(undefined);
    } else prepared.push(result);
  }
  if (failures.length) log.appendAll(failures);

  const runnable = prepared.filter((call): call is PreparedCall => call !== undefined);
  const verdicts: CallVerdict[] = agent.gate ? await agent.gate.review(runnable, log) : runnable.map(() => ({ action: "run" }));
  const waiting = runnable.flatMap((call, index) => {
    const verdict = verdicts[index];
    return verdict?.action === "wait" ? [{ callId: call.callId, tool: call.name, roles: verdict.roles }] : [];
  });
  // One undecided call holds the whole batch: nothing runs until every call is decided.
  if (waiting.length > 0) return { paused: true, pending: waiting };

  const blocked: EventPayload[] = [];
  const toRun: PreparedCall[] = [];
  runnable.forEach((call, index) => {
    const verdict = verdicts[index] ?? { action: "run" };
    if (verdict.action === "block") {
      blocked.push({ type: "tool.blocked", callId: call.callId, name: call.name, reason: verdict.reason, detail: verdict.detail });
    } else toRun.push(call);
  });
  if (blocked.length) log.appendAll(blocked);
  if (toRun.length === 0) return { paused: false };

  // The start markers land before anything runs: after a crash, the log tells which calls may have had effects.
  log.appendAll(toRun.map((call) => ({ type: "tool.started", callId: call.callId, name: call.name }) as EventPayload));
  const executed = await Promise.all(toRun.map((call) => execute(call, log, signal)));
  const outcomes: EventPayload[] = [];
  toRun.forEach((call, index) => {
    const run = executed[index] as Executed;
    outcomes.push(...run.retrievals);
    outcomes.push(
      run.outcome.ok
        ? { type: "tool.finished", callId: call.callId, name: call.name, result: run.outcome.result }
        : { type: "tool.failed", callId: call.callId, name: call.name, error: run.outcome.error },
    );
  });
  log.appendAll(outcomes);
  return { paused: false };
}
