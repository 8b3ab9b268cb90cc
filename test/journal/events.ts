/** Hand-built run logs for the fold and summary specs: each payload gets the next seq, and a time. */
import type { EventPayload, RunEvent } from "../../src/contracts/index.js";

export const START = Date.UTC(2026, 0, 1);

/** Events of one run from payloads; a payload may carry its own `at` (epoch ms), else the times tick by 1 s. */
export function eventsOf(payloads: (EventPayload & { atMs?: number })[], runId = "run_1", firstSeq = 1): RunEvent[] {
  return payloads.map(({ atMs, ...payload }, index) => ({
    v: 1,
    runId,
    seq: firstSeq + index,
    at: new Date(atMs ?? START + (firstSeq + index) * 1000).toISOString(),
    ...payload,
  })) as RunEvent[];
}

export const usage = (inputTokens = 10, outputTokens = 5, cachedInputTokens = 0) => ({ inputTokens, outputTokens, cachedInputTokens });

export const runStarted = (name = "agent", parent?: { runId: string; callId: string }): EventPayload => ({
  type: "run.started",
  agent: { name, digest: "d" },
  model: { provider: "scripted", model: "scripted" },
  seed: 0,
  config: null,
  ...(parent ? { parent } : {}),
});
export const userMessage = (content: string): EventPayload => ({ type: "message", role: "user", content });
export const llmStarted = (system = "Be brief.", step = 1): EventPayload => ({
  type: "llm.started",
  step,
  attempt: 1,
  requestKey: "k",
  request: { model: "m", system, messages: [], tools: [] },
});
export const llmFinished = (
  text: string,
  options: { cost?: number | null; usage?: ReturnType<typeof usage>; toolCalls?: { id: string; name: string; arguments: string }[] } = {},
): EventPayload => ({
  type: "llm.finished",
  step: 1,
  attempt: 1,
  requestKey: "k",
  response: {
    text,
    toolCalls: options.toolCalls ?? [],
    stopReason: options.toolCalls?.length ? "tool_calls" : "end",
    usage: options.usage ?? usage(),
  },
  cost: options.cost === undefined ? 0.01 : options.cost,
  durationMs: 5,
});
export const llmFailed = (): EventPayload => ({
  type: "llm.failed",
  step: 1,
  attempt: 1,
  requestKey: "k",
  error: { code: "provider_server", kind: "server", message: "busy" },
  retryInMs: 100,
});
export const toolRequested = (callId: string, name = "echo", args: unknown = { text: callId }): EventPayload => ({ type: "tool.requested", step: 1, callId, name, args });
export const toolStarted = (callId: string, name = "echo"): EventPayload => ({ type: "tool.started", callId, name });
export const toolFinished = (callId: string, result: unknown, name = "echo"): EventPayload => ({ type: "tool.finished", callId, name, result });
export const toolFailed = (callId: string, message: string, name = "echo"): EventPayload => ({ type: "tool.failed", callId, name, error: { kind: "threw", message } });
export const toolBlocked = (callId: string, detail: string, name = "echo"): EventPayload => ({ type: "tool.blocked", callId, name, reason: "policy_denied", detail });
export const toolUnknown = (callId: string, detail: string, name = "echo"): EventPayload => ({ type: "tool.unknown_outcome", callId, name, detail });
export const toolDecided = (callId: string, decision: "rerun" | "skip", name = "echo"): EventPayload => ({ type: "tool.decided", callId, name, decision });
export const approvalRequested = (callId: string, options: { argsHash?: string; roles?: string[]; deadline?: number; tool?: string } = {}): EventPayload => ({
  type: "approval.requested",
  callId,
  tool: options.tool ?? "echo",
  argsHash: options.argsHash ?? `hash-${callId}`,
  roles: options.roles ?? [],
  ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
});
export const granted = (callId: string, role = "approver", argsHash = `hash-${callId}`): EventPayload => ({ type: "approval.granted", callId, argsHash, role });
export const denied = (callId: string, reason: string, role = "approver", argsHash = `hash-${callId}`): EventPayload => ({
  type: "approval.denied",
  callId,
  argsHash,
  role,
  reason,
});
export const expired = (callId: string): EventPayload => ({ type: "approval.expired", callId, detail: "too late" });
export const paused = (pending: { callId: string; tool: string; roles: string[] }[], childRunId?: string): EventPayload => ({
  type: "run.paused",
  reason: childRunId ? "child_waiting" : "approval",
  pending,
  ...(childRunId ? { childRunId } : {}),
});
export const resumed = (): EventPayload => ({ type: "run.resumed" });
export const runFinished = (
  status: "completed" | "failed",
  output: string,
  options: { error?: { code: string; message: string }; cost?: number | null; steps?: number; usage?: ReturnType<typeof usage> } = {},
): EventPayload => ({
  type: "run.finished",
  status,
  output,
  ...(options.error ? { error: options.error } : {}),
  usage: options.usage ?? usage(),
  cost: options.cost === undefined ? 0.01 : options.cost,
  steps: options.steps ?? 1,
});
export const guardrailFired = (): EventPayload => ({ type: "guardrail", direction: "output", action: "warn", rule: "r", detail: "fired" });
export const retrievalMade = (): EventPayload => ({ type: "retrieval", callId: "c", tool: "search_docs", query: "q", chunks: [] });
