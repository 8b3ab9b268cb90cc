/** Hand-built run logs, for scorers and views tested without running an agent. */
import type { EventPayload, RunEvent, Scorer } from "../../src/contracts/index.js";
import { viewRun } from "../../src/journal/index.js";

export function buildLog(payloads: EventPayload[], runId = "run_test"): RunEvent[] {
  const events = [
    { type: "run.started", agent: { name: "test", digest: "d" }, model: { provider: "scripted", model: "scripted" }, seed: 0, config: null },
    ...payloads,
  ] as EventPayload[];
  return events.map((payload, index) => ({ v: 1, runId, seq: index + 1, at: "2026-01-01T00:00:00.000Z", ...payload }) as RunEvent);
}

const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 };

export const user = (content: string): EventPayload => ({ type: "message", role: "user", content });

export const answer = (text: string, step = 1, toolCalls: { id: string; name: string; arguments: string }[] = []): EventPayload => ({
  type: "llm.finished",
  step,
  attempt: 1,
  requestKey: "k",
  response: { text, toolCalls, stopReason: toolCalls.length ? "tool_calls" : "end", usage },
  cost: null,
  durationMs: 1,
});

export const requested = (callId: string, name: string, args: unknown, step = 1): EventPayload => ({ type: "tool.requested", step, callId, name, args });
export const finished = (callId: string, name: string, result: unknown): EventPayload => ({ type: "tool.finished", callId, name, result });
export const failedCall = (callId: string, name: string, message: string): EventPayload => ({ type: "tool.failed", callId, name, error: { kind: "threw", message } });
export const blockedCall = (callId: string, name: string, reason: "mode_blocked" | "policy_denied" | "approval_denied" | "rate_limited", detail = "no"): EventPayload => ({
  type: "tool.blocked",
  callId,
  name,
  reason,
  detail,
});
export const done = (output: string, status: "completed" | "failed" = "completed", steps = 1): EventPayload => ({
  type: "run.finished",
  status,
  output: status === "completed" ? output : "",
  ...(status === "failed" ? { error: { code: "max_steps", message: "out of steps" } } : {}),
  usage,
  cost: null,
  steps,
});
export const guardrail = (action: "block" | "warn" | "redact", rule: string, direction: "input" | "output" = "output"): EventPayload => ({
  type: "guardrail",
  direction,
  action,
  rule,
  detail: `${rule} fired`,
});
export const retrieval = (callId: string, query: string, chunks: { id: string; source: string; text: string }[]): EventPayload => ({
  type: "retrieval",
  callId,
  tool: "search_docs",
  query,
  chunks: chunks.map((chunk, index) => ({ ...chunk, score: 1 / (index + 1), rank: index + 1 })),
});

/** A retrieved chunk of the test document d.md, numbered n (its id carries a made-up hash). */
export const chunk = (n: number, text: string) => ({ id: `d.md#${n}:0000000${n}`, source: "d.md", text });

/** What a scorer says of a hand-built log, scored as a case's run. */
export function scoreLog<O>(scorer: Scorer<O>, events: RunEvent[], options: O): unknown {
  const run = viewRun(events);
  return scorer.score({ case: { name: "c", file: undefined, tags: [] }, run, output: run.output, value: run.output, expected: undefined, options, judge: undefined });
}
